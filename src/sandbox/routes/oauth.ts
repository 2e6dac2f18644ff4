// The token side of docs/interface-decisions.md#oauth-flows (docs/interface-decisions.md#oauth-details): redeeming codes for Grants or for
// token records, client-credentials tokens per Grant, the rotating refresh of the code
// flow with reuse detection (RFC 9700 §4.14.2), token validation and Grant details.
import { createHash, timingSafeEqual } from 'node:crypto';
import { NonEmptyString } from '../../contract/common.js';
import {
  AuthorizationCodeExchangeRequest,
  RefreshRequest,
  TokenRequest,
  type ClientCredentialsTokenRequest,
  type TokenRecord,
} from '../../contract/oauth.js';
import { redeemCode } from '../authorization.js';
import type { Sandbox } from '../context.js';
import { findGrant, grantDetails, grantResource, opaqueToken, revokeAccessTokens, type GrantRecord } from '../grants.js';
import { authorize, isLiveToken, issueAccessToken, presentedBearer } from '../guard.js';
import { HttpError, json, type Router } from '../router.js';
import { defineSlice, type ClientApplication } from '../state.js';

export const CODE_FLOW_ACCESS_TTL_SECONDS = 60 * 60;
export const REFRESH_TTL_SECONDS = 30 * 24 * 60 * 60;

/** A missing verifier is the same `invalid_grant` as a wrong one, not a malformed body. */
const ExchangeBody = AuthorizationCodeExchangeRequest.extend({ code_verifier: NonEmptyString.optional() });

// A request must never choose a company independently of its Grant (docs/interface-decisions.md#authentication
// "Authentication" 6), so a client that tries is told rather than silently ignored.
const COMPANY_PARAMETERS = ['company_id', 'companyId', 'merchant_id', 'issuer_company_id', 'tax_id'];

/**
 * The refresh tokens issued from one code-flow redemption for one Grant. Only `current`
 * may be redeemed; any earlier one coming back means a copy leaked, and the family dies.
 */
interface TokenFamily {
  readonly grantId: string;
  readonly clientId: string;
  current: string;
  refreshExpiresAt: number;
  /** Every access token of the family, so that revoking it reaches them all. */
  readonly accessTokens: string[];
  revoked: boolean;
}

/** Every refresh token ever issued, retired ones included, to its family. */
const families = defineSlice('families', () => new Map<string, TokenFamily>());

