// The one check in front of every protected route (docs/interface-decisions.md#authentication: every
// protected operation re-validates the live Grant, scope, company, store ownership, store
// restriction and active status). Nothing is cached between calls: a Grant revoked, or a
// store deactivated, a moment ago is refused now.
import { SCOPES } from '../contract/oauth.js';
import type { Sandbox } from './context.js';
import {
  createGrant,
  findAccessToken,
  findGrant,
  opaqueToken,
  permittedStores,
  storeAccessToken,
  type AccessTokenRecord,
  type GrantRecord,
} from './grants.js';
import { HttpError, type RouteRequest } from './router.js';

/** Grant-based (`client_credentials`) access tokens live 900 s (docs/interface-decisions.md#limits). */
export const CLIENT_CREDENTIALS_TOKEN_TTL_SECONDS = 900;

export interface Caller {
  via: 'token' | 'api-key';
  companyId: string;
  clientId: string | null;
  grantId: string | null;
  scopes: readonly string[];
  /** null = all active stores (ALL_STORES) */
  storeIds: readonly string[] | null;
}

export interface Need {
  scope: string;
  /**
   * For routes whose requests may name a store: pass the key even when the request has no
   * store (`{ storeId: body.storeId }`), because a SELECTED_STORES Grant then requires one.
   */
  storeId?: string | undefined;
  /** Accept a company's `X-API-Key` too; such a caller holds every scope and store of its company. */
  apiKey?: boolean;
}

/**
 * Re-checks on every call: token known and unexpired (sandbox clock), live Grant (not
 * revoked), scope, company and store restriction, store active. Throws HttpError: 401
 * invalid_token, 403 insufficient_scope, 403 grant_not_permitting. With `apiKey: true`, an
 * `X-API-Key` header of a company is accepted too (scopes: all).
 */
export function authorize(sandbox: Sandbox, req: RouteRequest<any, any, any>, need: Need): Caller {
  const bearer = bearerToken(req);
  const apiKey = headerValue(req, 'x-api-key');
  if (bearer === undefined && apiKey !== undefined && need.apiKey) return apiKeyCaller(sandbox, apiKey, need);
  if (bearer === undefined) throw invalidToken('an Authorization: Bearer header is required');

  const live = liveToken(sandbox, bearer);
  if (typeof live === 'string') throw invalidToken(live);
  const { token, grant } = live;

  // A Grant narrowed after the token was issued narrows the token with it.
  const scopes = token.scopes.filter((s) => grant.scopes.includes(s));
  if (!scopes.includes(need.scope)) {
    throw new HttpError('insufficient_scope', `this operation needs the scope ${need.scope}`, {
      headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${need.scope}"` },
    });
  }
  checkStore(sandbox, grant, need);
  return {
    via: 'token',
    companyId: grant.companyId,
    clientId: grant.clientId,
    grantId: grant.grantId,
    scopes,
    storeIds: grant.storeIds === null ? null : permittedStores(sandbox, grant).map((s) => s.id),
  };
}

/** `GET /oauth2/token/validate`: what `authorize` would make of the token, scope aside. */
export function isLiveToken(sandbox: Sandbox, accessToken: string): boolean {
  return typeof liveToken(sandbox, accessToken) !== 'string';
}

/** Issues an opaque access token for a Grant (used by POST /oauth2/token and by other route groups' tests). */
export function issueAccessToken(
  sandbox: Sandbox,
  grant: { grantId: string },
  scope: string,
  ttlSeconds: number = CLIENT_CREDENTIALS_TOKEN_TTL_SECONDS,
): { access_token: string; expires_in: number } {
  const accessToken = opaqueToken();
  storeAccessToken(sandbox, accessToken, {
    grantId: grant.grantId,
    scopes: scope.split(' ').filter((s) => s !== ''),
    expiresAt: sandbox.clock.now() + ttlSeconds * 1000,
    revoked: false,
  });
  return { access_token: accessToken, expires_in: ttlSeconds };
}

/** Test helper: creates an active Grant for the fixture's approved client and a company, returns a bearer token with those scopes. */
export function grantAndTokenForTests(
  sandbox: Sandbox,
  opts: { companyId: string; scopes: readonly string[]; storeIds?: readonly string[] },
): { token: string; grantId: string } {
  const client = [...sandbox.state.clientApplications.values()].find((app) => app.status === 'Approved');
  if (!client) throw new Error('the fixture has no Approved client application');
  const grant = createGrant(sandbox, {
    clientId: client.id,
    companyId: opts.companyId,
    scopes: [...opts.scopes],
    storeIds: opts.storeIds ? [...opts.storeIds] : null,
  });
  return { token: issueAccessToken(sandbox, grant, opts.scopes.join(' ')).access_token, grantId: grant.grantId };
}

/** The token and its Grant, or why they do not authorize anything. */
function liveToken(sandbox: Sandbox, accessToken: string): { token: AccessTokenRecord; grant: GrantRecord } | string {
  const token = findAccessToken(sandbox, accessToken);
  if (!token || token.revoked) return 'the access token is unknown or revoked';
  if (sandbox.clock.now() >= token.expiresAt) return 'the access token has expired';
  const grant = findGrant(sandbox, token.grantId);
  if (!grant || grant.revokedAt !== null) return 'the Grant of this access token has been revoked';
  if (!sandbox.state.companies.has(grant.companyId)) return 'the company of this Grant no longer exists';
  return { token, grant };
}

function apiKeyCaller(sandbox: Sandbox, apiKey: string, need: Need): Caller {
  const companyId = sandbox.state.apiKeys.get(apiKey);
  if (companyId === undefined) throw invalidToken('the API key is unknown');
  if ('storeId' in need && need.storeId !== undefined) {
    const store = sandbox.state.stores.get(need.storeId);
    if (!store || store.companyId !== companyId || !store.isActive)
      throw notPermitting(`store ${need.storeId} is not an active store of this company`);
  }
  return { via: 'api-key', companyId, clientId: null, grantId: null, scopes: SCOPES, storeIds: null };
}

function checkStore(sandbox: Sandbox, grant: GrantRecord, need: Need): void {
  if (!('storeId' in need)) return;
  if (need.storeId === undefined) {
    if (grant.storeIds !== null) throw notPermitting('this Grant is limited to selected stores: name one with storeId');
    return;
  }
  if (!permittedStores(sandbox, grant).some((s) => s.id === need.storeId))
    throw notPermitting(`store ${need.storeId} is not an active store this Grant permits`);
}

/** The token of an `Authorization: Bearer` header; undefined without one or when malformed. */
export function presentedBearer(req: RouteRequest<any, any, any>): string | undefined {
  const header = headerValue(req, 'authorization');
  return header === undefined ? undefined : /^Bearer +(\S+)\s*$/i.exec(header)?.[1];
}

function bearerToken(req: RouteRequest<any, any, any>): string | undefined {
  const token = presentedBearer(req);
  if (token === undefined && headerValue(req, 'authorization') !== undefined)
    throw invalidToken('the Authorization header must be "Bearer <token>"');
  return token;
}

function headerValue(req: RouteRequest<any, any, any>, name: string): string | undefined {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

function invalidToken(description: string): HttpError {
  return new HttpError('invalid_token', description, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
}

function notPermitting(description: string): HttpError {
  return new HttpError('grant_not_permitting', description);
}
