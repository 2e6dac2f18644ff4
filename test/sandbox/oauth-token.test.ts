import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { grantAndTokenForTests } from '../../src/sandbox/guard.js';
import {
  bearer,
  CLIENT,
  clientCredentials,
  FOODS,
  FOODS_STORE,
  grantsFor,
  RETAIL,
  RETAIL_STORE_A,
  RETAIL_STORE_B,
  RETAIL_STORE_INACTIVE,
  START,
  startOAuthSandbox,
  type OAuthHarness,
} from './oauth-helpers.js';

describe('POST /oauth2/token, client_credentials, and what its tokens reach', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthSandbox();
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());

  const validate = async (token: string) => (await h.get('/oauth2/token/validate', bearer(token))).body;
  const details = (grantId: string, token: string) => h.get(`/oauth2/grants/${grantId}`, bearer(token));

  it('issues a 900 s opaque bearer token for a Grant and a scope within it', async () => {
    const [grant] = await grantsFor(h);
    const answer = await clientCredentials(h, grant.grant_id, 'read_stores');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), token_type: 'bearer', expires_in: 900, scope: 'read_stores' });
    expect(answer.body).not.toHaveProperty('refresh_token');
    const form = await h.post('/oauth2/token', { grant_type: 'client_credentials', ...CLIENT, grant_id: grant.grant_id, scope: 'write_receipts read_stores' }, { form: true });
    expect(form.body.scope).toBe('write_receipts read_stores');
  });

  it('expires the token after 900 s by the sandbox clock', async () => {
    const [grant] = await grantsFor(h);
    const token = (await clientCredentials(h, grant.grant_id, 'read_stores')).body.access_token;
    await h.advance(899);
    expect(await validate(token)).toBe(true);
    expect((await details(grant.grant_id, token)).status).toBe(200);
    await h.advance(1);
    expect(await validate(token)).toBe(false);
    const expired = await details(grant.grant_id, token);
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ error: 'invalid_token', timestamp: new Date(START + 900_000).toISOString() });
    expect(expired.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('refuses a scope outside the Grant with invalid_scope', async () => {
    const [grant] = await grantsFor(h);
    for (const scope of ['company_access', 'write_receipts company_access', 'made_up']) {
      const answer = await clientCredentials(h, grant.grant_id, scope);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_scope');
    }
  });

  it('refuses an unknown Grant, or one of another client, with invalid_grant', async () => {
    expect((await clientCredentials(h, '00000000-0000-4000-8000-000000000000', 'read_stores')).body.error).toBe('invalid_grant');
    const app = h.running.state.clientApplications.get('app_sandbox_pending');
    if (!app) throw new Error('fixture client missing');
    Object.assign(app, { status: 'Approved', clientSecret: 'cs_other_client_000000000000000000' });
    const [grant] = await grantsFor(h);
    const answer = await h.post('/oauth2/token', {
      grant_type: 'client_credentials',
      client_id: app.id,
      client_secret: 'cs_other_client_000000000000000000',
      grant_id: grant.grant_id,
      scope: 'read_stores',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_grant');
  });

  it('refuses to let the client pick a company', async () => {
    const [grant] = await grantsFor(h);
    for (const name of ['company_id', 'merchant_id', 'issuer_company_id']) {
      const answer = await h.post('/oauth2/token', { grant_type: 'client_credentials', ...CLIENT, grant_id: grant.grant_id, scope: 'read_stores', [name]: FOODS });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_request');
    }
  });

  it('authenticates the client: 401 invalid_client', async () => {
    const [grant] = await grantsFor(h);
    const answer = await h.post('/oauth2/token', { grant_type: 'client_credentials', client_id: CLIENT.client_id, client_secret: 'nope', grant_id: grant.grant_id, scope: 'read_stores' });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('invalid_client');
  });

  describe('revoking a Grant', () => {
    it("affects only that company's Grant", async () => {
      const [retail, foods] = await grantsFor(h, { [RETAIL]: 'all', [FOODS]: 'all' });
      const retailToken = (await clientCredentials(h, retail.grant_id, 'read_stores')).body.access_token;
      const foodsToken = (await clientCredentials(h, foods.grant_id, 'read_stores')).body.access_token;

      const revoked = await h.post(`/sandbox/grants/${retail.grant_id}/revoke`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({
        grant_id: retail.grant_id,
        grant_version: 2,
        issuer_company_id: RETAIL,
        status: 'REVOKED',
        revokedAt: new Date(START).toISOString(),
      });

      const refused = await details(retail.grant_id, retailToken);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe('invalid_token');
      expect(await validate(retailToken)).toBe(false);
      const again = await clientCredentials(h, retail.grant_id, 'read_stores');
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');

      expect((await details(foods.grant_id, foodsToken)).status).toBe(200);
      expect((await clientCredentials(h, foods.grant_id, 'read_stores')).status).toBe(200);
    });

    it('is idempotent, and 404 for an unknown Grant', async () => {
      const [grant] = await grantsFor(h);
      await h.post(`/sandbox/grants/${grant.grant_id}/revoke`);
      expect((await h.post(`/sandbox/grants/${grant.grant_id}/revoke`)).body.grant_version).toBe(2);
      const unknown = await h.post('/sandbox/grants/00000000-0000-4000-8000-000000000000/revoke');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toBe('not_found');
    });
  });

  describe('GET /oauth2/token/validate', () => {
    it('answers a presented token true or false, 200 either way', async () => {
      const [grant] = await grantsFor(h);
      const token = (await clientCredentials(h, grant.grant_id, 'read_stores')).body.access_token;
      for (const [headers, expected] of [
        [bearer(token), true],
        [bearer('unknown'), false],
      ] as const) {
        const answer = await h.get('/oauth2/token/validate', headers);
        expect(answer.status).toBe(200);
        expect(answer.text).toBe(String(expected));
      }
    });

    it('answers no bearer token at all 401 invalid_token, as its bearer security says', async () => {
      const [grant] = await grantsFor(h);
      const token = (await clientCredentials(h, grant.grant_id, 'read_stores')).body.access_token;
      for (const headers of [{}, { authorization: `Basic ${token}` }] as Record<string, string>[]) {
        const answer = await h.get('/oauth2/token/validate', headers);
        expect(answer.status).toBe(401);
        expect(JSON.parse(answer.text)).toMatchObject({ error: 'invalid_token' });
      }
    });
  });

  describe('GET /oauth2/grants/{grant_id}', () => {
    it('lists only permitted, active stores of an ALL_STORES Grant', async () => {
      const [grant] = await grantsFor(h);
      const token = (await clientCredentials(h, grant.grant_id, 'read_stores')).body.access_token;
      const answer = await details(grant.grant_id, token);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        grant_id: grant.grant_id,
        grant_version: 1,
        company: { id: RETAIL, companyLegalName: 'Example Retail Ltd' },
        stores: [
          { id: RETAIL_STORE_A, storeName: expect.any(String), storeCode: expect.any(String), isActive: true },
          { id: RETAIL_STORE_B, storeName: expect.any(String), storeCode: expect.any(String), isActive: true },
        ],
        scopes: ['write_receipts', 'read_stores'],
        store_access_mode: 'ALL_STORES',
      });
      expect(answer.text).not.toContain(RETAIL_STORE_INACTIVE);
    });

    it('lists the selected stores, and drops one that has since become inactive', async () => {
      const [grant] = await grantsFor(h, { [RETAIL]: [RETAIL_STORE_A, RETAIL_STORE_B] });
      const token = (await clientCredentials(h, grant.grant_id, 'read_stores')).body.access_token;
      const store = h.running.state.stores.get(RETAIL_STORE_B);
      if (!store) throw new Error('fixture store missing');
      store.isActive = false;
      const answer = await details(grant.grant_id, token);
      expect(answer.body.store_access_mode).toBe('SELECTED_STORES');
      expect(answer.body.stores.map((s: { id: string }) => s.id)).toEqual([RETAIL_STORE_A]);
    });

    it('needs read_stores', async () => {
      const [grant] = await grantsFor(h);
      const token = (await clientCredentials(h, grant.grant_id, 'write_receipts')).body.access_token;
      const answer = await details(grant.grant_id, token);
      expect(answer.status).toBe(403);
      expect(answer.body.error).toBe('insufficient_scope');
    });

    it("refuses a token of another Grant, even the same client's", async () => {
      const [retail, foods] = await grantsFor(h, { [RETAIL]: 'all', [FOODS]: 'all' });
      const foodsToken = (await clientCredentials(h, foods.grant_id, 'read_stores')).body.access_token;
      const answer = await details(retail.grant_id, foodsToken);
      expect(answer.status).toBe(403);
      expect(answer.body.error).toBe('grant_not_permitting');
      expect(answer.text).not.toContain(FOODS_STORE);
    });

    it('needs a bearer token', async () => {
      const { grantId } = grantAndTokenForTests(h.sandbox, { companyId: RETAIL, scopes: ['read_stores'] });
      const answer = await h.get(`/oauth2/grants/${grantId}`);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_token');
    });
  });
});

