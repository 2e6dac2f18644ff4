// The OAuth exchanges of docs/interface-decisions.md#oauth-flows and docs/interface-decisions.md#oauth-details, as the CLI performs them:
// the browser authorization with PKCE and state, the two ways of redeeming its code, the
// client-credentials token per Grant, and the rotating refresh of the code flow. Bodies
// are JSON; the ApiClient's --debug trace redacts every secret member of them.
import type { ApiClient } from '../api/client.js';
import type { Clock } from '../clock.js';
import {
  AccessTokenResponse,
  AuthorizationCodeExchangeResponse,
  TokenRecord,
  TokenRecords,
  type AuthorizationCodeExchangeRequest,
  type AuthorizationCodeTokenRequest,
  type ClientCredentialsTokenRequest,
  type Grant,
  type RefreshRequest,
} from '../contract/oauth.js';
import { ApiError, AuthError } from '../errors.js';
import { redactUrl } from '../io/redact.js';
import { note, type IOStreams } from '../io/streams.js';
import { withSpinner } from '../io/spinner.js';
import type { SecretStore } from '../secrets/store.js';
import type { OpenUrl } from './browser.js';
import type { ClientCredentials } from './credentials.js';
import { listenForCallback, loopbackRedirect } from './loopback.js';
import { createPkce } from './pkce.js';
import { createState } from './state.js';
import { tokenKey, type CachedToken } from './token-cache.js';

export function refreshTokenKey(merchantId: string): string {
  return `refresh-token/${merchantId}`;
}

export interface AuthorizeRequest {
  io: IOStreams;
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  scopes: string;
  timeoutMs: number;
  /** Shows the URL to the approver; without one the URL is only printed. */
  openUrl: OpenUrl | undefined;
  /** openUrl approves by itself (an --auto-approve sandbox): nobody is asked to open anything. */
  automatic?: boolean;
}

export interface Authorization {
  code: string;
  verifier: string;
  /** As sent in the authorization request, which the code-flow token request repeats. */
  redirectUri: string;
}

export function authorizeUrl(
  baseUrl: string,
  p: { clientId: string; redirectUri: string; scopes: string; challenge: string; state: string },
): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: p.clientId,
    redirect_uri: p.redirectUri,
    scope: p.scopes,
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
    state: p.state,
  });
  return `${baseUrl.replace(/\/+$/, '')}/oauth2/authorize?${query.toString()}`;
}

/**
 * An --auto-approve sandbox (`svc sandbox login`): the code is read from its redirect, with
 * no listener (src/auth/auto-approve.ts), so the redirect URI's port is never bound.
 */
export async function authorizeAutomatically(
  req: Pick<AuthorizeRequest, 'io' | 'baseUrl' | 'clientId' | 'redirectUri' | 'scopes'> & { clientAt: (origin: string) => Promise<ApiClient> },
): Promise<Authorization> {
  loopbackRedirect(req.redirectUri);
  const pkce = createPkce();
  const state = createState();
  const url = authorizeUrl(req.baseUrl, { clientId: req.clientId, redirectUri: req.redirectUri, scopes: req.scopes, challenge: pkce.challenge, state: state.value });
  const { codeFromAutoApproval } = await import('./auto-approve.js');
  const code = await codeFromAutoApproval(url, req.redirectUri, state, req.clientAt);
  // Said once it happened: a sandbox without --auto-approve refuses (exit 2) without this line.
  // Nobody opens it (it was approved already): shown with its state redacted, as --debug shows it.
  note(req.io, 'The sandbox approved this at once (--auto-approve):');
  note(req.io, redactUrl(url));
  return { code, verifier: pkce.verifier, redirectUri: req.redirectUri };
}

/**
 * Listens on the loopback redirect URI, shows the authorization URL, and returns the code
 * of the first callback that carries this login's state. The listener is open before the
 * URL is shown and closed when this returns or fails.
 */
export async function authorizeInBrowser(req: AuthorizeRequest): Promise<Authorization> {
  const pkce = createPkce();
  const state = createState();
  const listener = await listenForCallback({
    redirectUri: req.redirectUri,
    state,
    timeoutMs: req.timeoutMs,
    onRefused: (reason) => note(req.io, `ignored ${reason}; still waiting`),
  });
  try {
    const url = authorizeUrl(req.baseUrl, {
      clientId: req.clientId,
      redirectUri: listener.redirectUri,
      scopes: req.scopes,
      challenge: pkce.challenge,
      state: state.value,
    });
    note(req.io, req.automatic ? 'The sandbox approves this at once (--auto-approve):' : 'To approve svc, open this URL in a browser:');
    // On a line of its own, so a terminal makes it clickable and a script can pick it up.
    note(req.io, url);
    // The answer may come (or fail) while the browser is being opened: awaited below.
    listener.code.catch(() => undefined);
    // Said only when a browser did start (xdg-open can fail without a word).
    if ((await req.openUrl?.(url)) === true && !req.automatic) note(req.io, 'opened it in your browser');
    const seconds = Math.round(req.timeoutMs / 1000);
    const code = await withSpinner(req.io, `Waiting for the approval (up to ${seconds} s)`, () => listener.code);
    return { code, verifier: pkce.verifier, redirectUri: listener.redirectUri };
  } finally {
    await listener.close();
  }
}

