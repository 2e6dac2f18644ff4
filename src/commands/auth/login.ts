// `svc auth login`: the browser authorization (PKCE, state, loopback callback) and the
// redemption of its code, in the grant flow (Grants, then client-credentials tokens) or the
// code flow (access and refresh tokens per company). What the service returns is kept:
// secrets in the secret store, metadata in the profile.
import { DEFAULT_REDIRECT_URI, DEFAULT_SCOPES } from '../../config/defaults.js';
import type { Settings } from '../../config/settings.js';
import type { GrantRecord } from '../../config/store.js';
import { ApiError, UsageError } from '../../errors.js';
import type { ApiClient } from '../../api/client.js';
import type { Factory } from '../../factory.js';
import { writeList } from '../../io/output.js';
import { AUTHORIZATION_COLUMNS, authorizationRows } from '../grants/rows.js';
import { canPrompt, note } from '../../io/streams.js';
import type { SecretStore } from '../../secrets/store.js';
import { personPresent, systemBrowser, type OpenUrl } from '../../auth/browser.js';
import {
  authSecrets,
  CLIENT_SECRET_KEY,
  clientIdOf,
  knownClientSecret,
  readSecretFromStdinOrPrompt,
  type ClientCredentials,
} from '../../auth/credentials.js';
import {
  authorizeAutomatically,
  authorizeInBrowser,
  cachedFromRecord,
  redeemForGrants,
  redeemForTokens,
  storeRefreshTokens,
} from '../../auth/flows.js';
import { loopbackRedirect } from '../../auth/loopback.js';
import { parseDurationSeconds } from '../../io/duration.js';
import { companyRecord, saveCompanies, saveGrants, type CompanyRecord } from '../../auth/profile.js';
import { CODE_FLOW_SLOT, profileTokenCache } from '../../auth/session.js';

export interface LoginOptions {
  flow: string;
  scopes?: string | undefined;
  clientId?: string | undefined;
  clientSecretStdin?: boolean | undefined;
  /** false with --no-browser. */
  browser: boolean;
  port?: string | undefined;
  /** Seconds. */
  timeout: string;
}

export interface LoginDeps {
  /**
   * Plays the browser instead of the system one, whether or not a person is present (the
   * demo GETs the URL from an auto-approving sandbox and follows its redirect).
   */
  openUrl?: OpenUrl;
  /** An --auto-approve sandbox (`svc sandbox login`): its redirect is read without listening anywhere. */
  autoApprove?: boolean;
}

export interface LoginResult {
  profile: string;
  flow: 'grant' | 'code';
  grants: GrantRecord[];
  companies: CompanyRecord[];
  /** The profile's default Grant afterwards. */
  grant: string | undefined;
}

export async function run(opts: LoginOptions, f: Factory): Promise<void> {
  await login(opts, f, f.openUrl ? { openUrl: f.openUrl } : {});
}

export async function login(opts: LoginOptions, f: Factory, deps: LoginDeps = {}): Promise<LoginResult> {
  const flow = parseFlow(opts.flow);
  const timeoutMs = parseTimeout(opts.timeout) * 1000;
  const settings = await f.settings();
  const profile = settings.profile.value;
  const clientId = clientIdOf(settings, opts.clientId);
  const scopes = (opts.scopes ?? settings.scopes?.value ?? DEFAULT_SCOPES).trim().split(/\s+/).join(' ');
  const redirectUri = withPort(settings.redirectUri?.value ?? DEFAULT_REDIRECT_URI, opts.port);

  // Everything that can fail without the service fails before anyone approves anything.
  const { secret, secrets, typed } = await clientSecret(f, opts, settings, clientId, flow);
  const client: ClientCredentials = { clientId, clientSecret: secret };
  const api = await f.api();
  const present = personPresent(f.io, f.env);
  if (opts.browser && deps.openUrl === undefined && !deps.autoApprove && !present) {
    // No terminal or CI: nobody would see a browser, and the command would wait its whole timeout.
    throw new UsageError('nobody is here to approve the login in a browser (no terminal, or CI)', {
      hint: 'against a sandbox started with --auto-approve: `svc sandbox login`; to approve elsewhere: `svc auth login --no-browser`; in CI without a login: SVC_API_KEY, or SVC_CLIENT_ID + SVC_CLIENT_SECRET + SVC_GRANT_ID',
    });
  }
  await checkServiceAnswers(api);
  const openUrl = opts.browser ? (deps.openUrl ?? (present ? systemBrowser(f.io) : undefined)) : undefined;
  const authorization = deps.autoApprove
    ? await authorizeAutomatically({ io: f.io, baseUrl: api.baseUrl, clientId, redirectUri, scopes, clientAt: f.apiAt })
    : await authorizeInBrowser({ io: f.io, baseUrl: api.baseUrl, clientId, redirectUri, scopes, timeoutMs, openUrl, automatic: opts.browser && deps.openUrl !== undefined });

  const config = await f.config();
  const cache = profileTokenCache(f, secrets, profile);
  let result: LoginResult;
  if (flow === 'grant') {
    const grants = await redeemForGrants(api, client, authorization);
    if (typed) await secrets.set(CLIENT_SECRET_KEY, secret);
    // A new approval may change a Grant's scopes or stores: its old tokens may not have them.
    for (const grant of grants) await cache.forget(grant.grant_id);
    const { grant, superseded } = await saveGrants(config, profile, grants, new Date(f.clock.now()).toISOString());
    for (const id of superseded) await cache.forget(id);
    result = { profile, flow, grants, companies: [], grant };
  } else {
    const records = await redeemForTokens(api, client, authorization);
    await storeRefreshTokens(secrets, records);
    if (typed) await secrets.set(CLIENT_SECRET_KEY, secret);
    for (const record of records) await cache.put(record.merchant_id, CODE_FLOW_SLOT, cachedFromRecord(record, scopes));
    const companies = records.map((r) => companyRecord(r, scopes));
    const grant = await saveCompanies(config, profile, companies);
    result = { profile, flow, grants: [], companies, grant };
  }
  // The tokens of these Grants can only be requested with the same client from now on.
  if (opts.clientId !== undefined) await config.updateProfile(profile, (p) => ({ ...p, clientId }));
  await report(f, result);
  return result;
}

