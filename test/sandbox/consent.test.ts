import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  authorizeParams,
  authorizePath,
  CLIENT,
  consentForm,
  FOODS,
  formOf,
  pkce,
  REDIRECT_URI,
  RETAIL,
  RETAIL_STORE_A,
  RETAIL_STORE_B,
  RETAIL_STORE_INACTIVE,
  startOAuthSandbox,
  type Answer,
  type OAuthHarness,
} from './oauth-helpers.js';

// form-action also names the redirect URI's origin: browsers check it against the redirect
// that answers the form (Chromium blocks the approval's redirect otherwise).
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http://127.0.0.1:8765; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

describe('the consent page', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthSandbox();
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());

  const openPage = async (overrides: Record<string, string | undefined> = {}) => {
    const p = pkce();
    const page = await h.get(authorizePath(authorizeParams(p, overrides)));
    expect(page.status).toBe(200);
    return { p, page, ...formOf(page.text) };
  };
  const submit = (action: string, form: Record<string, string>, headers: Record<string, string> = { origin: h.running.url }) =>
    h.post(action, form, { form: true, headers });
  const callback = (answer: Answer) => {
    expect(answer.status).toBe(302);
    return new URL(answer.headers.get('location') ?? '');
  };
  const exchange = async (code: string, verifier: string) =>
    (await h.post('/oauth2/authorization-code/exchange', { code, ...CLIENT, code_verifier: verifier })).body.grants;

  it('is self-contained and carries the strict headers', async () => {
    const { page } = await openPage();
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(page.headers.get(name)).toBe(value);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1:8765)|<link|<img|<iframe/i);
  });

  it('shows the application, the scopes, the companies with their active stores, Approve and Deny', async () => {
    const { page, action } = await openPage();
    expect(action).toMatch(/^\/oauth2\/authorize\/[0-9a-f-]{36}$/);
    expect(page.text).toContain('Sandbox POS');
    expect(page.text).toContain('<code>write_receipts</code>');
    expect(page.text).toContain('<code>read_stores</code>');
    expect(page.text).toContain('Example Retail Ltd');
    expect(page.text).toContain('Sample Foods GmbH');
    expect(page.text).toContain(`store:${RETAIL}:${RETAIL_STORE_A}`);
    expect(page.text).not.toContain(RETAIL_STORE_INACTIVE);
    expect(page.text).toMatch(/value="approve">Approve</);
    expect(page.text).toMatch(/value="deny"[^>]*>Deny</);
  });

  it('approves: a code and the state on the registered redirect URI, Grants as chosen', async () => {
    const { p, action, csrf } = await openPage();
    const answer = await submit(action, consentForm(csrf, { [RETAIL]: [RETAIL_STORE_B], [FOODS]: 'all' }));
    const url = callback(answer);
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT_URI);
    expect(url.searchParams.get('state')).toBe('st4te-value');
    const grants = await exchange(url.searchParams.get('code') ?? '', p.verifier);
    expect(grants).toEqual([
      expect.objectContaining({ issuer_company_id: RETAIL, store_access_mode: 'SELECTED_STORES', store_ids: [RETAIL_STORE_B] }),
      expect.objectContaining({ issuer_company_id: FOODS, store_access_mode: 'ALL_STORES', store_ids: [] }),
    ]);
  });

  it('answers the request once: a second submission is refused', async () => {
    const { action, csrf } = await openPage();
    callback(await submit(action, consentForm(csrf, { [RETAIL]: 'all' })));
    const again = await submit(action, consentForm(csrf, { [RETAIL]: 'all' }));
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
  });

  it('denies: access_denied and the state, and no Grant', async () => {
    const { action, csrf } = await openPage();
    const url = callback(await submit(action, consentForm(csrf, { [RETAIL]: 'all' }, 'deny')));
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('st4te-value');
    expect(url.searchParams.has('code')).toBe(false);
  });

  it('requires a company for company-level scopes, and a store when stores are selected', async () => {
    const { action, csrf } = await openPage();
    const none = await submit(action, consentForm(csrf, {}));
    expect(none.status).toBe(400);
    expect(none.text).toContain('choose at least one company');
    expect(none.headers.get('x-frame-options')).toBe('DENY');
    const noStore = await submit(action, consentForm(csrf, { [RETAIL]: [] }));
    expect(noStore.status).toBe(400);
    expect(noStore.text).toContain('choose at least one store of Example Retail Ltd');
    // The request survives a refused choice.
    callback(await submit(action, consentForm(csrf, { [RETAIL]: 'all' })));
  });

  it('ignores an inactive or foreign store slipped into the form', async () => {
    const { p, action, csrf } = await openPage();
    const form = consentForm(csrf, { [RETAIL]: [RETAIL_STORE_A] });
    form[`store:${RETAIL}:${RETAIL_STORE_INACTIVE}`] = 'on';
    const grants = await exchange(callback(await submit(action, form)).searchParams.get('code') ?? '', p.verifier);
    expect(grants[0].store_ids).toEqual([RETAIL_STORE_A]);
  });

  describe('against cross-site submission', () => {
    it('refuses a POST without the CSRF token, or with another one', async () => {
      const { action, csrf } = await openPage();
      const { csrf: otherPagesToken } = await openPage();
      for (const token of [undefined, '', 'forged', otherPagesToken]) {
        const form = consentForm(csrf, { [RETAIL]: 'all' });
        if (token === undefined) delete form.csrf_token;
        else form.csrf_token = token;
        const answer = await submit(action, form);
        expect(answer.status).toBe(403);
        expect(answer.headers.get('location')).toBeNull();
      }
      callback(await submit(action, consentForm(csrf, { [RETAIL]: 'all' })));
    });

    it('refuses another origin, a null origin, and Sec-Fetch-Site other than same-origin', async () => {
      const { action, csrf } = await openPage();
      const crossSite: Record<string, string>[] = [
        { origin: 'http://evil.example' },
        { origin: 'null', 'sec-fetch-site': 'cross-site' },
        { origin: h.running.url.replace('127.0.0.1', 'localhost') },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
        { origin: h.running.url, 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of crossSite) {
        const answer = await submit(action, consentForm(csrf, { [RETAIL]: 'all' }), headers);
        expect(answer.status, JSON.stringify(headers)).toBe(403);
        expect(answer.headers.get('location')).toBeNull();
      }
      // What a browser sends for the page's own form under `Referrer-Policy: no-referrer`.
      callback(await submit(action, consentForm(csrf, { [RETAIL]: 'all' }), { origin: 'null', 'sec-fetch-site': 'same-origin' }));
    });

    it('refuses a form that is not urlencoded', async () => {
      const { action, csrf } = await openPage();
      const answer = await h.post(action, consentForm(csrf, { [RETAIL]: 'all' }), { headers: { origin: h.running.url } });
      expect(answer.status).toBe(403);
    });
  });

  it('forgets an authorization request after 10 minutes', async () => {
    const { action, csrf } = await openPage();
    await h.advance(600);
    const answer = await submit(action, consentForm(csrf, { [RETAIL]: 'all' }));
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('expired');
  });
});

