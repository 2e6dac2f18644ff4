// `svc token validate`: asks the service whether a token is good. Prints valid or invalid;
// an invalid token also fails with exit 4, so `svc token validate - <file && ...` reads naturally.
// Without a token it checks the one every other command would send: SVC_TOKEN when set, else
// the cached token of the default Grant.
import * as z from '../../contract/zod.js';
import { readSecretFromStdinOrPrompt, refuseEmptyCredentials } from '../../auth/credentials.js';
import { cachedToken, discardCachedToken, handedInToken, refusedHandedInToken } from '../../auth/session.js';
import { ApiError, AuthError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';

export interface ValidateOptions {
  /** The token, `-` for stdin, or undefined for SVC_TOKEN or else the cached token of the default Grant. */
  token?: string | undefined;
}

export async function run(opts: ValidateOptions, f: Factory): Promise<void> {
  await refuseEmptyCredentials(f);
  const given =
    opts.token === '-'
      ? (await readSecretFromStdinOrPrompt(f, { what: 'the token', message: 'Token:', flag: '-', hint: 'pipe the token in: svc token validate - <token.txt' })).trim()
      : opts.token;
  const handedIn = given === undefined ? handedInToken(f) : undefined;
  const cached = given === undefined && handedIn === undefined ? await cachedToken(f) : undefined;
  const token = given ?? handedIn ?? cached?.access_token ?? '';
  const api = await f.api();
  let valid: boolean;
  try {
    valid = await api.request({ method: 'GET', path: '/oauth2/token/validate', auth: token, schema: z.boolean() });
  } catch (error) {
    // The contract answers `false`; a service that answers 401 instead means the same.
    if (!(error instanceof ApiError && error.status === 401)) throw error;
    valid = false;
  }
  if (f.io.json) writeJson(f.io, { valid });
  else println(f.io, valid ? 'valid' : 'invalid');
  if (valid) return;
  if (handedIn !== undefined) throw refusedHandedInToken();
  if (cached === undefined) throw new AuthError('the token is not valid', { hint: 'get a new one with `svc token get --force`' });
  // The cache would go on handing out a token the service refuses (revoked, say).
  await discardCachedToken(f, cached);
  throw new AuthError(`the cached token of Grant ${cached.grant_id} is not valid; it is dropped from the cache`, {
    hint: '`svc token get` gets a new one',
  });
}
