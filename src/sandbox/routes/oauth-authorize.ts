// `GET /oauth2/authorize` and the consent form it shows (docs/interface-decisions.md#oauth-flows, #oauth-details).
// A request that cannot be trusted to name its own callback (unknown or unapproved client,
// unregistered redirect URI) gets an error page and never a redirect; any other mistake
// goes back to the registered redirect URI as `error=...&state=...`.
import { timingSafeEqual } from 'node:crypto';
import { SCOPES } from '../../contract/oauth.js';
import {
  approvableCompanies,
  approveAuthorization,
  callbackUrl,
  ConsentError,
  createAuthorizationRequest,
  denyAuthorization,
  findAuthorizationRequest,
  type AuthorizationRequest,
  type CompanyChoice,
} from '../authorization.js';
import { FORM, pageHeaders, renderConsentPage, renderErrorPage } from '../consent-page.js';
import type { Sandbox } from '../context.js';
import { html, type Reply, type RouteRequest, type Router } from '../router.js';

// RFC 7636 §4.2: the Base64URL SHA-256 of a verifier is always 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function register(router: Router, sandbox: Sandbox): void {
  router.get('/oauth2/authorize', (req) => {
    const q = req.query;
    const app = q.client_id === undefined ? undefined : sandbox.state.clientApplications.get(q.client_id);
    if (!app) return errorPage(400, 'Unknown application', `no client application has the client_id "${q.client_id ?? ''}"`);
    if (app.status !== 'Approved')
      return errorPage(400, 'Application not approved', `${app.name} is ${app.status}: only an Approved application can be authorized`);
    const redirectUri = q.redirect_uri;
    if (redirectUri === undefined || !app.redirectUris.includes(redirectUri))
      return errorPage(400, 'Redirect URI not registered', `${app.name} has not registered the redirect_uri "${redirectUri ?? ''}"`);

    const refuse = (error: string, description: string) =>
      pageRedirect(callbackUrl({ redirectUri, state: q.state }, { error, error_description: description }));
    if (q.response_type !== 'code')
      return refuse(q.response_type === undefined ? 'invalid_request' : 'unsupported_response_type', 'response_type must be "code"');
    if (!q.state) return refuse('invalid_request', 'state is required');
    if (q.code_challenge_method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256');
    if (!q.code_challenge || !S256_CHALLENGE.test(q.code_challenge))
      return refuse('invalid_request', 'code_challenge must be the Base64URL SHA-256 of the code verifier');
    const scopes = [...new Set((q.scope ?? '').split(' ').filter((s) => s !== ''))];
    if (scopes.length === 0) return refuse('invalid_request', 'scope is required');
    const refused = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s) || !app.scopes.includes(s));
    if (refused.length > 0) return refuse('invalid_scope', `not a scope ${app.name} registered: ${refused.join(' ')}`);

    const request = createAuthorizationRequest(sandbox, {
      clientId: app.id,
      redirectUri,
      scopes,
      state: q.state,
      codeChallenge: q.code_challenge,
    });
    if (sandbox.autoApprove) {
      const everything = approvableCompanies(sandbox).map(({ company }) => ({ companyId: company.id, storeIds: null }));
      try {
        return pageRedirect(approveAuthorization(sandbox, request.requestId, everything));
      } catch (error) {
        if (error instanceof ConsentError) return errorPage(400, 'Cannot approve automatically', error.message);
        throw error;
      }
    }
    return consentPage(sandbox, request, 200);
  });

  router.post('/oauth2/authorize/{requestId}', (req) => {
    const crossSite = crossSiteReason(req);
    if (crossSite) return errorPage(403, 'Request refused', crossSite);
    const request = findAuthorizationRequest(sandbox, req.params.requestId);
    if (!request) return errorPage(400, 'Authorization request expired', 'this authorization request has expired or was already answered; start again from the application');
    const form = formFields(req);
    if (!form || !tokensEqual(form[FORM.csrf] ?? '', request.csrfToken))
      return errorPage(403, 'Request refused', 'the form is not the one this page showed; reload the authorization page');

    try {
      if (form[FORM.decision] === 'deny') return pageRedirect(denyAuthorization(sandbox, request.requestId));
      if (form[FORM.decision] !== 'approve') return consentPage(sandbox, request, 400, 'choose Approve or Deny');
      return pageRedirect(approveAuthorization(sandbox, request.requestId, choicesOf(sandbox, form)));
    } catch (error) {
      if (error instanceof ConsentError) return consentPage(sandbox, request, 400, error.message);
      throw error;
    }
  });
}

function consentPage(sandbox: Sandbox, request: AuthorizationRequest, status: number, error?: string): Reply {
  const app = sandbox.state.clientApplications.get(request.clientId);
  return html(
    status,
    renderConsentPage({
      requestId: request.requestId,
      csrfToken: request.csrfToken,
      applicationName: app?.name ?? request.clientId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      companies: approvableCompanies(sandbox),
      error,
    }),
    pageHeaders(request.redirectUri),
  );
}

// Only the companies and active stores the page offered count; anything else a tampered
// form adds is ignored.
function choicesOf(sandbox: Sandbox, form: Readonly<Record<string, string>>): CompanyChoice[] {
  return approvableCompanies(sandbox)
    .filter(({ company }) => form[FORM.allCompanies] === 'on' || form[FORM.company(company.id)] === 'on')
    .map(({ company, stores }) => ({
      companyId: company.id,
      storeIds:
        form[FORM.storeMode(company.id)] === 'selected'
          ? stores.filter((s) => form[FORM.store(company.id, s.id)] === 'on').map((s) => s.id)
          : null,
    }));
}

/**
 * Why a browser's submission came from another site, if it did. Sec-Fetch-Site, which a
 * page cannot set, decides when present. Only without it does Origin count, and then not
 * "null": that is what the page's own `Referrer-Policy: no-referrer` makes browsers send.
 * A client with neither (curl) is not a browser being tricked, and still needs the token.
 */
function crossSiteReason(req: RouteRequest): string | undefined {
  const site = header(req, 'sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' ? undefined : `the form was submitted from another site (Sec-Fetch-Site: ${site})`;
  const origin = header(req, 'origin');
  if (origin !== undefined && origin !== 'null' && origin !== `http://${header(req, 'host') ?? ''}`)
    return `the form was submitted from another origin (${origin})`;
  return undefined;
}

/** The fields of an urlencoded body; a cross-site form could also send other types, which are refused. */
function formFields(req: RouteRequest): Readonly<Record<string, string>> | undefined {
  const type = header(req, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  return (req.body ?? {}) as Readonly<Record<string, string>>;
}

function header(req: RouteRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function tokensEqual(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

function errorPage(status: number, title: string, message: string): Reply {
  return html(status, renderErrorPage(title, message), pageHeaders());
}

// The callback URL carries the code: no Referer of it, and no cached copy of the answer.
function pageRedirect(location: string): Reply {
  return { status: 302, headers: { Location: location, 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' }, body: '' };
}
