import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/api/client.js';
import { fixedClock } from '../../../src/clock.js';
import { run as cancel } from '../../../src/commands/sandbox/trigger-cancel.js';
import { run as returnRequest, triggerBody } from '../../../src/commands/sandbox/trigger-return-request.js';
import { decryptJson } from '../../../src/crypto/hybrid.js';
import { ApiError, NotFoundError } from '../../../src/errors.js';
import { createFactory } from '../../../src/factory.js';
import { testStreams } from '../../../src/io/test-streams.js';
import { START, issueReceipt, startHarness, type Harness } from '../../sandbox/receipt-helpers.js';
import { uploadIntegrationKey } from '../../sandbox/return-helpers.js';

describe('svc sandbox trigger return-request | cancel', () => {
  let h: Harness;
  let privateKeyPem: string;
  let serviceReceiptId: string;
  beforeAll(async () => {
    h = await startHarness();
    ({ privateKeyPem } = await uploadIntegrationKey(h));
    ({ serviceReceiptId } = await issueReceipt(h, h.token()));
  });
  afterAll(() => h.close());

  function harness(json = false) {
    const streams = testStreams({ json });
    const api = createApiClient({ baseUrl: h.running.url, io: streams.io, debug: false, clock: fixedClock(START) });
    const f = createFactory({ env: {}, globals: { json, input: false, debug: false, color: false }, io: streams.io, api });
    return { streams, f, close: () => api.close() };
  }

  it('maps the flags to the trigger body, checking --refund', () => {
    expect(triggerBody({ serviceReceiptId, item: ['A:1', 'B:2'], refund: 'bank_transfer', reason: 'defective', note: 'n' })).toEqual({
      items: [
        { productId: 'A', quantity: 1 },
        { productId: 'B', quantity: 2 },
      ],
      refundPreference: 'BANK_TRANSFER',
      reasonCode: 'DEFECTIVE',
      customerNote: 'n',
    });
    expect(() => triggerBody({ serviceReceiptId, refund: 'CASH' })).toThrow(/--refund: "CASH" is not one of ORIGINAL_PAYMENT_METHOD/);
  });

  it('prints the requestId, and the queue item with --json', async () => {
    const plain = harness();
    await returnRequest({ serviceReceiptId, item: ['SKU-MUG:1'], refund: 'STORE_CREDIT', reason: 'WRONG_ITEM', note: 'blue, not red' }, plain.f);
    await plain.close();
    const requestId = plain.streams.stdout().trim();
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(plain.streams.stderr()).toContain(`return request ${requestId} for receipt ${serviceReceiptId} is PENDING`);

    const json = harness(true);
    await returnRequest({ serviceReceiptId, refund: 'ORIGINAL_PAYMENT_METHOD' }, json.f);
    await json.close();
    const item = JSON.parse(json.streams.stdout()) as Record<string, string>;
    expect(item).toMatchObject({ serviceReceiptId, status: 'PENDING' });
    expect(decryptJson(String(item.encryptedCreditNoteInitiationRequest), String(item.encryptedSymmetricKey), privateKeyPem)).toMatchObject({
      lineItems: [{ productId: 'SKU-BEANS-1KG' }, { productId: 'SKU-MUG' }],
    });

    const polled = (await h.call<{ requestId: string; encryptedSymmetricKey: string; encryptedCreditNoteInitiationRequest: string }[]>('GET', '/credit-note', { token: h.token() })).body;
    const first = polled.find((i) => i.requestId === requestId)!;
    expect(decryptJson(first.encryptedCreditNoteInitiationRequest, first.encryptedSymmetricKey, privateKeyPem)).toMatchObject({
      lineItems: [{ productId: 'SKU-MUG', quantity: 1, reasonCode: 'WRONG_ITEM' }],
      refundPreference: 'STORE_CREDIT',
      customerNote: 'blue, not red',
    });
  });

  it('names an unknown receipt as not found', async () => {
    const t = harness();
    await expect(returnRequest({ serviceReceiptId: 'no-such-receipt' }, t.f)).rejects.toThrow(NotFoundError);
    await t.close();
  });

  it('cancels a pending request; a decided one is a conflict; an unknown one not found', async () => {
    const { requestId } = (await h.call<{ requestId: string }>('POST', `/sandbox/receipts/${serviceReceiptId}/return-requests`)).body;
    const t = harness();
    await cancel({ requestId }, t.f);
    expect(t.streams.stdout()).toContain(`return request ${requestId} is CANCELLED`);

    const json = harness(true);
    await cancel({ requestId }, json.f);
    expect(JSON.parse(json.streams.stdout())).toMatchObject({ requestId, status: 'CANCELLED' });

    const decided = (await h.call<{ requestId: string }>('POST', `/sandbox/receipts/${serviceReceiptId}/return-requests`)).body.requestId;
    await h.call('PATCH', `/credit-note/requests/${decided}/status`, { token: h.token(), body: { status: 'REJECTED' } });
    await expect(cancel({ requestId: decided }, t.f)).rejects.toMatchObject({ status: 409, exitCode: 7 });
    await expect(cancel({ requestId: decided }, t.f)).rejects.toThrow(ApiError);
    await expect(cancel({ requestId: 'no-such-request' }, t.f)).rejects.toThrow(NotFoundError);
    await t.close();
    await json.close();
  });
});
