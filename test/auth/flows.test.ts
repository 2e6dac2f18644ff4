import { afterEach, describe, expect, it } from 'vitest';
import type { OpenUrl } from '../../src/auth/browser.js';
import { codeChallenge } from '../../src/auth/pkce.js';
import { chooseGrant, issueToken, tokenSourceFor } from '../../src/auth/session.js';
import { readAuthorizations } from '../../src/auth/profile.js';
import { login, type LoginOptions } from '../../src/commands/auth/login.js';
import { DEFAULT_SCOPES, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET } from '../../src/config/defaults.js';
import { resolveSettings } from '../../src/config/settings.js';
import { memoryConfigStore } from '../../src/config/store.js';
import { AuthError, CancelError, ExitCode, UsageError } from '../../src/errors.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  GRANT,
  JSON_HEADERS,
  NOW,
  errorResponse,
  rejection,
  setup,
  tokenResponse,
  type SetupOptions,
} from './setup.js';

let current: ReturnType<typeof setup> | undefined;
function make(opts: SetupOptions = {}) {
  current = setup(opts);
  return current;
}
afterEach(async () => {
  await current?.done();
  current = undefined;
});

const LOGIN: LoginOptions = { flow: 'grant', browser: true, port: '0', timeout: '5', clientSecretStdin: true };

interface Seen {
  authorize?: URL;
}

/** Plays the administrator: approves at once and follows the redirect to the loopback listener. */
function approvingBrowser(seen: Seen, code = 'code-123'): OpenUrl {
  return async (url) => {
    const authorize = new URL(url);
    seen.authorize = authorize;
    const callback = new URL(authorize.searchParams.get('redirect_uri') ?? '');
    callback.searchParams.set('code', code);
    callback.searchParams.set('state', authorize.searchParams.get('state') ?? '');
    const res = await fetch(callback);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('You can close this tab');
  };
}

function json(data: unknown, statusCode = 200) {
  return { statusCode, data: data as object, responseOptions: { headers: JSON_HEADERS } };
}

const RECORD = {
  access_token: 'at-1',
  refresh_token: 'rt-1',
  token_type: 'AUTHORIZATION_CODE',
  expires_at: new Date(NOW + 3_600_000).toISOString(),
  refresh_expires_at: new Date(NOW + 30 * 86_400_000).toISOString(),
  merchant_id: 'c0000000-0000-4000-8000-000000000001',
  tax_id: 'EU000000001',
  company_legal_name: 'Example Retail Ltd',
  customer_id: null,
};

const COMPANY = {
  merchant_id: RECORD.merchant_id,
  company_legal_name: RECORD.company_legal_name,
  tax_id: RECORD.tax_id,
  customer_id: null,
  expires_at: new Date(NOW - 1000).toISOString(),
  refresh_expires_at: RECORD.refresh_expires_at,
  scope: 'write_receipts read_stores',
};

