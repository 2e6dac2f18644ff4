// The way every command that calls a protected operation gets its bearer token: pick the
// Grant, then take its cached token or get a new one (client credentials for a Grant, the
// refresh token for a code-flow company), once for all concurrent svc processes.
import { join } from 'node:path';
import type { TokenSource } from '../api/client.js';
import { isLoopbackHost } from '../config/base-url.js';
import type { Settings } from '../config/settings.js';
import { ApiError, AuthError } from '../errors.js';
import type { Grant } from '../contract/oauth.js';
import type { Factory } from '../factory.js';
import { note } from '../io/streams.js';
import type { SecretStore } from '../secrets/store.js';
import { authSecrets, clientCredentials, missingFromEnvironment, noCredentialsWithoutStore, refuseEmptyCredentials, type ClientCredentials } from './credentials.js';
import { cachedFromRecord, refreshCompanyTokens, requestGrantToken } from './flows.js';
import { authIndex, knownIds, readAuthorizations, updateCompanyExpiry, type Authorizations, type CompanyRecord } from './profile.js';
import { createTokenCache, fileShelf, secretStoreShelf, type CachedToken, type TokenCache } from './token-cache.js';
import { pathSegment } from '../store/private-file.js';
import type { TokenFile } from '../store/token-file.js';
import { grantEntries, selectGrant } from './grant-select.js';

export const DEFAULT_SCOPE = 'write_receipts';
/** A code-flow company has one access token, carrying every scope of its login. */
export const CODE_FLOW_SLOT = '*';

export interface TokenFor {
  /** Grant to act for (default: --grant, SVC_GRANT_ID, the profile's `grant`, or the only Grant). */
  grant?: string | undefined;
  /** Scope to request (default: write_receipts). */
  scope?: string | undefined;
}

export interface IssuedToken extends CachedToken {
  /** The Grant ID, or the merchant ID of a code-flow company. */
  grant_id: string;
}

/** `--grant` > SVC_GRANT_ID > the profile's `grant` > the only Grant of the profile. */
export function chooseGrant(auth: Authorizations, settings: Settings, flag?: string): string {
  const setting = flag === undefined ? settings.grant : { value: flag, source: 'flag' as const };
  // A selector (src/auth/grant-select.ts) names a Grant of the profile; SVC_GRANT_ID and the
  // profile's default may name one no login recorded (CI), passed on for the service to judge.
  if (setting) {
    // A Grant's own ID (as a fan-out gives it, once per Grant) is looked up, not searched for.
    const index = authIndex(auth);
    if (index.grants.has(setting.value) || index.companies.has(setting.value)) return setting.value;
    const from = { flag: '--grant', env: 'SVC_GRANT_ID', profile: `grant of profile "${settings.profile.value}"`, default: 'grant' }[setting.source];
    return selectGrant(setting.value, grantEntries(auth), { from, passUnknown: setting.source !== 'flag' });
  }
  const ids = knownIds(auth);
  if (ids.length === 1 && ids[0] !== undefined) return ids[0];
  if (ids.length === 0) {
    throw new AuthError('no Grant: run `svc auth login`', {
      hint: 'with nobody to approve a login (CI): SVC_GRANT_ID with SVC_CLIENT_ID and SVC_CLIENT_SECRET, or SVC_API_KEY, or SVC_TOKEN; against a sandbox started with --auto-approve, `svc sandbox login`',
    });
  }
  throw new AuthError(`profile "${settings.profile.value}" has ${ids.length} Grants and no default`, {
    hint: 'choose one with `svc grants use GRANT_ID`, or pass --grant',
  });
}

/**
 * The token cache of a profile, with its locks in the state dir. Its tokens are kept in the
 * profile's private token file when secrets are kept at all (keychain, secret file): the
 * Secret Service cannot hold a platform's thousands of short-lived tokens (README
 * "Platforms"). Otherwise (credentials from the environment, tests) beside the secrets.
 */
