import { beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { SCOPES } from '../../src/contract/oauth.js';
import { createSandboxClock } from '../../src/sandbox/clock.js';
import type { Sandbox } from '../../src/sandbox/context.js';
import { bundledFixturePath, loadFixture } from '../../src/sandbox/fixture.js';
import { revokeGrant } from '../../src/sandbox/grants.js';
import { authorize, grantAndTokenForTests, issueAccessToken, isLiveToken, type Need } from '../../src/sandbox/guard.js';
import { HttpError, type RouteRequest } from '../../src/sandbox/router.js';
import { createSandboxState } from '../../src/sandbox/state.js';
import {
  FOODS,
  FOODS_API_KEY,
  FOODS_STORE,
  RETAIL,
  RETAIL_API_KEY,
  RETAIL_STORE_A,
  RETAIL_STORE_B,
  RETAIL_STORE_INACTIVE,
  START,
} from './oauth-helpers.js';

const fixture = await loadFixture(bundledFixturePath());

function newSandbox(): Sandbox {
  const clock = createSandboxClock(fixedClock(START));
  const state = createSandboxState(fixture);
  return { state, clock, autoApprove: false, version: 'test', startedAt: clock.iso(), stateSince: () => clock.iso(), persistent: false, log: () => {}, reset: () => state.reset() };
}

function request(headers: Record<string, string>): RouteRequest<any, any, any> {
  return { method: 'POST', path: '/x', params: {}, query: {}, headers, body: undefined, rawBody: Buffer.alloc(0) };
}

/** The HttpError `authorize` throws, as status and code. */
function refusal(sandbox: Sandbox, headers: Record<string, string>, need: Need): { status: number; code: string } {
  try {
    authorize(sandbox, request(headers), need);
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error('authorize let the call through');
}

describe('authorize', () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = newSandbox();
  });
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  it('lets a live token through, naming company, client, Grant and stores from the Grant', () => {
    const { token, grantId } = grantAndTokenForTests(sandbox, { companyId: RETAIL, scopes: ['write_receipts', 'read_stores'] });
    expect(authorize(sandbox, request(auth(token)), { scope: 'write_receipts' })).toEqual({
      via: 'token',
      companyId: RETAIL,
      clientId: 'app_sandbox_pos',
      grantId,
      scopes: ['write_receipts', 'read_stores'],
      storeIds: null,
    });
  });

  it('refuses a missing, malformed or unknown token with 401 invalid_token', () => {
    for (const headers of [{}, { authorization: 'Bearer' }, { authorization: 'Basic abc' }, auth('unknown')]) {
      expect(refusal(sandbox, headers, { scope: 'write_receipts' })).toEqual({ status: 401, code: 'invalid_token' });
    }
  });

  it('refuses an expired token by the sandbox clock', () => {
    const { token } = grantAndTokenForTests(sandbox, { companyId: RETAIL, scopes: ['write_receipts'] });
    sandbox.clock.advance(899);
    expect(() => authorize(sandbox, request(auth(token)), { scope: 'write_receipts' })).not.toThrow();
    sandbox.clock.advance(1);
    expect(refusal(sandbox, auth(token), { scope: 'write_receipts' })).toEqual({ status: 401, code: 'invalid_token' });
    expect(isLiveToken(sandbox, token)).toBe(false);
  });

  it('honours the lifetime given to issueAccessToken', () => {
    const { grantId } = grantAndTokenForTests(sandbox, { companyId: RETAIL, scopes: ['write_receipts'] });
    const issued = issueAccessToken(sandbox, { grantId }, 'write_receipts', 3600);
    expect(issued.expires_in).toBe(3600);
    sandbox.clock.advance(3599);
    expect(isLiveToken(sandbox, issued.access_token)).toBe(true);
    sandbox.clock.advance(1);
    expect(isLiveToken(sandbox, issued.access_token)).toBe(false);
  });

  it('refuses tokens of a revoked Grant, and only those', () => {
    const retail = grantAndTokenForTests(sandbox, { companyId: RETAIL, scopes: ['write_receipts'] });
    const foods = grantAndTokenForTests(sandbox, { companyId: FOODS, scopes: ['write_receipts'] });
    revokeGrant(sandbox, retail.grantId);
    expect(refusal(sandbox, auth(retail.token), { scope: 'write_receipts' })).toEqual({ status: 401, code: 'invalid_token' });
    expect(authorize(sandbox, request(auth(foods.token)), { scope: 'write_receipts' }).companyId).toBe(FOODS);
  });

  it('refuses a scope the token does not carry with 403 insufficient_scope', () => {
    const { token } = grantAndTokenForTests(sandbox, { companyId: RETAIL, scopes: ['read_stores'] });
    expect(refusal(sandbox, auth(token), { scope: 'write_receipts' })).toEqual({ status: 403, code: 'insufficient_scope' });
  });

  describe('stores', () => {
    it('ALL_STORES: any active store of the company, none of another company, no inactive one', () => {
      const { token } = grantAndTokenForTests(sandbox, { companyId: RETAIL, scopes: ['write_receipts'] });
      const need = (storeId: string | undefined) => ({ scope: 'write_receipts', storeId });
      expect(authorize(sandbox, request(auth(token)), need(RETAIL_STORE_B)).storeIds).toBeNull();
      expect(() => authorize(sandbox, request(auth(token)), need(undefined))).not.toThrow();
      for (const storeId of [FOODS_STORE, RETAIL_STORE_INACTIVE, '00000000-0000-4000-8000-000000000000']) {
        expect(refusal(sandbox, auth(token), need(storeId))).toEqual({ status: 403, code: 'grant_not_permitting' });
      }
    });

    it('SELECTED_STORES: storeId required where a request may carry one, and one of the active selected stores', () => {
      const { token } = grantAndTokenForTests(sandbox, { companyId: RETAIL, scopes: ['write_receipts'], storeIds: [RETAIL_STORE_A] });
      const caller = authorize(sandbox, request(auth(token)), { scope: 'write_receipts', storeId: RETAIL_STORE_A });
      expect(caller.storeIds).toEqual([RETAIL_STORE_A]);
      expect(refusal(sandbox, auth(token), { scope: 'write_receipts', storeId: RETAIL_STORE_B })).toEqual({ status: 403, code: 'grant_not_permitting' });
      expect(refusal(sandbox, auth(token), { scope: 'write_receipts', storeId: undefined })).toEqual({ status: 403, code: 'grant_not_permitting' });
      // A route whose requests never name a store does not pass the key at all.
      expect(() => authorize(sandbox, request(auth(token)), { scope: 'write_receipts' })).not.toThrow();
    });

    it('re-checks a store that became inactive after the Grant', () => {
      const { token } = grantAndTokenForTests(sandbox, { companyId: RETAIL, scopes: ['write_receipts'], storeIds: [RETAIL_STORE_A, RETAIL_STORE_B] });
      const store = sandbox.state.stores.get(RETAIL_STORE_A);
      if (!store) throw new Error('fixture store missing');
      store.isActive = false;
      expect(refusal(sandbox, auth(token), { scope: 'write_receipts', storeId: RETAIL_STORE_A })).toEqual({ status: 403, code: 'grant_not_permitting' });
      expect(authorize(sandbox, request(auth(token)), { scope: 'write_receipts', storeId: RETAIL_STORE_B }).storeIds).toEqual([RETAIL_STORE_B]);
    });
  });

  describe('X-API-Key', () => {
    it('is accepted only where the route allows it, as the key company with every scope', () => {
      expect(authorize(sandbox, request({ 'x-api-key': FOODS_API_KEY }), { scope: 'manage_client_applications', apiKey: true })).toEqual({
        via: 'api-key',
        companyId: FOODS,
        clientId: null,
        grantId: null,
        scopes: SCOPES,
        storeIds: null,
      });
      expect(refusal(sandbox, { 'x-api-key': FOODS_API_KEY }, { scope: 'write_receipts' })).toEqual({ status: 401, code: 'invalid_token' });
    });

    it('refuses an unknown key, and a store that is not an active one of the company', () => {
      expect(refusal(sandbox, { 'x-api-key': 'sk_sandbox_nope' }, { scope: 'write_receipts', apiKey: true })).toEqual({ status: 401, code: 'invalid_token' });
      expect(refusal(sandbox, { 'x-api-key': RETAIL_API_KEY }, { scope: 'write_receipts', apiKey: true, storeId: FOODS_STORE })).toEqual({ status: 403, code: 'grant_not_permitting' });
      expect(refusal(sandbox, { 'x-api-key': RETAIL_API_KEY }, { scope: 'write_receipts', apiKey: true, storeId: RETAIL_STORE_INACTIVE })).toEqual({ status: 403, code: 'grant_not_permitting' });
    });

    it('loses to a bearer token when both are sent', () => {
      const { token } = grantAndTokenForTests(sandbox, { companyId: RETAIL, scopes: ['write_receipts'] });
      const caller = authorize(sandbox, request({ ...auth(token), 'x-api-key': FOODS_API_KEY }), { scope: 'write_receipts', apiKey: true });
      expect(caller).toMatchObject({ via: 'token', companyId: RETAIL });
    });
  });
});