describe('--auto-approve', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthSandbox({ autoApprove: true });
  });
  afterAll(() => h.close());
  afterEach(() => h.reset());

  it('redirects with a code at once, for every company of the administrator and all stores', async () => {
    const p = pkce();
    const answer = await h.get(authorizePath(authorizeParams(p)));
    expect(answer.status).toBe(302);
    const url = new URL(answer.headers.get('location') ?? '');
    expect(url.searchParams.get('state')).toBe('st4te-value');
    const exchanged = await h.post('/oauth2/authorization-code/exchange', {
      code: url.searchParams.get('code'),
      ...CLIENT,
      code_verifier: p.verifier,
    });
    expect(exchanged.body.grants).toEqual([
      expect.objectContaining({ issuer_company_id: RETAIL, store_access_mode: 'ALL_STORES', scopes: ['write_receipts', 'read_stores'] }),
      expect.objectContaining({ issuer_company_id: FOODS, store_access_mode: 'ALL_STORES' }),
    ]);
  });

  it('still refuses what it would refuse with the page', async () => {
    const answer = await h.get(authorizePath(authorizeParams(pkce(), { redirect_uri: 'http://localhost:8765/callback' })));
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    const plain = await h.get(authorizePath(authorizeParams(pkce(), { code_challenge_method: 'plain' })));
    expect(new URL(plain.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_request');
  });
});
