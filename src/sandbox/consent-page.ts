// The sandbox's authorization web page (docs/interface-decisions.md#oauth-flows "the service shows an authorization web page addressed by a requestId")
// and its error page. Self-contained: inline CSS, no
// scripts, no third-party content, so the strict headers below hold and nothing outside
// the sandbox learns about the request.
import type { Company, Store } from './state.js';

/**
 * Every page of the authorization server carries these. The consent page names the
 * client's redirect URI in form-action too: browsers apply form-action to the redirect
 * that answers the form, and the approval's answer is a redirect to the client.
 */
export function pageHeaders(redirectUri?: string): Record<string, string> {
  const formAction = redirectUri === undefined ? "'self'" : `'self' ${cspSource(redirectUri)}`;
  return {
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'`,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
}

// An origin for http(s), the scheme alone for a custom scheme (its origin is opaque).
function cspSource(uri: string): string {
  const url = new URL(uri);
  return url.origin === 'null' ? url.protocol : url.origin;
}

/** docs/interface-decisions.md#scopes, in the administrator's words. */
const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  write_receipts: 'resolve recipients, issue receipts and credit notes',
  read_receipts: 'read receipts of authorized identifiers',
  write_stores: 'create or update stores',
  read_stores: "read the company's stores",
  company_access: 'use company information',
  account_access: 'read approved account information',
  manage_client_applications: 'manage client applications',
  read_client_applications: 'read client applications',
};

/** Form field names, shared by the page and the handler that reads the form. */
export const FORM = {
  csrf: 'csrf_token',
  decision: 'decision',
  /** Every company offered, each with the stores chosen under it (all by default). */
  allCompanies: 'companies:all',
  company: (companyId: string) => `company:${companyId}`,
  storeMode: (companyId: string) => `stores:${companyId}`,
  store: (companyId: string, storeId: string) => `store:${companyId}:${storeId}`,
} as const;

export interface ConsentPage {
  requestId: string;
  csrfToken: string;
  applicationName: string;
  /** Where the answer goes, so the administrator can tell a look-alike application. */
  redirectUri: string;
  scopes: readonly string[];
  companies: readonly { company: Company; stores: readonly Store[] }[];
  /** Why the last submission was refused. */
  error?: string | undefined;
}

export function renderConsentPage(page: ConsentPage): string {
  const scopes = page.scopes
    .map((s) => `<li><code>${escapeHtml(s)}</code> ${escapeHtml(SCOPE_DESCRIPTIONS[s] ?? '')}</li>`)
    .join('');
  const companies = page.companies.map(({ company, stores }) => companyFieldset(company, stores)).join('');
  const action = `/oauth2/authorize/${encodeURIComponent(page.requestId)}`;
  return layout(
    `Authorize ${page.applicationName}`,
    `<h1>Authorize <em>${escapeHtml(page.applicationName)}</em></h1>
${page.error ? `<p class="error" role="alert">${escapeHtml(page.error)}</p>` : ''}
<p>The application asks for these permissions, and will receive the answer at <code>${escapeHtml(page.redirectUri)}</code>:</p>
<ul>${scopes}</ul>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="${FORM.csrf}" value="${escapeHtml(page.csrfToken)}">
<p>Choose the companies it may act for:</p>
${page.companies.length > 1 ? `<p class="all"><label><input type="checkbox" name="${FORM.allCompanies}" value="on"> All ${page.companies.length} companies below (each with the stores chosen under it)</label></p>
` : ''}${companies}
<div class="buttons">
<button type="submit" name="${FORM.decision}" value="approve">Approve</button>
<button type="submit" name="${FORM.decision}" value="deny" class="deny">Deny</button>
</div>
</form>`,
  );
}

export function renderErrorPage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p class="error">${escapeHtml(message)}</p>\n<p>Nothing was sent to the application.</p>`);
}

function companyFieldset(company: Company, stores: readonly Store[]): string {
  const storeBoxes = stores
    .map(
      (s) =>
        `<label class="store"><input type="checkbox" name="${escapeHtml(FORM.store(company.id, s.id))}" value="on"> ${escapeHtml(s.storeName)} <small>${escapeHtml(s.storeCode)}</small></label>`,
    )
    .join('');
  const mode = escapeHtml(FORM.storeMode(company.id));
  return `<fieldset>
<legend><label><input type="checkbox" name="${escapeHtml(FORM.company(company.id))}" value="on"> ${escapeHtml(company.legalName)} <small>${escapeHtml(company.taxId)}</small></label></legend>
<label><input type="radio" name="${mode}" value="all" checked> All active stores, including stores added later</label>
<label><input type="radio" name="${mode}" value="selected"> Only these stores:</label>
<div class="stores">${storeBoxes}</div>
</fieldset>`;
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} - sandbox</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
fieldset { border: 1px solid #ccc; border-radius: 6px; margin: 0 0 1rem; padding: .5rem 1rem; }
fieldset > label, .store { display: block; }
.stores { margin-left: 1.5rem; }
small { color: #666; }
.error { color: #a00; font-weight: 600; }
.buttons { display: flex; gap: 1rem; }
button { font: inherit; padding: .4rem 1.2rem; border-radius: 4px; border: 1px solid #1a5; background: #1a5; color: #fff; }
button.deny { background: #fff; color: #a00; border-color: #a00; }
</style>
</head>
<body>
${body}
<p><small>svc sandbox: a local imitation of the service's authorization page.</small></p>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
