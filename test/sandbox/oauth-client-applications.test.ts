import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { grantAndTokenForTests } from '../../src/sandbox/guard.js';
import { bearer, FOODS, FOODS_API_KEY, RETAIL, RETAIL_API_KEY, START, startOAuthSandbox, type OAuthHarness } from './oauth-helpers.js';

const spki = (modulusLength: number) =>
  generateKeyPairSync('rsa', { modulusLength }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const KEY = spki(2048);
const OTHER_KEY = spki(2048);
const PATH = '/client-application/app_sandbox_pos/public-key';

describe('/client-application/{clientApplicationId}/public-key', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthSandbox();
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());

  const owner = { 'x-api-key': RETAIL_API_KEY };
  const upload = (keyData: unknown, headers: Record<string, string> = owner, algorithm: unknown = 'RSA_2048') =>
    h.post(PATH, { keyData, algorithm }, { headers });

  it('has none until one is uploaded: 404', async () => {
    const answer = await h.get(PATH, owner);
    expect(answer.status).toBe(404);
    expect(answer.body.error).toBe('not_found');
  });

  it("uploads with the owner company's API key (201), then returns it; the same key again is 200 and unchanged", async () => {
    const created = await upload(KEY);
    expect(created.status).toBe(201);
    const record = { keyData: KEY, algorithm: 'RSA_2048', uploadedAt: new Date(START).toISOString() };
    expect(created.body).toEqual(record);
    expect((await h.get(PATH, owner)).body).toEqual(record);
    await h.advance(60);
    expect(await upload(KEY)).toMatchObject({ status: 200, body: record });
    expect(h.running.state.clientApplications.get('app_sandbox_pos')?.publicKey).toEqual(record);
  });

  it('replaces a key with another (200, new upload time)', async () => {
    await upload(KEY);
    await h.advance(60);
    const replaced = await upload(OTHER_KEY);
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ keyData: OTHER_KEY, algorithm: 'RSA_2048', uploadedAt: new Date(START + 60_000).toISOString() });
  });

  it('works with a bearer token of a Grant of this application with manage_client_applications', async () => {
    const { token } = grantAndTokenForTests(h.sandbox, { companyId: FOODS, scopes: ['manage_client_applications'] });
    expect((await upload(KEY, bearer(token))).status).toBe(201);
    expect((await h.get(PATH, bearer(token))).body.keyData).toBe(KEY);
  });

  it('refuses a token without manage_client_applications (403) and an unknown token (401)', async () => {
    const { token } = grantAndTokenForTests(h.sandbox, { companyId: RETAIL, scopes: ['write_receipts'] });
    expect((await h.get(PATH, bearer(token))).body.error).toBe('insufficient_scope');
    expect((await h.get(PATH, bearer('unknown'))).status).toBe(401);
    expect((await h.get(PATH)).status).toBe(401);
    expect((await h.get(PATH, { 'x-api-key': 'sk_sandbox_unknown' })).status).toBe(401);
  });

  it("answers 404 to another company's API key and for an unknown application", async () => {
    expect((await upload(KEY, { 'x-api-key': FOODS_API_KEY })).status).toBe(404);
    expect((await h.get('/client-application/app_sandbox_rejected/public-key', owner)).status).toBe(404);
    expect((await h.get('/client-application/app_nobody/public-key', owner)).status).toBe(404);
    expect(h.running.state.clientApplications.get('app_sandbox_pos')?.publicKey).toBeNull();
  });

  it('refuses what is not a strict Base64 DER SPKI of an RSA 2048 key', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    for (const keyData of [KEY.slice(0, -4), `${KEY}\n`, `${KEY.slice(0, 10)}_${KEY.slice(11)}`, Buffer.from('not a key').toString('base64'), ec, spki(1024), '']) {
      const answer = await upload(keyData);
      expect(answer.status, keyData.slice(-8)).toBe(400);
      expect(answer.body).toMatchObject({ error: 'validation_failed', details: [expect.objectContaining({ path: 'keyData' })] });
    }
    expect((await upload(KEY, owner, 'RSA_4096')).body.details).toEqual([expect.objectContaining({ path: 'algorithm' })]);
  });
});