describe('rate limiting', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthSandbox({ rateLimit: { capacity: 3, refillPerSecond: 0.5 } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());

  it('answers 429 rate_limited with Retry-After once a client spends its burst, and refills by the sandbox clock', async () => {
    const { grantId, token } = grantAndTokenForTests(h.sandbox, { companyId: RETAIL, scopes: ['read_stores'] });
    for (let i = 0; i < 3; i++) expect((await h.get(`/oauth2/grants/${grantId}`, bearer(token))).status).toBe(200);
    const limited = await h.get(`/oauth2/grants/${grantId}`, bearer(token));
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toBe('2');
    // The token endpoint counts the same client, named by client_id.
    expect((await clientCredentials(h, grantId, 'read_stores')).status).toBe(429);

    await h.advance(2);
    expect((await h.get(`/oauth2/grants/${grantId}`, bearer(token))).status).toBe(200);
    expect((await h.get(`/oauth2/grants/${grantId}`, bearer(token))).status).toBe(429);
  });

  it('counts each client and each API-key company apart, and leaves anonymous requests alone', async () => {
    const { grantId, token } = grantAndTokenForTests(h.sandbox, { companyId: RETAIL, scopes: ['read_stores'] });
    for (let i = 0; i < 4; i++) await h.get(`/oauth2/grants/${grantId}`, bearer(token));
    expect((await h.get(`/oauth2/grants/${grantId}`, bearer(token))).status).toBe(429);
    const apiKeyCall = await h.get('/client-application/app_sandbox_pos/public-key', { 'x-api-key': 'sk_sandbox_example_retail_7c1e4b9a2f6d4e0b8a3c5d7e9f1a2b3c' });
    expect(apiKeyCall.status).toBe(404);
    for (let i = 0; i < 5; i++) expect((await h.get('/sandbox/health')).status).toBe(200);
  });

  it("keeps one bucket per client and company (docs/interface-decisions.md#rate-limits-in-the-sandbox): one company's spent burst leaves the client's other Grants served", async () => {
    const retail = grantAndTokenForTests(h.sandbox, { companyId: RETAIL, scopes: ['read_stores'] });
    const foods = grantAndTokenForTests(h.sandbox, { companyId: FOODS, scopes: ['read_stores'] });
    for (let i = 0; i < 3; i++) expect((await h.get(`/oauth2/grants/${retail.grantId}`, bearer(retail.token))).status).toBe(200);
    expect((await h.get(`/oauth2/grants/${retail.grantId}`, bearer(retail.token))).status).toBe(429);
    // A token request names its Grant, so it draws from that Grant's bucket.
    expect((await clientCredentials(h, retail.grantId, 'read_stores')).status).toBe(429);
    expect((await h.get(`/oauth2/grants/${foods.grantId}`, bearer(foods.token))).status).toBe(200);
    expect((await clientCredentials(h, foods.grantId, 'read_stores')).status).toBe(200);
  });

  it("never counts negative time: after the clock is advanced an hour and reset, the next call is served", async () => {
    const { grantId, token } = grantAndTokenForTests(h.sandbox, { companyId: RETAIL, scopes: ['read_stores'] });
    h.running.clock.advance(3600);
    // The first token has expired by then; a token request still draws from the bucket.
    expect((await clientCredentials(h, grantId, 'read_stores')).status).toBe(200);
    h.running.clock.reset();
    const after = await h.get(`/oauth2/grants/${grantId}`, bearer(token));
    expect(after.text).not.toMatch(/retry after 3\d{3} s/);
    expect(after.status).toBe(200);
    // And the burst is still the burst: two more, then the limit, with a short Retry-After.
    expect((await h.get(`/oauth2/grants/${grantId}`, bearer(token))).status).toBe(200);
    const limited = await h.get(`/oauth2/grants/${grantId}`, bearer(token));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
  });
});
