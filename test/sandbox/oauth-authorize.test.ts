import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  authorizeParams,
  authorizePath,
  pkce,
  REDIRECT_URI,
  startOAuthSandbox,
  type OAuthHarness,
} from './oauth-helpers.js';

describe('GET /oauth2/authorize', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthSandbox();
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());

  const open = (overrides: Record<string, string | undefined>) => h.get(authorizePath(authorizeParams(pkce(), overrides)));

  /** An error page: HTML, never a Location, and the strict page headers. */
  const expectErrorPage = (answer: Awaited<ReturnType<typeof open>>, text: RegExp) => {
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(answer.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(answer.text).toMatch(text);
  };

  const callback = (answer: Awaited<ReturnType<typeof open>>) => {
    expect(answer.status).toBe(302);
    const location = answer.headers.get('location');
    if (!location) throw new Error('no Location');
    return new URL(location);
  };

  it('shows the consent page for a valid request', async () => {
    const answer = await open({});
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('Sandbox POS');
    expect(answer.headers.get('location')).toBeNull();
  });

  it.each([
    ['https instead of http', 'https://127.0.0.1:8765/callback'],
    ['localhost instead of 127.0.0.1', 'http://localhost:8765/callback'],
    ['another port', 'http://127.0.0.1:8766/callback'],
    ['no port', 'http://127.0.0.1/callback'],
    ['another path', 'http://127.0.0.1:8765/callback2'],
    ['a trailing slash', 'http://127.0.0.1:8765/callback/'],
    ['an added query', 'http://127.0.0.1:8765/callback?x=1'],
    ['upper-case path', 'http://127.0.0.1:8765/Callback'],
    ['a different host', 'http://evil.example/callback'],
  ])('refuses a redirect_uri with %s: an error page, never a redirect', async (_what, redirectUri) => {
    expectErrorPage(await open({ redirect_uri: redirectUri }), /Redirect URI not registered/);
  });

  it('refuses a missing redirect_uri with an error page', async () => {
    expectErrorPage(await open({ redirect_uri: undefined }), /Redirect URI not registered/);
  });

  it('refuses unknown, pending and rejected clients with an error page', async () => {
    expectErrorPage(await open({ client_id: 'app_nobody' }), /Unknown application/);
    expectErrorPage(await open({ client_id: undefined }), /Unknown application/);
    expectErrorPage(await open({ client_id: 'app_sandbox_pending' }), /Sandbox Accounting is Pending/);
    expectErrorPage(await open({ client_id: 'app_sandbox_rejected' }), /Sandbox Marketplace is Rejected/);
  });

  it.each([
    ['plain', { code_challenge_method: 'plain' }],
    ['a missing method', { code_challenge_method: undefined }],
    ['a lower-case method', { code_challenge_method: 's256' }],
    ['a missing challenge', { code_challenge: undefined }],
    ['a challenge that is no SHA-256', { code_challenge: 'short' }],
  ])('refuses PKCE with %s: invalid_request back to the client, with state', async (_what, overrides) => {
    const url = callback(await open(overrides));
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT_URI);
    expect(url.searchParams.get('error')).toBe('invalid_request');
    expect(url.searchParams.get('state')).toBe('st4te-value');
    expect(url.searchParams.get('code')).toBeNull();
  });

  it('refuses a missing state', async () => {
    const url = callback(await open({ state: undefined }));
    expect(url.searchParams.get('error')).toBe('invalid_request');
    expect(url.searchParams.has('state')).toBe(false);
  });

  it('refuses response types other than code', async () => {
    expect(callback(await open({ response_type: 'token' })).searchParams.get('error')).toBe('unsupported_response_type');
    expect(callback(await open({ response_type: undefined })).searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses unknown scopes and scopes the client did not register with invalid_scope', async () => {
    for (const scope of ['write_receipts admin', 'read_receipts', 'write_receipts  write_everything']) {
      const url = callback(await open({ scope }));
      expect(url.searchParams.get('error')).toBe('invalid_scope');
      expect(url.searchParams.get('state')).toBe('st4te-value');
    }
    expect(callback(await open({ scope: '' })).searchParams.get('error')).toBe('invalid_request');
  });

  it('checks the client before anything else: an unknown client with bad PKCE still gets no redirect', async () => {
    expectErrorPage(await open({ client_id: 'app_nobody', code_challenge_method: 'plain' }), /Unknown application/);
    expectErrorPage(await open({ redirect_uri: 'http://127.0.0.1:8765/other', scope: 'nope' }), /Redirect URI/);
  });

  it('escapes what the request puts on the page', async () => {
    const answer = await open({ client_id: '<script>alert(1)</script>' });
    expect(answer.text).not.toContain('<script>');
    expect(answer.text).toContain('&#60;script&#62;');
  });

  it('names on the consent page where the answer will go', async () => {
    expect((await open({})).text).toContain(`<code>${REDIRECT_URI}</code>`);
  });
});
