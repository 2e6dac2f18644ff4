// The administrator's side of the authorization (docs/interface-decisions.md#oauth-flows):
// a pending authorization request per consent page, the internal approval
// (`/oauth2/approve/{requestId}`) that turns it into one Grant per chosen company and a
// code, and the code's redemption rules (docs/interface-decisions.md#oauth-details: 60 s, single use, bound to the
// client, redirect URI and PKCE challenge; a wrong verifier leaves it usable).
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Sandbox } from './context.js';
import { createGrant, findGrant, opaqueToken, revokeGrant, type GrantRecord } from './grants.js';
import { HttpError } from './router.js';
import { defineSlice, type Company, type Store, type User } from './state.js';
import { counted } from '../io/plural.js';

export const AUTHORIZATION_REQUEST_TTL_SECONDS = 10 * 60;
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;

/** docs/interface-decisions.md#scopes: these need the administrator to pick companies. */
const COMPANY_LEVEL_SCOPES: readonly string[] = ['write_receipts', 'write_stores', 'read_stores', 'company_access'];

export interface AuthorizationRequest {
  readonly requestId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly state: string;
  readonly codeChallenge: string;
  /** The consent form's anti-CSRF token; only the page rendered for this request carries it. */
  readonly csrfToken: string;
  readonly expiresAt: number;
}

interface AuthorizationCode {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly expiresAt: number;
  readonly grantIds: readonly string[];
  redeemed: boolean;
}

/** One company the administrator approved, with all its stores (null) or a selection. */
export interface CompanyChoice {
  companyId: string;
  storeIds: readonly string[] | null;
}

const authorizationStore = defineSlice('authorizationStore', () => ({
  requests: new Map<string, AuthorizationRequest>(),
  codes: new Map<string, AuthorizationCode>(),
}));

export function createAuthorizationRequest(
  sandbox: Sandbox,
  request: Pick<AuthorizationRequest, 'clientId' | 'redirectUri' | 'scopes' | 'state' | 'codeChallenge'>,
): AuthorizationRequest {
  const record: AuthorizationRequest = {
    ...request,
    requestId: randomUUID(),
    csrfToken: opaqueToken(),
    expiresAt: sandbox.clock.now() + AUTHORIZATION_REQUEST_TTL_SECONDS * 1000,
  };
  sandbox.state.slice(authorizationStore).requests.set(record.requestId, record);
  return record;
}

/** A pending, unexpired request; an expired one is forgotten on the way. */
export function findAuthorizationRequest(sandbox: Sandbox, requestId: string): AuthorizationRequest | undefined {
  const requests = sandbox.state.slice(authorizationStore).requests;
  const request = requests.get(requestId);
  if (request && sandbox.clock.now() >= request.expiresAt) {
    requests.delete(requestId);
    return undefined;
  }
  return request;
}

/** The administrator who approves in the sandbox: the fixture's first. */
function sandboxAdministrator(sandbox: Sandbox): User | undefined {
  return sandbox.state.users.values().next().value;
}

/** The companies the administrator may approve for, each with its active stores. */
export function approvableCompanies(sandbox: Sandbox): { company: Company; stores: Store[] }[] {
  const admin = sandboxAdministrator(sandbox);
  return (admin?.companyIds ?? []).flatMap((id) => {
    const company = sandbox.state.companies.get(id);
    return company ? [{ company, stores: sandbox.state.storesOf(id).filter((s) => s.isActive) }] : [];
  });
}

/** The consent refused a choice: the page is shown again with this message. */
export class ConsentError extends Error {
  override readonly name = 'ConsentError';
}

/**
 * The internal approval (`/oauth2/approve/{requestId}`): one Grant per chosen company, a
 * code for all of them, and the callback URL carrying code and state. The request is used
 * up. Throws ConsentError for a choice the administrator may not make.
 */