export function profileTokenCache(f: Factory, secrets: SecretStore, profile: string): TokenCache {
  const shelf =
    secrets.backend === 'keychain' || secrets.backend === 'file'
      ? fileShelf(() => tokenFileAt(join(f.paths.stateDir, pathSegment(profile, 'profile name'), TOKEN_FILE)))
      : secretStoreShelf(secrets);
  return createTokenCache({ shelf, clock: f.clock, lockDir: join(f.paths.stateDir, 'locks'), namespace: profile, onWait: (text) => note(f.io, text) });
}

// One connection per token file and process: a run over 2,000 Grants opens a session per Grant.
const tokenFiles = new Map<string, Promise<TokenFile>>();

function tokenFileAt(path: string): Promise<TokenFile> {
  let file = tokenFiles.get(path);
  if (file === undefined) {
    // Loaded only when a token is read or written: libsql is not every command's.
    file = import('../store/token-file.js').then(({ openTokenFile }) => openTokenFile(path));
    // A failed open is not kept: the next use tries again.
    file.catch(() => tokenFiles.delete(path));
    tokenFiles.set(path, file);
  }
  return file;
}

/** The name of a profile's token file in its state directory. */
export const TOKEN_FILE = 'tokens.db';

interface Target {
  id: string;
  company: CompanyRecord | undefined;
}

interface Session {
  settings: Settings;
  auth: Authorizations;
  cache: TokenCache;
  target(flag?: string): Target;
  issue(target: Target, scope: string, force: boolean): Promise<IssuedToken>;
  slotOf(target: Target, scope: string): string;
}

async function openSession(f: Factory): Promise<Session> {
  await refuseEmptyCredentials(f);
  const settings = await f.settings();
  const profile = settings.profile.value;
  const config = await f.config();
  const secrets = await authSecrets(f, settings).catch((error: unknown) => {
    throw noCredentialsWithoutStore(f, error);
  });
  const auth = readAuthorizations(config, profile);
  // What "no Grant" says when the client came from SVC_CLIENT_ID (worked out only then: it may read the store).
  const noGrant = knownIds(auth).length === 0 ? await missingFromEnvironment(f, settings, secrets) : undefined;
  const cache = profileTokenCache(f, secrets, profile);
  // Only a token request needs the client secret: a cache hit never reads it.
  let client: Promise<ClientCredentials> | undefined;
  const credentials = () => (client ??= clientCredentials(f, settings, secrets));
  const slotOf = (target: Target, scope: string) => (target.company ? CODE_FLOW_SLOT : scope);

  return {
    settings,
    auth,
    cache,
    slotOf,
    target(flag) {
      if (flag === undefined && noGrant !== undefined) throw noGrant;
      const id = chooseGrant(auth, settings, flag);
      return { id, company: authIndex(auth).companies.get(id) };
    },
    async issue(target, scope, force) {
      const { id, company } = target;
      const fetch = company
        ? async () => {
            const record = await refreshCompanyTokens(await f.api(), await credentials(), secrets, id).catch(async (error: unknown) => {
              // A refresh token refused for good: its access token goes with it.
              if (error instanceof AuthError && error.cause instanceof ApiError && error.cause.code === 'invalid_grant') await cache.forget(id);
              throw error;
            });
            await updateCompanyExpiry(config, profile, record);
            return cachedFromRecord(record, company.scope);
          }
        : async () => {
            try {
              // A fan-out's report names each failed Grant's company already (and groups equal messages).
              const company = f.inFanOut ? undefined : authIndex(auth).grants.get(id)?.company_legal_name;
              return await requestGrantToken(await f.api(), await credentials(), id, scope, f.clock, company);
            } catch (error) {
              throw explainRefusedClient(f, await explainRefusedGrant(f, error, id, authIndex(auth).grants.get(id), settings));
            }
          };
      const token = await cache.acquire({ id, scope: slotOf(target, scope), force, fetch });
      return { ...token, grant_id: id };
    },
  };
}