describe('auth login, grant flow', () => {
  it('sends a PKCE challenge and state, redeems the code with the verifier, and keeps the Grants and the secret', async () => {
    const { f, t, pool, config, secrets } = make();
    // auth login first checks that the service answers.
    pool.intercept({ path: '/oauth2/token/validate', method: 'GET' }).reply(() => json(false));
    t.input.end(`${CLIENT_SECRET}\n`);
    let body: Record<string, string> = {};
    pool.intercept({ path: '/oauth2/authorization-code/exchange', method: 'POST' }).reply((req) => {
      body = JSON.parse(String(req.body)) as Record<string, string>;
      return json({ grants: [GRANT] });
    });
    const seen: Seen = {};
    const result = await login(LOGIN, f, { openUrl: approvingBrowser(seen) });

    const query = seen.authorize?.searchParams;
    expect(seen.authorize?.pathname).toBe('/oauth2/authorize');
    expect(query?.get('response_type')).toBe('code');
    expect(query?.get('client_id')).toBe(CLIENT_ID);
    expect(query?.get('scope')).toBe(DEFAULT_SCOPES);
    expect(query?.get('code_challenge_method')).toBe('S256');
    expect(query?.get('state')?.length).toBeGreaterThanOrEqual(43);
    expect(query?.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(query?.has('client_secret')).toBe(false);

    expect(body).toEqual({ code: 'code-123', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, code_verifier: expect.any(String) });
    expect(body.code_verifier?.length).toBeGreaterThanOrEqual(43);
    expect(codeChallenge(body.code_verifier ?? '')).toBe(query?.get('code_challenge'));

    expect(config.profile('local').grants).toEqual([{ ...GRANT, saved_at: expect.stringMatching(/^\d{4}-/) }]);
    expect(config.profile('local').grant).toBe(GRANT.grant_id);
    expect(secrets.dump()['client-secret']).toBe(CLIENT_SECRET);
    expect(result).toMatchObject({ flow: 'grant', grant: GRANT.grant_id, grants: [GRANT] });

    const lines = t.stderr().split('\n');
    expect(lines.some((l) => l.startsWith(`http://svc.test/oauth2/authorize?`))).toBe(true);
    for (const secret of [CLIENT_SECRET, 'code-123', body.code_verifier ?? '']) expect(t.stderr() + t.stdout()).not.toContain(secret);
  });

  it('keeps Grants of earlier logins and the chosen default when several come back', async () => {
    const other = { ...GRANT, grant_id: 'g-2', issuer_company_id: 'c-2', company_legal_name: 'Sample Foods GmbH' };
    const third = { ...GRANT, grant_id: 'g-3', issuer_company_id: 'c-3', company_legal_name: 'Third Shop' };
    const { f, pool, config } = make({
      profiles: { local: { grants: [{ ...GRANT, grant_version: 0 }], grant: GRANT.grant_id } },
      secrets: { 'client-secret': CLIENT_SECRET },
    });
    // auth login first checks that the service answers.
    pool.intercept({ path: '/oauth2/token/validate', method: 'GET' }).reply(() => json(false));
    pool.intercept({ path: '/oauth2/authorization-code/exchange', method: 'POST' }).reply(() => json({ grants: [other, third] }));
    await login({ ...LOGIN, clientSecretStdin: false }, f, { openUrl: approvingBrowser({}) });
    expect(config.profile('local').grants?.map((g) => g.grant_id)).toEqual([GRANT.grant_id, 'g-2', 'g-3']);
    expect(config.profile('local').grant).toBe(GRANT.grant_id);
  });

  it("replaces an earlier Grant of the same company, default and cached tokens included (a re-login after a revocation)", async () => {
    const other = { ...GRANT, grant_id: 'g-2', issuer_company_id: 'c-2', company_legal_name: 'Sample Foods GmbH' };
    const renewed = { ...GRANT, grant_id: 'g-renewed' };
    const revokedToken = JSON.stringify({ write_receipts: { access_token: 'tok-revoked', token_type: 'bearer', expires_at: new Date(NOW + 600_000).toISOString(), scope: 'write_receipts' } });
    const { f, pool, config, secrets } = make({
      profiles: { local: { grants: [GRANT, other], grant: GRANT.grant_id } },
      secrets: { 'client-secret': CLIENT_SECRET, [`token/${GRANT.grant_id}`]: revokedToken },
    });
    // auth login first checks that the service answers.
    pool.intercept({ path: '/oauth2/token/validate', method: 'GET' }).reply(() => json(false));
    pool.intercept({ path: '/oauth2/authorization-code/exchange', method: 'POST' }).reply(() => json({ grants: [renewed, { ...other, grant_id: 'g-2b' }] }));
    const result = await login({ ...LOGIN, clientSecretStdin: false }, f, { openUrl: approvingBrowser({}) });
    expect(config.profile('local').grants?.map((g) => g.grant_id)).toEqual(['g-renewed', 'g-2b']);
    expect(config.profile('local').grant).toBe('g-renewed');
    expect(result.grant).toBe('g-renewed');
    expect(Object.keys(secrets.dump()).filter((key) => key.startsWith('token/'))).toEqual([]);
  });

  it('stops with exit 3 when the administrator denies, and makes no token request', async () => {
    const { f, pool } = make({ secrets: { 'client-secret': CLIENT_SECRET } });
    // auth login first checks that the service answers.
    pool.intercept({ path: '/oauth2/token/validate', method: 'GET' }).reply(() => json(false));
    const deny: OpenUrl = async (url) => {
      const authorize = new URL(url);
      const callback = new URL(authorize.searchParams.get('redirect_uri') ?? '');
      callback.searchParams.set('error', 'access_denied');
      callback.searchParams.set('state', authorize.searchParams.get('state') ?? '');
      await fetch(callback);
    };
    const error = await rejection(login({ ...LOGIN, clientSecretStdin: false }, f, { openUrl: deny }));
    expect(error).toBeInstanceOf(CancelError);
    expect((error as CancelError).exitCode).toBe(ExitCode.cancelled);
  });

  it('prints the URL on stderr, on a line of its own, when no browser may be opened', async () => {
    const { f, t, pool } = make({ secrets: { 'client-secret': CLIENT_SECRET } });
    // auth login first checks that the service answers.
    pool.intercept({ path: '/oauth2/token/validate', method: 'GET' }).reply(() => json(false));
    pool.intercept({ path: '/oauth2/authorization-code/exchange', method: 'POST' }).reply(() => json({ grants: [GRANT] }));
    const done = login({ ...LOGIN, clientSecretStdin: false, browser: false }, f);
    let line: string | undefined;
    for (let i = 0; i < 100 && !line; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      line = t.stderr().split('\n').find((l) => l.startsWith('http'));
    }
    await approvingBrowser({})(line ?? '');
    await done;
  });

  it('needs no set-up on the local profile: the built-in sandbox client and secret, nothing stored', async () => {
    const { f, pool, secrets, config } = make({ env: { SVC_CLIENT_ID: '' } });
    // auth login first checks that the service answers.
    pool.intercept({ path: '/oauth2/token/validate', method: 'GET' }).reply(() => json(false));
    let body: Record<string, string> = {};
    pool.intercept({ path: '/oauth2/authorization-code/exchange', method: 'POST' }).reply((req) => {
      body = JSON.parse(String(req.body)) as Record<string, string>;
      return json({ grants: [GRANT] });
    });
    await login({ ...LOGIN, clientSecretStdin: false }, f, { openUrl: approvingBrowser({}) });
    expect(body).toMatchObject({ client_id: SANDBOX_CLIENT_ID, client_secret: SANDBOX_CLIENT_SECRET });
    expect(secrets.dump()).toEqual({});
    expect(config.profile('local').grant).toBe(GRANT.grant_id);
  });

  it('uses the built-in sandbox secret only with the built-in client ID, and refuses to prompt without input', async () => {
    const { f } = make();
    const error = await rejection(login({ ...LOGIN, clientSecretStdin: false }, f, { openUrl: approvingBrowser({}) }));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).hint).toMatch(/--client-secret-stdin/);
  });

  it('refuses an unknown flow before anything happens', async () => {
    const { f } = make();
    await expect(login({ ...LOGIN, flow: 'implicit' }, f)).rejects.toBeInstanceOf(UsageError);
  });
});