/**
 * Before anyone is asked to approve anything: a service that does not answer fails the login
 * at once (exit 8) rather than after the approval's timeout. Any HTTP answer will do.
 */
async function checkServiceAnswers(api: ApiClient): Promise<void> {
  try {
    // With a token that is none (the answer: false), since the operation requires a bearer
    // (a proxy that checks requests against the OpenAPI document, Prism, refuses it without).
    await api.requestRaw({ method: 'GET', path: '/oauth2/token/validate', auth: 'svc-checks-that-the-service-answers', retry: false });
  } catch (error) {
    if (error instanceof ApiError) return;
    throw error;
  }
}

/**
 * The client secret and the store it lives in. One that was typed or piped in is stored
 * after the service accepted it, so it needs a real store; one that needs nobody (the
 * environment, the store itself, the built-in sandbox default) can do without in the grant
 * flow, while the code flow always needs a store for its refresh tokens.
 */
async function clientSecret(
  f: Factory,
  opts: LoginOptions,
  settings: Settings,
  clientId: string,
  flow: 'grant' | 'code',
): Promise<{ secret: string; secrets: SecretStore; typed: boolean }> {
  const profile = settings.profile.value;
  const stdinHint = 'pipe it in: printf %s "$SECRET" | svc auth login --client-secret-stdin';
  if (opts.clientSecretStdin) {
    const secrets = await f.secrets();
    // Piped, or typed at a hidden prompt when stdin is a terminal: never echoed.
    const secret = await readSecretFromStdinOrPrompt(f, { what: 'the client secret', message: `Client secret for ${clientId}:`, flag: '--client-secret-stdin', hint: stdinHint });
    return { secret, secrets, typed: true };
  }
  const secrets = flow === 'code' ? await f.secrets() : await authSecrets(f, settings);
  const known = await knownClientSecret(f, profile, clientId, secrets);
  if (known !== undefined) return { secret: known, secrets, typed: false };
  if (!canPrompt(f.io)) {
    throw new UsageError(`no client secret for profile "${profile}" and prompts are off`, {
      hint: 'pass --client-secret-stdin, set SVC_CLIENT_SECRET, or run `svc auth set-secret`',
    });
  }
  const typedSecret = await f.prompter().password({ message: `Client secret of ${clientId}:`, flag: '--client-secret-stdin' });
  if (typedSecret.trim() === '') throw new UsageError('the client secret is empty', { hint: stdinHint });
  return { secret: typedSecret, secrets, typed: true };
}

function parseFlow(value: string): 'grant' | 'code' {
  if (value === 'grant' || value === 'code') return value;
  throw new UsageError(`--flow: "${value}" is not a flow`, { hint: 'use --flow grant (the default) or --flow code' });
}

/** The longest wait for an approval: an hour (a person is at the browser, or nobody is). */
const MAX_TIMEOUT_SECONDS = 3600;

function parseTimeout(value: string): number {
  return parseDurationSeconds(value, { name: '--timeout', minSeconds: 1, maxSeconds: MAX_TIMEOUT_SECONDS });
}

/** The redirect URI with --port applied; 0 takes any free port (for services that allow it). */
function withPort(redirectUri: string, port: string | undefined): string {
  const url = loopbackRedirect(redirectUri);
  if (port === undefined) return url.href;
  const n = Number(port);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port: "${port}" is not a port number`);
  url.port = String(n);
  return url.href;
}

async function report(f: Factory, result: LoginResult): Promise<void> {
  const count = result.flow === 'grant' ? result.grants.length : result.companies.length;
  const what = result.flow === 'grant' ? ['Grant', 'Grants'] : ['company', 'companies'];
  const chosen = result.grant ? `; default ${result.grant}` : '';
  note(f.io, `logged in to profile "${result.profile}": ${count} ${what[count === 1 ? 0 : 1]}${chosen}`);
  // A platform's login stores thousands: a terminal gets the first ones and how to see them all;
  // a pipe and --json get every one.
  await writeList(f.io, authorizationRows(result.grants, result.companies), AUTHORIZATION_COLUMNS, result, { maxRows: LOGIN_ROWS_SHOWN, moreHow: 'every one: `svc grants list`' });
}

/** Rows of a login's table on a terminal. */
const LOGIN_ROWS_SHOWN = 20;