export function approveAuthorization(sandbox: Sandbox, requestId: string, choices: readonly CompanyChoice[]): string {
  const request = findAuthorizationRequest(sandbox, requestId);
  if (!request) throw new ConsentError('this authorization request has expired or was already answered; start again from the application');
  const approvable = new Map(approvableCompanies(sandbox).map((c) => [c.company.id, c]));
  if (choices.length === 0 && request.scopes.some((s) => COMPANY_LEVEL_SCOPES.includes(s)))
    throw new ConsentError('choose at least one company: the requested scopes are company-level');
  for (const { companyId, storeIds } of choices) {
    const entry = approvable.get(companyId);
    if (!entry) throw new ConsentError(`you cannot approve for company ${companyId}`);
    if (storeIds === null) continue;
    if (storeIds.length === 0) throw new ConsentError(`choose at least one store of ${entry.company.legalName}, or all stores`);
    const unknown = storeIds.find((id) => !entry.stores.some((s) => s.id === id));
    if (unknown !== undefined) throw new ConsentError(`store ${unknown} is not an active store of ${entry.company.legalName}`);
  }

  const grants = choices.map((choice) =>
    createGrant(sandbox, {
      clientId: request.clientId,
      companyId: choice.companyId,
      scopes: [...request.scopes],
      storeIds: choice.storeIds === null ? null : [...new Set(choice.storeIds)],
    }),
  );
  const code = opaqueToken();
  const store = sandbox.state.slice(authorizationStore);
  store.codes.set(code, {
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    expiresAt: sandbox.clock.now() + AUTHORIZATION_CODE_TTL_SECONDS * 1000,
    grantIds: grants.map((g) => g.grantId),
    redeemed: false,
  });
  store.requests.delete(requestId);
  sandbox.log(`authorization request approved for client ${request.clientId}: ${counted(grants.length, 'Grant')}`);
  return callbackUrl(request, { code });
}

/** The administrator said no: the callback URL with `access_denied`. The request is used up. */
export function denyAuthorization(sandbox: Sandbox, requestId: string): string {
  const request = findAuthorizationRequest(sandbox, requestId);
  if (!request) throw new ConsentError('this authorization request has expired or was already answered; start again from the application');
  sandbox.state.slice(authorizationStore).requests.delete(requestId);
  return callbackUrl(request, { error: 'access_denied', error_description: 'the administrator denied the authorization' });
}

/** The redirect URI with the answer's parameters and the client's state. */
export function callbackUrl(request: { redirectUri: string; state: string | undefined }, params: Record<string, string>): string {
  const url = new URL(request.redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (request.state !== undefined) url.searchParams.set('state', request.state);
  return url.toString();
}

/**
 * Redeems a code for the Grants it stands for. Every refusal is 400 `invalid_grant`; a
 * missing or wrong verifier leaves the code usable, a second redemption revokes the Grants
 * the first one handed out (RFC 6749 §4.1.2: the code may have been stolen). The
 * `/oauth2/token` variant also repeats the redirect URI, which must be the same string.
 */
export function redeemCode(
  sandbox: Sandbox,
  presented: { code: string; clientId: string; codeVerifier: string | undefined; redirectUri?: string },
): GrantRecord[] {
  const code = sandbox.state.slice(authorizationStore).codes.get(presented.code);
  if (!code || code.clientId !== presented.clientId) throw invalidGrant('the authorization code is unknown');
  if (code.redeemed) {
    for (const grantId of code.grantIds) revokeGrant(sandbox, grantId);
    sandbox.log(`authorization code presented twice: its ${counted(code.grantIds.length, 'Grant')} revoked`);
    throw invalidGrant('the authorization code was already used; the Grants it gave were revoked');
  }
  if (sandbox.clock.now() >= code.expiresAt) throw invalidGrant('the authorization code has expired');
  if (presented.redirectUri !== undefined && presented.redirectUri !== code.redirectUri)
    throw invalidGrant('redirect_uri differs from the one of the authorization request');
  if (presented.codeVerifier === undefined) throw invalidGrant('code_verifier is required');
  if (!verifierMatches(presented.codeVerifier, code.codeChallenge)) throw invalidGrant('code_verifier does not match the code challenge');
  code.redeemed = true;
  return code.grantIds.flatMap((id) => {
    const grant = findGrant(sandbox, id);
    return grant && grant.revokedAt === null ? [grant] : [];
  });
}

// RFC 7636 §4.1: 43 to 128 unreserved characters; anything else cannot be a verifier.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

function invalidGrant(description: string): HttpError {
  return new HttpError('invalid_grant', description);
}