describe('auth login, code flow', () => {
  it('stores each refresh token first, caches the access tokens, and keeps only metadata in the profile', async () => {
    const { f, pool, config, secrets, ops } = make({ secrets: { 'client-secret': CLIENT_SECRET } });
    // auth login first checks that the service answers.
    pool.intercept({ path: '/oauth2/token/validate', method: 'GET' }).reply(() => json(false));
    let body: Record<string, string> = {};
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply((req) => {
      body = JSON.parse(String(req.body)) as Record<string, string>;
      return json([RECORD]);
    });
    const seen: Seen = {};
    await login({ ...LOGIN, flow: 'code', clientSecretStdin: false }, f, { openUrl: approvingBrowser(seen, 'code-9') });

    expect(body).toEqual({
      grant_type: 'authorization_code',
      code: 'code-9',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uri: seen.authorize?.searchParams.get('redirect_uri'),
      code_verifier: expect.any(String),
    });
    expect(codeChallenge(body.code_verifier ?? '')).toBe(seen.authorize?.searchParams.get('code_challenge'));
    expect(ops[0]).toBe(`set refresh-token/${RECORD.merchant_id}`);
    expect(secrets.dump()[`refresh-token/${RECORD.merchant_id}`]).toBe('rt-1');
    expect(JSON.parse(secrets.dump()[`token/${RECORD.merchant_id}`] ?? '{}')['*'].access_token).toBe('at-1');

    const stored = JSON.stringify(config.profile('local'));
    expect(stored).not.toContain('at-1');
    expect(stored).not.toContain('rt-1');
    expect(readAuthorizations(config, 'local').companies).toEqual([
      { ...COMPANY, expires_at: RECORD.expires_at, scope: DEFAULT_SCOPES },
    ]);
    expect(config.profile('local').grant).toBe(RECORD.merchant_id);

    // The access token from the login serves the next command without a request.
    expect((await issueToken(f, {})).access_token).toBe('at-1');
  });
});

