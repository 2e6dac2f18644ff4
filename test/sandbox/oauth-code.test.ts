import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findAccessToken } from '../../src/sandbox/grants.js';
import {
  bearer,
  CLIENT,
  clientCredentials,
  codeFor,
  FOODS,
  pkce,
  REDIRECT_URI,
  RETAIL,
  START,
  startOAuthSandbox,
  type OAuthHarness,
} from './oauth-helpers.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe('authorization codes', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthSandbox();
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());

  const exchange = (code: string, verifier: string | undefined, client: Record<string, string> = CLIENT) =>
    h.post('/oauth2/authorization-code/exchange', { code, ...client, ...(verifier === undefined ? {} : { code_verifier: verifier }) });
  const codeToken = (code: string, verifier: string | undefined, redirectUri = REDIRECT_URI) =>
    h.post('/oauth2/token', {
      grant_type: 'authorization_code',
      code,
      ...CLIENT,
      redirect_uri: redirectUri,
      ...(verifier === undefined ? {} : { code_verifier: verifier }),
    });
  const validate = async (token: string) => (await h.get('/oauth2/token/validate', bearer(token))).body;

  describe('POST /oauth2/authorization-code/exchange', () => {
    it('gives one Grant per approved company, version 1, with the company identity', async () => {
      const p = pkce();
      const answer = await exchange(await codeFor(h, p, { [RETAIL]: 'all', [FOODS]: 'all' }), p.verifier);
      expect(answer.status).toBe(200);
      const grants = answer.body.grants as Record<string, unknown>[];
      expect(grants).toEqual([
        {
          grant_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
          grant_version: 1,
          issuer_company_id: RETAIL,
          company_legal_name: 'Example Retail Ltd',
          tax_id: 'EU000000001',
          scopes: ['write_receipts', 'read_stores'],
          store_ids: [],
          store_access_mode: 'ALL_STORES',
        },
        expect.objectContaining({ issuer_company_id: FOODS, company_legal_name: 'Sample Foods GmbH', tax_id: 'EU000000002' }),
      ]);
      expect(grants[0]?.grant_id).not.toBe(grants[1]?.grant_id);
    });

    it('accepts a form-encoded body too', async () => {
      const p = pkce();
      const code = await codeFor(h, p);
      const answer = await h.post('/oauth2/authorization-code/exchange', { code, ...CLIENT, code_verifier: p.verifier }, { form: true });
      expect(answer.status).toBe(200);
    });

    it('refuses a wrong or missing verifier with invalid_grant, and the code still works afterwards', async () => {
      const p = pkce();
      const code = await codeFor(h, p);
      for (const verifier of [pkce().verifier, undefined, 'too-short', p.challenge]) {
        const answer = await exchange(code, verifier);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ error: 'invalid_grant', timestamp: iso(START) });
      }
      expect((await exchange(code, p.verifier)).status).toBe(200);
    });

    it('refuses bad client credentials with 401 invalid_client, leaving the code usable', async () => {
      const p = pkce();
      const code = await codeFor(h, p);
      for (const client of [
        { client_id: CLIENT.client_id, client_secret: 'cs_wrong_secret_0000000000000000' },
        { client_id: 'app_nobody', client_secret: CLIENT.client_secret },
        { client_id: 'app_sandbox_pending', client_secret: CLIENT.client_secret },
      ]) {
        const answer = await exchange(code, p.verifier, client);
        expect(answer.status).toBe(401);
        expect(answer.body.error).toBe('invalid_client');
      }
      expect((await exchange(code, p.verifier)).status).toBe(200);
    });

    it('refuses an unknown code', async () => {
      expect((await exchange('no-such-code', pkce().verifier)).body.error).toBe('invalid_grant');
    });

    it('expires a code after 60 s by the sandbox clock', async () => {
      const p = pkce();
      const early = await codeFor(h, p);
      await h.advance(59);
      expect((await exchange(early, p.verifier)).status).toBe(200);
      const late = await codeFor(h, p);
      await h.advance(60);
      const answer = await exchange(late, p.verifier);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/expired/) });
    });

    it('refuses a second redemption and revokes what the first produced', async () => {
      const p = pkce();
      const code = await codeFor(h, p);
      const [grant] = (await exchange(code, p.verifier)).body.grants;
      const token = (await clientCredentials(h, grant.grant_id, 'write_receipts')).body.access_token;
      expect(await validate(token)).toBe(true);

      const again = await exchange(code, p.verifier);
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
      expect(await validate(token)).toBe(false);
      expect((await clientCredentials(h, grant.grant_id, 'write_receipts')).body.error).toBe('invalid_grant');
    });
  });

  describe('POST /oauth2/token, authorization_code', () => {
    it('gives a token record per company: 1 h access, 30 days refresh', async () => {
      const p = pkce();
      const answer = await codeToken(await codeFor(h, p, { [RETAIL]: 'all', [FOODS]: 'all' }), p.verifier);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual([
        {
          access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          token_type: 'AUTHORIZATION_CODE',
          expires_at: iso(START + 3600_000),
          refresh_expires_at: iso(START + 30 * 86_400_000),
          merchant_id: RETAIL,
          tax_id: 'EU000000001',
          company_legal_name: 'Example Retail Ltd',
          customer_id: null,
        },
        expect.objectContaining({ merchant_id: FOODS }),
      ]);
      const [record] = answer.body;
      expect(await validate(record.access_token)).toBe(true);
      await h.advance(3600);
      expect(await validate(record.access_token)).toBe(false);
    });

    it('requires the redirect URI of the authorization request, exactly', async () => {
      const p = pkce();
      const code = await codeFor(h, p);
      const answer = await codeToken(code, p.verifier, 'http://127.0.0.1:8765/callback/');
      expect(answer.body.error).toBe('invalid_grant');
      expect((await codeToken(code, p.verifier)).status).toBe(200);
    });

    it('checks the verifier (extension) and leaves the code usable after a wrong one', async () => {
      const p = pkce();
      const code = await codeFor(h, p);
      expect((await codeToken(code, undefined)).body.error).toBe('invalid_grant');
      expect((await codeToken(code, pkce().verifier)).body.error).toBe('invalid_grant');
      expect((await codeToken(code, p.verifier)).status).toBe(200);
    });

    it('refuses reuse and revokes the tokens the first redemption gave', async () => {
      const p = pkce();
      const code = await codeFor(h, p);
      const [record] = (await codeToken(code, p.verifier)).body;
      expect((await codeToken(code, p.verifier)).body.error).toBe('invalid_grant');
      expect(await validate(record.access_token)).toBe(false);
      expect((await refresh(record.refresh_token)).body.error).toBe('invalid_grant');
    });
  });

  const refresh = (refreshToken: string) =>
    h.post('/oauth2/refresh', { grant_type: 'refresh_token', refresh_token: refreshToken, ...CLIENT });

  describe('POST /oauth2/refresh', () => {
    const login = async () => {
      const p = pkce();
      const [record] = (await codeToken(await codeFor(h, p), p.verifier)).body;
      return record as Record<string, string>;
    };

    it('rotates both tokens; the old ones stop working at once', async () => {
      const first = await login();
      await h.advance(600);
      const answer = await refresh(first.refresh_token ?? '');
      expect(answer.status).toBe(200);
      const second = answer.body;
      expect(second).toMatchObject({
        token_type: 'AUTHORIZATION_CODE',
        merchant_id: RETAIL,
        expires_at: iso(START + 600_000 + 3600_000),
        customer_id: null,
      });
      expect(second.access_token).not.toBe(first.access_token);
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect(await validate(first.access_token ?? '')).toBe(false);
      expect(await validate(second.access_token)).toBe(true);
      expect((await refresh(second.refresh_token)).status).toBe(200);
    });

    it('revokes the whole family when a rotated-out refresh token comes back (RFC 9700 §4.14.2)', async () => {
      const first = await login();
      const second = (await refresh(first.refresh_token ?? '')).body;
      const replay = await refresh(first.refresh_token ?? '');
      expect(replay.status).toBe(400);
      expect(replay.body.error).toBe('invalid_grant');
      expect(await validate(second.access_token)).toBe(false);
      expect((await refresh(second.refresh_token)).body.error).toBe('invalid_grant');
    });

    it('leaves other families alone', async () => {
      const mine = await login();
      const other = await login();
      await refresh(mine.refresh_token ?? '');
      await refresh(mine.refresh_token ?? '');
      expect(await validate(other.access_token ?? '')).toBe(true);
      expect((await refresh(other.refresh_token ?? '')).status).toBe(200);
    });

    it('expires refresh tokens after 30 days', async () => {
      const record = await login();
      await h.advance(30 * 86_400);
      expect((await refresh(record.refresh_token ?? '')).body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/expired/) });
    });

    it('needs the client that the family belongs to, and its secret', async () => {
      const record = await login();
      const wrong = await h.post('/oauth2/refresh', {
        grant_type: 'refresh_token',
        refresh_token: record.refresh_token,
        client_id: CLIENT.client_id,
        client_secret: 'cs_wrong_secret_0000000000000000',
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error).toBe('invalid_client');
      expect((await refresh(record.refresh_token ?? '')).status).toBe(200);
    });

    it('refuses refresh tokens of a revoked Grant', async () => {
      const record = await login();
      const grantId = findAccessToken(h.sandbox, record.access_token ?? '')?.grantId;
      expect((await h.post(`/sandbox/grants/${grantId}/revoke`)).status).toBe(200);
      expect((await refresh(record.refresh_token ?? '')).body.error).toBe('invalid_grant');
      expect(await validate(record.access_token ?? '')).toBe(false);
    });
  });
});