/** An invalid_grant from a local sandbox that forgot the Grant gets the restart hint. */
async function explainRefusedGrant(f: Factory, error: unknown, grantId: string, grant: Grant | undefined, settings: Settings): Promise<unknown> {
  if (!(error instanceof AuthError) || !(error.cause instanceof ApiError) || error.cause.code !== 'invalid_grant') return error;
  // A Grant no login here recorded, handed in by a CI job: that variable is what to check.
  if (grant === undefined && settings.grant?.source === 'env' && settings.grant.value === grantId) {
    return new AuthError(`the service refused Grant ${grantId} in SVC_GRANT_ID: no Grant of this client, revoked, or one a sandbox lost when it restarted (invalid_grant)`, {
      hint: 'set SVC_GRANT_ID to a Grant of this client (`svc grants list` where it is logged in), or unset it to use the profile\'s own; against a sandbox started with --auto-approve, `svc sandbox login`',
      cause: error.cause,
    });
  }
  // A Grant no login here recorded (`--grant ID`, the profile's `grant`): nothing says when it
  // was known, so no restart can be told from a Grant that never existed or was revoked.
  if (grant === undefined) return unknownGrant(grantId, settings, error.cause);
  const savedAt = grant.saved_at;
  if (typeof savedAt !== 'string') return error;
  // Loaded only on this failure: no command pays for it otherwise.
  const { sandboxRestartHint } = await import('./sandbox-restart.js');
  const restarted = await sandboxRestartHint(f, grantId, savedAt);
  if (restarted !== undefined) return new AuthError(restarted.message, { hint: restarted.hint, cause: error.cause });
  // Revoked: a new approval brings a new Grant; on a local sandbox the login of one step does.
  if (!isLoopbackHost(hostOf(settings.baseUrl.value))) return error;
  const profile = settings.profile.source === 'default' ? '' : ` --profile ${settings.profile.value}`;
  return new AuthError(error.message, { hint: `log in again for a new Grant: \`svc sandbox login${profile}\` (a sandbox started with --auto-approve), or \`svc auth login${profile}\``, cause: error.cause });
}

