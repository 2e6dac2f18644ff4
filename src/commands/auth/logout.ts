// `svc auth logout`: forgets what logins left behind: cached access tokens, refresh tokens
// and the client secret in the secret store, Grants and companies in the profile. Other
// settings (base URL, client ID, redirect URI, scopes) stay, and so does every other secret:
// private keys, webhook signing secrets, the API key. `--all` does this for every profile
// svc knows by name: the current one, those of the config file and the built-in ones (a
// client secret may be stored for `sandbox` without any setting in the config file).
import { CLIENT_SECRET_KEY } from '../../auth/credentials.js';
import { refreshTokenKey } from '../../auth/flows.js';
import { forgetAuthorizations, knownIds, readAuthorizations } from '../../auth/profile.js';
import { profileTokenCache } from '../../auth/session.js';
import { tokenKey } from '../../auth/token-cache.js';
import { BUILTIN_PROFILES } from '../../config/defaults.js';
import { environmentGrant, resolveProfileName } from '../../config/settings.js';
import type { ConfigStore } from '../../config/store.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { envVariableFor } from '../../secrets/env.js';
import type { SecretStore } from '../../secrets/store.js';

export interface LogoutOptions {
  /** Every profile, not only the current one. */
  all: boolean;
}

export interface LogoutResult {
  profile: string;
  /** Grants and code-flow companies removed from the profile. */
  grants: number;
  /** Grants whose cached access tokens were deleted. */
  tokens: number;
  refreshTokens: number;
  clientSecret: boolean;
}

export async function run(opts: LogoutOptions, f: Factory): Promise<void> {
  // Only the profile name: logging out needs no base URL, and a profile may lack one.
  const current = resolveProfileName(f.globals, f.env).value;
  const config = await f.config();
  const names = opts.all ? [...new Set([current, ...config.profileNames(), ...Object.keys(BUILTIN_PROFILES)])] : [current];
  // SVC_GRANT_ID may name a Grant no profile stored; its tokens are cached all the same.
  const extra = environmentGrant(f.env);
  const results: LogoutResult[] = [];
  for (const name of names) {
    const secrets = name === current ? await f.secrets() : await secretsOf(f, name);
    const result = await logout(f, config, name, secrets, extra);
    // Of the other profiles, only those that had something to remove are worth a line.
    if (name === current || removedAnything(result)) results.push(result);
  }
  if (f.io.json) writeJson(f.io, results);
  else for (const r of results) note(f.io, describe(r));
  const variable = envVariableFor(f.env, CLIENT_SECRET_KEY);
  if (variable) note(f.io, `note: ${variable} is still set and still supplies a client secret`);
}

async function logout(f: Factory, config: ConfigStore, profile: string, secrets: SecretStore, extra: string | undefined): Promise<LogoutResult> {
  const auth = readAuthorizations(config, profile);
  const cache = profileTokenCache(f, secrets, profile);
  const ids = new Set([...knownIds(auth), ...[auth.grant, extra].filter((id): id is string => id !== undefined)]);
  let tokens = 0;
  for (const id of ids) {
    // Tokens cached in the secret store by versions before the token file go too.
    const legacy = secrets.backend === 'keychain' || secrets.backend === 'file' ? await secrets.delete(tokenKey(id)) : false;
    if ((await cache.forget(id)) || legacy) tokens += 1;
  }
  let refreshTokens = 0;
  for (const company of auth.companies) if (await secrets.delete(refreshTokenKey(company.merchant_id))) refreshTokens += 1;
  const clientSecret = await secrets.delete(CLIENT_SECRET_KEY);
  // Metadata last: if the store fails above, the profile still lists what is left to delete.
  // A profile with none is left alone, so that no empty one is added to the config file.
  const grants = auth.grants.length + auth.companies.length;
  if (grants > 0 || auth.grant !== undefined) await forgetAuthorizations(config, profile);
  return { profile, grants, tokens, refreshTokens, clientSecret };
}

function removedAnything(r: LogoutResult): boolean {
  return r.grants > 0 || r.tokens > 0 || r.refreshTokens > 0 || r.clientSecret;
}

// The factory's store is bound to the current profile; another profile's keys need their own.
async function secretsOf(f: Factory, profile: string): Promise<SecretStore> {
  const { openSecretStore } = await import('../../secrets/open.js');
  return openSecretStore({ env: f.env, paths: f.paths, io: f.io, profile });
}

function describe(r: LogoutResult): string {
  const parts = [
    `${r.grants} Grant${r.grants === 1 ? '' : 's'}`,
    `cached tokens of ${r.tokens} Grant${r.tokens === 1 ? '' : 's'}`,
    ...(r.refreshTokens > 0 ? [`${r.refreshTokens} refresh token${r.refreshTokens === 1 ? '' : 's'}`] : []),
    r.clientSecret ? 'the client secret' : 'no stored client secret',
  ];
  return `logged out of profile "${r.profile}": removed ${parts.join(', ')}`;
}