// The two codes a token endpoint answers that the user can act on, as AuthError (exit 4);
// everything else stays the ApiError it is.
async function tokenEndpoint<T>(call: () => Promise<T>, invalidGrant: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'invalid_client') {
      throw new AuthError('the service refused the client ID or client secret (invalid_client)', {
        hint: 'check `svc config get client-id`, and store the secret again with `svc auth set-secret`',
        cause: error,
      });
    }
    if (error.code === 'invalid_grant') throw new AuthError(`${invalidGrant} (invalid_grant)`, { hint: 'run `svc auth login`', cause: error });
    throw error;
  }
}

/** Grant flow: the code buys the Grants of the companies the administrator approved. */
export async function redeemForGrants(api: ApiClient, client: ClientCredentials, auth: Authorization): Promise<Grant[]> {
  const body: AuthorizationCodeExchangeRequest = {
    code: auth.code,
    client_id: client.clientId,
    client_secret: client.clientSecret,
    code_verifier: auth.verifier,
  };
  const answer = await tokenEndpoint(
    () => api.request({ method: 'POST', path: '/oauth2/authorization-code/exchange', body, schema: AuthorizationCodeExchangeResponse }),
    'the authorization code was refused',
  );
  return answer.grants;
}

/** Code flow: the code buys an access and a refresh token per company. */
export async function redeemForTokens(api: ApiClient, client: ClientCredentials, auth: Authorization): Promise<TokenRecord[]> {
  const body: AuthorizationCodeTokenRequest = {
    grant_type: 'authorization_code',
    code: auth.code,
    client_id: client.clientId,
    client_secret: client.clientSecret,
    redirect_uri: auth.redirectUri,
    code_verifier: auth.verifier,
  };
  return tokenEndpoint(
    () => api.request({ method: 'POST', path: '/oauth2/token', body, schema: TokenRecords }),
    'the authorization code was refused',
  );
}

/**
 * Grant flow: a 900-second token for one Grant and scope; there is no refresh token.
 * `company` (its name) is said beside the Grant ID when the service refuses it.
 */
export async function requestGrantToken(
  api: ApiClient,
  client: ClientCredentials,
  grantId: string,
  scope: string,
  clock: Clock,
  company?: string,
): Promise<CachedToken> {
  const body: ClientCredentialsTokenRequest = {
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    grant_id: grantId,
    scope,
  };
  const requestedAt = clock.now();
  const answer = await tokenEndpoint(
    // Retried like a read: asking for a token again only mints another, and a single 503 or
    // reset must not fail the command that needed it (every 15 minutes, when it expires).
    () => api.request({ method: 'POST', path: '/oauth2/token', body, schema: AccessTokenResponse, retry: true }),
    `the service refused Grant ${grantId}${company === undefined ? '' : ` (${company})`}: it was revoked, or belongs to another client`,
  );
  return {
    access_token: answer.access_token,
    token_type: answer.token_type,
    // Counted from before the request, so network time only shortens what we assume.
    expires_at: new Date(requestedAt + answer.expires_in * 1000).toISOString(),
    scope: answer.scope || scope,
  };
}

export function cachedFromRecord(record: TokenRecord, scope: string): CachedToken {
  return { access_token: record.access_token, token_type: record.token_type, expires_at: record.expires_at, scope };
}

/** Code flow, at login: the refresh tokens go to the store before anything else happens. */
export async function storeRefreshTokens(secrets: SecretStore, records: readonly TokenRecord[]): Promise<void> {
  for (const record of records) await secrets.set(refreshTokenKey(record.merchant_id), record.refresh_token);
}

/**
 * Code flow: exchanges the company's refresh token. The service rotates it, so the new one
 * is stored before the new access token is handed out. A refused one is deleted, with the
 * access token of its family: presenting it again would only get the family revoked.
 */
export async function refreshCompanyTokens(
  api: ApiClient,
  client: ClientCredentials,
  secrets: SecretStore,
  merchantId: string,
): Promise<TokenRecord> {
  const key = refreshTokenKey(merchantId);
  const refreshToken = await secrets.get(key);
  if (refreshToken === null) {
    throw new AuthError(`no refresh token for company ${merchantId}`, { hint: 'run `svc auth login --flow code`' });
  }
  const body: RefreshRequest = {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.clientId,
    client_secret: client.clientSecret,
  };
  let record: TokenRecord;
  try {
    record = await tokenEndpoint(
      () => api.request({ method: 'POST', path: '/oauth2/refresh', body, schema: TokenRecord }),
      `the refresh token of company ${merchantId} is no longer valid`,
    );
  } catch (error) {
    if (error instanceof AuthError && error.cause instanceof ApiError && error.cause.code === 'invalid_grant') {
      await secrets.delete(key);
      await secrets.delete(tokenKey(merchantId));
    }
    throw error;
  }
  await secrets.set(key, record.refresh_token);
  return record;
}