/** invalid_grant for a Grant the profile never recorded: only what is known, and hints that work. */
function unknownGrant(grantId: string, settings: Settings, cause: ApiError): AuthError {
  const sandbox = isLoopbackHost(hostOf(settings.baseUrl.value));
  const profile = settings.profile.source === 'default' ? '' : ` --profile ${settings.profile.value}`;
  return new AuthError(
    `this client has no Grant ${grantId}: it never existed, was revoked${sandbox ? ', or the sandbox was restarted or reset since it was approved' : ''} (invalid_grant)`,
    {
      hint: [
        `\`svc grants list${profile}\` shows the Grants this profile has`,
        sandbox
          ? `after a sandbox restart or reset, log in again: \`svc sandbox login${profile}\` (a sandbox started with --auto-approve), or \`svc auth login${profile}\``
          : `a company approved since: \`svc auth login${profile}\``,
      ].join('; '),
      cause,
    },
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/**
 * An invalid_client while the secret comes from SVC_CLIENT_SECRET: that variable is what to
 * fix, since a secret stored with `svc auth set-secret` is not read while it is set.
 */
function explainRefusedClient(f: Factory, error: unknown): unknown {
  if (!(error instanceof AuthError) || !(error.cause instanceof ApiError) || error.cause.code !== 'invalid_client') return error;
  if ((f.env.SVC_CLIENT_SECRET ?? '') === '') return error;
  const id = (f.env.SVC_CLIENT_ID ?? '') === '' ? 'the client ID' : 'the client ID in SVC_CLIENT_ID';
  return new AuthError(`the service refused ${id} or the client secret in SVC_CLIENT_SECRET (invalid_client)`, {
    hint: 'check SVC_CLIENT_SECRET (and the client ID) in the job\'s secrets; a secret stored on this machine is not used while SVC_CLIENT_SECRET is set',
    cause: error.cause,
  });
}

/** SVC_TOKEN, when it hands in a token: what every command sends instead of a token of its own. */
export function handedInToken(f: Factory): string | undefined {
  const handedIn = f.env.SVC_TOKEN;
  return handedIn === undefined || handedIn === '' ? undefined : handedIn;
}

/** The service refused SVC_TOKEN: a new one is what helps, not a login here. */
export function refusedHandedInToken(): AuthError {
  return new AuthError('the service refused the access token in SVC_TOKEN (expired, revoked or not a token)', {
    hint: 'set SVC_TOKEN to a new token (`svc token get` where svc is logged in), or unset it to use this profile\'s own credentials',
  });
}

/** A token source for the ApiClient: after a 401 it drops that token, so the retry gets a new one. */
export async function tokenSourceFor(f: Factory, want: TokenFor = {}): Promise<TokenSource & { grantId?: string }> {
  const handedIn = handedInToken(f);
  if (handedIn !== undefined) {
    // CI hands in a token (docs/interface-decisions.md#credentials-from-the-environment SVC_TOKEN): used as it is, never stored, never renewed; a
    // 401 means that token is no good, which no login here would change.
    return {
      token: async () => handedIn,
      invalidate: async () => {
        throw refusedHandedInToken();
      },
    };
  }
  const session = await openSession(f);
  const target = session.target(want.grant);
  const scope = want.scope ?? DEFAULT_SCOPE;
  let last: string | undefined;
  return {
    grantId: target.id,
    async token() {
      last = (await session.issue(target, scope, false)).access_token;
      return last;
    },
    async invalidate() {
      if (last !== undefined) await session.cache.discard(target.id, session.slotOf(target, scope), last);
    },
  };
}

/** The token `svc token get` prints; `force` asks the service even when the cached one is good. */
export async function issueToken(f: Factory, want: TokenFor & { force?: boolean }): Promise<IssuedToken> {
  const session = await openSession(f);
  return session.issue(session.target(want.grant), want.scope ?? DEFAULT_SCOPE, Boolean(want.force));
}

/** The cached token of the chosen Grant (the scope's, else any), without asking the service. */
export async function cachedToken(f: Factory, want: TokenFor = {}): Promise<IssuedToken> {
  const session = await openSession(f);
  const target = session.target(want.grant);
  const tokens = await session.cache.read(target.id);
  const token = tokens[session.slotOf(target, want.scope ?? DEFAULT_SCOPE)] ?? Object.values(tokens)[0];
  // `svc token get` prints a token whether or not it can cache it (no secret store: not).
  if (!token) throw new AuthError(`no cached token for Grant ${target.id}`, { hint: 'check the one `svc token get` prints: `svc token get | svc token validate -`' });
  return { ...token, grant_id: target.id };
}

/** Drops a cached token the service refused, so that the next `svc token get` asks for a new one. */
export async function discardCachedToken(f: Factory, token: IssuedToken): Promise<void> {
  const session = await openSession(f);
  const tokens = await session.cache.read(token.grant_id);
  for (const [slot, cached] of Object.entries(tokens)) {
    if (cached.access_token === token.access_token) await session.cache.discard(token.grant_id, slot, token.access_token);
  }
}

/** Every (Grant, scope) with a cached token, SVC_GRANT_ID's included, and every code-flow company. */
export async function cachedSlots(f: Factory): Promise<Required<TokenFor>[]> {
  const session = await openSession(f);
  const { auth, settings } = session;
  const companies = new Set(auth.companies.map((c) => c.merchant_id));
  const grants = new Set(auth.grants.map((g) => g.grant_id));
  if (settings.grant && !companies.has(settings.grant.value)) grants.add(settings.grant.value);
  const slots: Required<TokenFor>[] = [];
  for (const grant of grants) {
    for (const scope of Object.keys(await session.cache.read(grant))) slots.push({ grant, scope });
  }
  for (const company of auth.companies) slots.push({ grant: company.merchant_id, scope: company.scope });
  return slots;
}