describe('code flow refresh', () => {
  const profiles = { local: { companies: [COMPANY] } };

  it('stores the rotated refresh token before handing out the new access token', async () => {
    const { f, pool, secrets, ops, config } = make({
      profiles,
      secrets: { 'client-secret': CLIENT_SECRET, [`refresh-token/${RECORD.merchant_id}`]: 'rt-1' },
    });
    let body: Record<string, string> = {};
    pool.intercept({ path: '/oauth2/refresh', method: 'POST' }).reply((req) => {
      body = JSON.parse(String(req.body)) as Record<string, string>;
      return json({ ...RECORD, access_token: 'at-2', refresh_token: 'rt-2' });
    });
    const token = await issueToken(f, {});
    expect(body).toEqual({ grant_type: 'refresh_token', refresh_token: 'rt-1', client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
    expect(token).toMatchObject({ access_token: 'at-2', grant_id: RECORD.merchant_id, scope: COMPANY.scope });
    expect(secrets.dump()[`refresh-token/${RECORD.merchant_id}`]).toBe('rt-2');
    const refreshStored = ops.indexOf(`set refresh-token/${RECORD.merchant_id}`);
    const accessStored = ops.indexOf(`set token/${RECORD.merchant_id}`);
    expect(refreshStored).toBeGreaterThanOrEqual(0);
    expect(refreshStored).toBeLessThan(accessStored);
    expect(readAuthorizations(config, 'local').companies[0]?.expires_at).toBe(RECORD.expires_at);
  });

  it('on invalid_grant deletes the refresh token and fails with exit 4 and a login hint', async () => {
    const { f, pool, secrets } = make({
      profiles,
      secrets: { 'client-secret': CLIENT_SECRET, [`refresh-token/${RECORD.merchant_id}`]: 'rt-old' },
    });
    pool.intercept({ path: '/oauth2/refresh', method: 'POST' }).reply(() => errorResponse(400, 'invalid_grant'));
    const error = await rejection(issueToken(f, {}));
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(ExitCode.auth);
    expect((error as AuthError).hint).toBe('run `svc auth login`');
    expect((error as AuthError).message).not.toContain('rt-old');
    expect(secrets.dump()[`refresh-token/${RECORD.merchant_id}`]).toBeUndefined();
  });
});

describe('grant flow tokens', () => {
  const profiles = { local: { grants: [GRANT] } };

  it('requests client-credentials tokens per Grant and scope, with expiry from the clock', async () => {
    const { f, pool } = make({ profiles, secrets: { 'client-secret': CLIENT_SECRET } });
    let body: Record<string, string> = {};
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply((req) => {
      body = JSON.parse(String(req.body)) as Record<string, string>;
      return tokenResponse('tok-1');
    });
    const token = await issueToken(f, {});
    expect(body).toEqual({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, grant_id: GRANT.grant_id, scope: 'write_receipts' });
    expect(token).toEqual({
      access_token: 'tok-1',
      token_type: 'bearer',
      expires_at: new Date(NOW + 900_000).toISOString(),
      scope: 'write_receipts',
      grant_id: GRANT.grant_id,
    });
  });

  it('after a 401 gets one new token and retries once', async () => {
    const { f, pool, secrets } = make({ profiles, secrets: { 'client-secret': CLIENT_SECRET } });
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse('tok-1'));
    pool.intercept({ path: '/credit-note', method: 'GET', headers: { authorization: 'Bearer tok-1' } }).reply(() => errorResponse(401, 'invalid_token'));
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse('tok-2'));
    pool.intercept({ path: '/credit-note', method: 'GET', headers: { authorization: 'Bearer tok-2' } }).reply(() => json([]));
    const api = await f.api();
    const auth = await tokenSourceFor(f);
    await expect(api.request({ method: 'GET', path: '/credit-note', auth })).resolves.toEqual([]);
    expect(JSON.parse(secrets.dump()[`token/${GRANT.grant_id}`] ?? '{}').write_receipts.access_token).toBe('tok-2');
  });

  it('turns a refused client into exit 4 with a hint about the secret', async () => {
    const { f, pool } = make({ profiles, secrets: { 'client-secret': 'wrong' } });
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => errorResponse(401, 'invalid_client'));
    const error = await rejection(issueToken(f, {}));
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).hint).toMatch(/set-secret/);
  });

  it('works from the environment alone (CI): SVC_GRANT_ID and SVC_CLIENT_SECRET, nothing stored', async () => {
    const { f, pool } = make({ env: { SVC_GRANT_ID: 'g-ci', SVC_CLIENT_SECRET: 'cs-env' } });
    let body: Record<string, string> = {};
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply((req) => {
      body = JSON.parse(String(req.body)) as Record<string, string>;
      return tokenResponse('tok-ci');
    });
    expect((await issueToken(f, {})).access_token).toBe('tok-ci');
    expect(body).toMatchObject({ grant_id: 'g-ci', client_secret: 'cs-env' });
  });
});