export function register(router: Router, sandbox: Sandbox): void {
  router.post('/oauth2/authorization-code/exchange', { body: ExchangeBody }, (req) => {
    const client = authenticateClient(sandbox, req.body.client_id, req.body.client_secret);
    const grants = redeemCode(sandbox, { code: req.body.code, clientId: client.id, codeVerifier: req.body.code_verifier });
    return json(200, { grants: grants.map((g) => grantResource(sandbox, g)) });
  });

  router.post('/oauth2/token', { body: TokenRequest }, (req) => {
    const body = req.body;
    const client = authenticateClient(sandbox, body.client_id, body.client_secret);
    if (body.grant_type === 'client_credentials') return json(200, clientCredentialsToken(sandbox, client, body));
    const grants = redeemCode(sandbox, {
      code: body.code,
      clientId: client.id,
      codeVerifier: body.code_verifier,
      redirectUri: body.redirect_uri,
    });
    return json(200, grants.map((grant) => startFamily(sandbox, grant)));
  });

  router.post('/oauth2/refresh', { body: RefreshRequest }, (req) => {
    const client = authenticateClient(sandbox, req.body.client_id, req.body.client_secret);
    return json(200, rotate(sandbox, client, req.body.refresh_token));
  });

  // A token presented: 200 true or false (docs/interface-decisions.md#oauth-details). None at all: 401, as the bearer
  // security of the operation (its OpenAPI document) says.
  router.get('/oauth2/token/validate', (req) => {
    const token = presentedBearer(req);
    if (token === undefined) {
      throw new HttpError('invalid_token', 'an Authorization: Bearer header with the token to validate is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    return json(200, isLiveToken(sandbox, token));
  });

  router.get('/oauth2/grants/{grant_id}', (req) => {
    const caller = authorize(sandbox, req, { scope: 'read_stores' });
    if (caller.grantId !== req.params.grant_id)
      throw new HttpError('grant_not_permitting', 'this access token belongs to another Grant; use a token of the Grant you ask about');
    const grant = findGrant(sandbox, caller.grantId);
    if (!grant) throw new HttpError('not_found', 'no such Grant');
    return json(200, grantDetails(sandbox, grant));
  });
}

/** Client ID and secret; an unknown client, a wrong secret and an unapproved client look the same. */
function authenticateClient(sandbox: Sandbox, clientId: string, clientSecret: string): ClientApplication {
  const app = sandbox.state.clientApplications.get(clientId);
  const expected = app?.status === 'Approved' ? app.clientSecret : null;
  if (!app || expected === null || !secretsEqual(clientSecret, expected))
    throw new HttpError('invalid_client', 'the client ID or client secret is invalid');
  return app;
}

function secretsEqual(given: string, expected: string): boolean {
  // Digests have one length, so the comparison time says nothing about the secret's length.
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function clientCredentialsToken(sandbox: Sandbox, client: ClientApplication, body: ClientCredentialsTokenRequest) {
  const chosen = COMPANY_PARAMETERS.filter((name) => name in body);
  if (chosen.length > 0)
    throw new HttpError('invalid_request', `the company comes from the Grant; do not send ${chosen.join(', ')}`);
  const grant = findGrant(sandbox, body.grant_id);
  if (!grant || grant.clientId !== client.id || grant.revokedAt !== null)
    throw new HttpError('invalid_grant', 'the Grant is unknown, revoked, or belongs to another client');
  const scopes = [...new Set(body.scope.split(' ').filter((s) => s !== ''))];
  const outside = scopes.filter((s) => !grant.scopes.includes(s));
  if (scopes.length === 0 || outside.length > 0)
    throw new HttpError('invalid_scope', `not within the Grant's scopes (${grant.scopes.join(' ')}): ${outside.join(' ') || '(none requested)'}`);
  const scope = scopes.join(' ');
  return { ...issueAccessToken(sandbox, grant, scope), token_type: 'bearer', scope };
}

function startFamily(sandbox: Sandbox, grant: GrantRecord): TokenRecord {
  const family: TokenFamily = { grantId: grant.grantId, clientId: grant.clientId, current: '', refreshExpiresAt: 0, accessTokens: [], revoked: false };
  return renew(sandbox, family, grant);
}

function rotate(sandbox: Sandbox, client: ClientApplication, refreshToken: string): TokenRecord {
  const family = sandbox.state.slice(families).get(refreshToken);
  if (!family || family.clientId !== client.id || family.revoked)
    throw new HttpError('invalid_grant', 'the refresh token is unknown or revoked');
  if (refreshToken !== family.current) {
    family.revoked = true;
    revokeAccessTokens(sandbox, family.accessTokens);
    sandbox.log(`a rotated-out refresh token was presented: its token family (Grant ${family.grantId}) is revoked`);
    throw new HttpError('invalid_grant', 'the refresh token was already used; every token of its family is now revoked');
  }
  if (sandbox.clock.now() >= family.refreshExpiresAt) throw new HttpError('invalid_grant', 'the refresh token has expired');
  const grant = findGrant(sandbox, family.grantId);
  if (!grant || grant.revokedAt !== null) throw new HttpError('invalid_grant', 'the Grant of this refresh token has been revoked');
  // Replaced means replaced: the access token of the previous round stops working too.
  revokeAccessTokens(sandbox, family.accessTokens);
  return renew(sandbox, family, grant);
}

function renew(sandbox: Sandbox, family: TokenFamily, grant: GrantRecord): TokenRecord {
  const now = sandbox.clock.now();
  const access = issueAccessToken(sandbox, grant, grant.scopes.join(' '), CODE_FLOW_ACCESS_TTL_SECONDS);
  family.current = opaqueToken();
  family.refreshExpiresAt = now + REFRESH_TTL_SECONDS * 1000;
  family.accessTokens.push(access.access_token);
  sandbox.state.slice(families).set(family.current, family);
  const company = sandbox.state.companies.get(grant.companyId);
  return {
    access_token: access.access_token,
    refresh_token: family.current,
    token_type: 'AUTHORIZATION_CODE',
    expires_at: new Date(now + access.expires_in * 1000).toISOString(),
    refresh_expires_at: new Date(family.refreshExpiresAt).toISOString(),
    merchant_id: grant.companyId,
    tax_id: company?.taxId ?? '',
    company_legal_name: company?.legalName ?? '',
    customer_id: null,
  };
}
