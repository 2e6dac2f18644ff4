// The return request state table of docs/interface-decisions.md#return-request-moves, every cell of it: the issuer's moves
// through PATCH, the customer's cancel through the sandbox trigger, and what is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueItemStatus, SettableQueueItemStatus } from '../../src/contract/returns.js';
import { FOODS, START, issueReceipt, startHarness, type Harness } from './receipt-helpers.js';
import { FOODS_API_KEY, RETAIL_API_KEY, pendingRequest, uploadIntegrationKey } from './return-helpers.js';

const SETTABLE: readonly SettableQueueItemStatus[] = ['ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED', 'COMPLETED'];
const ALLOWED: Readonly<Record<QueueItemStatus, readonly SettableQueueItemStatus[]>> = {
  PENDING: ['ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED'],
  ACCEPTED: ['COMPLETED'],
  PARTIALLY_ACCEPTED: ['COMPLETED'],
  REJECTED: [],
  COMPLETED: [],
  CANCELLED: [],
};
const STATES = Object.keys(ALLOWED) as QueueItemStatus[];

describe('return request states', () => {
  let h: Harness;
  let token: string;
  let serviceReceiptId: string;
  beforeAll(async () => {
    h = await startHarness();
    await uploadIntegrationKey(h);
    token = h.token();
    ({ serviceReceiptId } = await issueReceipt(h, token));
  });
  afterAll(() => h.close());

  const patch = (requestId: string, status: string, as: { token?: string; headers?: Record<string, string> } = { token }) =>
    h.call('PATCH', `/credit-note/requests/${requestId}/status`, { ...as, body: { status } });
  const cancel = (requestId: string) => h.call('POST', `/sandbox/return-requests/${requestId}/cancel`);

  /** A fresh request brought into `state` the way the issuer and the customer can. */
  async function requestIn(state: QueueItemStatus): Promise<string> {
    const { requestId } = await pendingRequest(h, serviceReceiptId);
    const path: Record<QueueItemStatus, string[]> = {
      PENDING: [],
      ACCEPTED: ['ACCEPTED'],
      PARTIALLY_ACCEPTED: ['PARTIALLY_ACCEPTED'],
      REJECTED: ['REJECTED'],
      COMPLETED: ['ACCEPTED', 'COMPLETED'],
      CANCELLED: [],
    };
    for (const step of path[state]) expect((await patch(requestId, step)).status).toBe(200);
    if (state === 'CANCELLED') expect((await cancel(requestId)).status).toBe(200);
    return requestId;
  }

  const cells = STATES.flatMap((from) => SETTABLE.map((to) => ({ from, to })));

  it.each(cells)('$from → $to', async ({ from, to }) => {
    const requestId = await requestIn(from);
    const before = h.running.clock.iso();
    h.running.clock.advance(1);
    const answer = await patch(requestId, to);
    if (from === to) {
      // A retry: the same answer, the time of the first move kept.
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ requestId, status: to, updatedAt: before });
    } else if (ALLOWED[from].includes(to)) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ requestId, status: to, updatedAt: h.running.clock.iso() });
    } else {
      expect(answer.status).toBe(409);
      const allowed = ALLOWED[from].length > 0 ? ALLOWED[from].join(', ') : 'none';
      expect(answer.body).toMatchObject({ error: 'invalid_transition', error_description: `request is ${from}; allowed: ${allowed}` });
    }
  });

  it('the poll shows the status each request is in', async () => {
    const requestId = await requestIn('PARTIALLY_ACCEPTED');
    const items = (await h.call<{ requestId: string; status: string }[]>('GET', '/credit-note', { token })).body;
    expect(items.find((i) => i.requestId === requestId)?.status).toBe('PARTIALLY_ACCEPTED');
  });

  it('PENDING and CANCELLED are not the issuer\'s to set: 400, and the request is unchanged', async () => {
    const requestId = await requestIn('PENDING');
    for (const status of ['CANCELLED', 'PENDING', 'accepted', 'DONE']) {
      const answer = await patch(requestId, status);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'validation_failed', details: [{ path: 'status' }] });
    }
    expect((await patch(requestId, 'ACCEPTED')).status).toBe(200);
  });

  describe('the customer cancels (sandbox trigger)', () => {
    it('PENDING → CANCELLED, and a repeat is the same answer', async () => {
      const requestId = await requestIn('PENDING');
      const first = await cancel(requestId);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ requestId, status: 'CANCELLED', updatedAt: expect.any(String) });
      h.running.clock.advance(5);
      expect((await cancel(requestId)).body).toEqual(first.body);
    });

    it.each(['ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED', 'COMPLETED'] as const)('refuses from %s, naming it', async (from) => {
      const requestId = await requestIn(from);
      const answer = await cancel(requestId);
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ error: 'invalid_transition', error_description: `request is ${from}; only a PENDING request can be cancelled` });
    });

    it('an unknown request is 404', async () => {
      expect((await cancel('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    });
  });

  describe('who may change a request', () => {
    it("another company's request reads as not found, and stays as it was", async () => {
      const requestId = await requestIn('PENDING');
      for (const as of [{ token: h.token(FOODS) }, { headers: { 'x-api-key': FOODS_API_KEY } }]) {
        const answer = await patch(requestId, 'ACCEPTED', as);
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({ error: 'not_found' });
      }
      const unknown = await patch('00000000-0000-4000-8000-000000000000', 'ACCEPTED');
      expect(unknown.status).toBe(404);
      expect((await patch(requestId, 'REJECTED')).status).toBe(200);
    });

    it("the company's own API key may decide on its integrations' requests", async () => {
      const requestId = await requestIn('PENDING');
      expect((await patch(requestId, 'ACCEPTED', { headers: { 'x-api-key': RETAIL_API_KEY } })).body).toMatchObject({ status: 'ACCEPTED' });
    });

    it('needs a live token with write_receipts', async () => {
      const requestId = await requestIn('PENDING');
      expect((await patch(requestId, 'ACCEPTED', {})).status).toBe(401);
      expect((await patch(requestId, 'ACCEPTED', { token: h.token(undefined, { scopes: ['read_stores'] }) })).status).toBe(403);
    });
  });

  it('stamps updatedAt with the sandbox clock', async () => {
    const requestId = await requestIn('PENDING');
    expect(new Date(String((await patch(requestId, 'REJECTED')).body.updatedAt)).getTime()).toBeGreaterThan(START);
  });
});