describe('choosing the Grant', () => {
  const g = (id: string) => ({ ...GRANT, grant_id: id });
  const settingsWith = (env: Record<string, string>, grant?: string) =>
    resolveSettings({ flags: {}, env, config: memoryConfigStore({ local: grant ? { grant } : {} }) });

  it('--grant > SVC_GRANT_ID > the profile default > the only Grant', () => {
    const auth = { grants: [g('a'), g('b')], companies: [], grant: 'b' };
    expect(chooseGrant(auth, settingsWith({ SVC_GRANT_ID: 'env' }, 'b'), 'a')).toBe('a');
    expect(chooseGrant(auth, resolveSettings({ flags: { grant: 'a' }, env: { SVC_GRANT_ID: 'env' }, config: memoryConfigStore({ local: { grant: 'b' } }) }))).toBe('a');
    expect(chooseGrant(auth, settingsWith({ SVC_GRANT_ID: 'env' }, 'b'))).toBe('env');
    expect(chooseGrant(auth, settingsWith({}, 'b'))).toBe('b');
    expect(chooseGrant({ grants: [g('only')], companies: [], grant: undefined }, settingsWith({}))).toBe('only');
  });

  it('fails with exit 4 when there is no Grant, or several and no default', () => {
    const none = (() => {
      try {
        return chooseGrant({ grants: [], companies: [], grant: undefined }, settingsWith({}));
      } catch (error) {
        return error;
      }
    })();
    expect(none).toBeInstanceOf(AuthError);
    expect((none as AuthError).message).toBe('no Grant: run `svc auth login`');
    expect(() => chooseGrant({ grants: [g('a'), g('b')], companies: [], grant: undefined }, settingsWith({}))).toThrow(
      expect.objectContaining({ exitCode: ExitCode.auth, hint: expect.stringMatching(/svc grants use/) }),
    );
  });
});
