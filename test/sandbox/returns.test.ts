// Return requests as customers' devices send them (sandbox triggers), encrypted for the
// receipt's issuer, queued for `GET /credit-note` and recorded as RETURN_REQUESTED.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ReturnRequest, type QueueItem } from '../../src/contract/returns.js';
import { ReturnRequestedData } from '../../src/contract/webhook.js';
import { decryptJson } from '../../src/crypto/hybrid.js';
import type { RecordedEvent } from '../../src/sandbox/events.js';
import { ALICE, BOB, FOODS, RETAIL, START, issueReceipt, startHarness, type Harness } from './receipt-helpers.js';
import {
  CLIENT_ID,
  QUEUE_ITEM_KEYS,
  RETAIL_API_KEY,
  apiKeyReceipt,
  integrationKeyPair,
  pendingRequest,
  triggerReturn,
  uploadIntegrationKey,
} from './return-helpers.js';

describe('return requests', () => {
  let h: Harness;
  let token: string;
  let privateKeyPem: string;
  let publicKey: string;
  let serviceReceiptId: string;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    await h.call('POST', '/sandbox/reset');
    ({ privateKeyPem, publicKey } = await uploadIntegrationKey(h));
    token = h.token();
    ({ serviceReceiptId } = await issueReceipt(h, token));
  });

  const poll = (as: { token?: string; headers?: Record<string, string> } = { token }) => h.call<QueueItem[]>('GET', '/credit-note', as);
  const open = (item: QueueItem, key = privateKeyPem) => decryptJson(item.encryptedCreditNoteInitiationRequest, item.encryptedSymmetricKey, key);
  const events = async (event?: string) =>
    (await h.call<RecordedEvent[]>('GET', `/sandbox/events${event ? `?event=${event}` : ''}`)).body;

  describe('POST /sandbox/receipts/{serviceReceiptId}/return-requests', () => {
    it('by default returns every line once as DAMAGED, for the original payment method, encrypted for the client application key', async () => {
      const answer = await triggerReturn(h, serviceReceiptId);
      expect(answer.status).toBe(201);
      const item = answer.body;
      expect(Object.keys(item).sort()).toEqual(QUEUE_ITEM_KEYS);
      expect(item).toMatchObject({ serviceReceiptId, publicKey, status: 'PENDING', createdAt: new Date(START).toISOString() });
      expect(item.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

      const plaintext = open(item);
      expect(ReturnRequest.safeParse(plaintext).success).toBe(true);
      expect(plaintext).toEqual({
        serviceReceiptId,
        receiptId: 'R-2030-0001',
        lineItems: [
          { productId: 'SKU-BEANS-1KG', quantity: 1, reasonCode: 'DAMAGED' },
          { productId: 'SKU-MUG', quantity: 1, reasonCode: 'DAMAGED' },
        ],
        refundPreference: 'ORIGINAL_PAYMENT_METHOD',
      });
    });

    it('takes items, reasons, a note and a refund preference; BANK_TRANSFER defaults to the customer\'s own account', async () => {
      const item = await pendingRequest(h, serviceReceiptId, {
        items: [
          { productId: 'SKU-MUG', quantity: 1, reasonCode: 'WRONG_ITEM', reasonDescription: 'ordered the blue one' },
          { productId: 'SKU-BEANS-1KG', quantity: 2 },
        ],
        reasonCode: 'NO_LONGER_NEEDED',
        refundPreference: 'BANK_TRANSFER',
        customerNote: 'Please refund to my account.',
      });
      expect(open(item)).toEqual({
        serviceReceiptId,
        receiptId: 'R-2030-0001',
        lineItems: [
          { productId: 'SKU-MUG', quantity: 1, reasonCode: 'WRONG_ITEM', reasonDescription: 'ordered the blue one' },
          { productId: 'SKU-BEANS-1KG', quantity: 2, reasonCode: 'NO_LONGER_NEEDED' },
        ],
        refundPreference: 'BANK_TRANSFER',
        refundBankAccount: { iban: 'DE89370400440532013000', accountHolder: 'Alice Example' },
        customerNote: 'Please refund to my account.',
      });
    });

    it('refuses what a valid return request cannot say: 400 naming the trigger\'s members', async () => {
      const cases: [unknown, string][] = [
        [{ items: [] }, 'items'],
        [{ items: [{ productId: 'SKU-MUG', quantity: 0 }] }, 'items.0.quantity'],
        [{ items: [{ productId: '', quantity: 1 }] }, 'items.0.productId'],
        [{ items: [{ productId: 'SKU-MUG', quantity: 1, reasonDescription: 'x'.repeat(1001) }] }, 'items.0.reasonDescription'],
        [{ customerNote: 'x'.repeat(1001) }, 'customerNote'],
        [{ refundPreference: 'CASH' }, 'refundPreference'],
        [{ refundPreference: 'STORE_CREDIT', refundBankAccount: { iban: 'DE89370400440532013000' } }, 'refundBankAccount'],
        [{ items: [{ productId: 'SKU-MUG', quantity: 'one' }] }, 'items.0.quantity'],
        // A mug is counted (C62): half of one is no return.
        [{ items: [{ productId: 'SKU-MUG', quantity: 0.5 }] }, 'items.0.quantity'],
      ];
      for (const [body, path] of cases) {
        const answer = await triggerReturn(h, serviceReceiptId, body);
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body).toMatchObject({ error: 'validation_failed', details: [expect.objectContaining({ path })] });
      }
      expect((await poll()).body).toEqual([]);
    });

    it('an unknown receipt is 404', async () => {
      const answer = await triggerReturn(h, '00000000-0000-4000-8000-000000000000');
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ error: 'not_found' });
    });

    it('refuses with 409 while the issuer has no registered public key, and queues nothing', async () => {
      h.running.state.clientApplications.get(CLIENT_ID)!.publicKey = null;
      const answer = await triggerReturn(h, serviceReceiptId);
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ error: 'issuer_key_missing' });
      expect(String(answer.body.error_description)).toContain(`the issuer (client application ${CLIENT_ID}) has no registered public key: run \`svc keys generate --upload\``);
      expect(await events()).toEqual([]);
    });

    it("a receipt issued with an API key is encrypted for the company's registered encryption key", async () => {
      const apiKeyIssued = await apiKeyReceipt(h, token, RETAIL, BOB);
      const item = await pendingRequest(h, apiKeyIssued);
      const company = h.running.state.fixture.companies.find((c) => c.id === RETAIL)!;
      expect(item.publicKey).toBe(company.encryptionKey!.publicKey);
      expect(open(item, company.encryptionKey!.privateKeyPem)).toMatchObject({ serviceReceiptId: apiKeyIssued, receiptId: 'R-2030-0001' });

      // A company without one: the same 409.
      const foods = await apiKeyReceipt(h, h.token(FOODS), FOODS, ALICE);
      expect((await triggerReturn(h, foods)).body).toMatchObject({ error: 'issuer_key_missing', error_description: expect.stringContaining(`company ${FOODS}`) });
    });

    it('records RETURN_REQUESTED with the queue item\'s ciphertext', async () => {
      const item = await pendingRequest(h, serviceReceiptId);
      const recorded = await events('RETURN_REQUESTED');
      expect(recorded).toHaveLength(1);
      expect(recorded[0]).toMatchObject({ event: 'RETURN_REQUESTED', companyId: RETAIL, clientId: CLIENT_ID });
      expect(recorded[0]?.data).toEqual({
        creditNoteInitiationRequest: {
          clientId: CLIENT_ID,
          companyId: RETAIL,
          created_at: item.createdAt,
          serviceReceiptId,
          publicKey,
          encryptedCreditNoteInitiationRequest: item.encryptedCreditNoteInitiationRequest,
          encryptedSymmetricKey: item.encryptedSymmetricKey,
        },
      });
      expect(ReturnRequestedData.safeParse(recorded[0]?.data).success).toBe(true);
      expect(await events('CREDIT_NOTE_CREATED')).toEqual([]);
    });
  });

  describe('GET /credit-note', () => {
    it('lists exactly the polling fields, oldest first', async () => {
      const first = await pendingRequest(h, serviceReceiptId);
      h.running.clock.advance(60);
      const second = await pendingRequest(h, serviceReceiptId, { items: [{ productId: 'SKU-MUG', quantity: 1 }] });
      const answer = await poll();
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual([first, second]);
      for (const item of answer.body) expect(Object.keys(item).sort()).toEqual(QUEUE_ITEM_KEYS);
      for (const absent of ['recipientId', 'returnRequestId', 'receiverType', 'encryptedCreditNote', 'encryptedCustomerDetails', 'encryptedCustomerAesKey', 'supplierPartyId'])
        expect(answer.raw).not.toContain(`"${absent}"`);
    });

    it("only the caller's: another company sees none; a client application only the requests of its receipts; the company all of its own", async () => {
      const oauthItem = await pendingRequest(h, serviceReceiptId);
      const apiKeyItem = await pendingRequest(h, await apiKeyReceipt(h, token, RETAIL, BOB));
      expect((await poll({ token: h.token(FOODS) })).body).toEqual([]);
      expect((await poll()).body).toEqual([oauthItem]);
      expect((await poll({ headers: { 'x-api-key': RETAIL_API_KEY } })).body).toEqual([oauthItem, apiKeyItem]);
    });

    it('needs write_receipts', async () => {
      expect((await poll({})).status).toBe(401);
      expect((await poll({ token: h.token(RETAIL, { scopes: ['read_stores'] }) })).status).toBe(403);
    });
  });

  describe('POST /sandbox/return-requests/bulk', () => {
    it('queues 10,000 valid requests fast, each with its own key, and polls them back', async () => {
      const count = 10_000;
      let started = performance.now();
      const bulk = await h.call<{ count: number; requestIds: string[] }>('POST', '/sandbox/return-requests/bulk', { body: { serviceReceiptId, count } });
      const createMs = performance.now() - started;
      expect(bulk.status).toBe(201);
      expect(bulk.body.count).toBe(count);
      expect(new Set(bulk.body.requestIds).size).toBe(count);

      started = performance.now();
      const answer = await poll();
      const pollMs = performance.now() - started;
      console.log(`bulk: created ${count} return requests in ${createMs.toFixed(0)} ms; GET /credit-note answered ${(answer.raw.length / 1e6).toFixed(1)} MB in ${pollMs.toFixed(0)} ms`);

      expect(answer.body.map((i) => i.requestId)).toEqual(bulk.body.requestIds);
      expect(new Set(answer.body.map((i) => i.encryptedSymmetricKey)).size).toBe(count);
      expect(answer.body.every((i) => i.status === 'PENDING')).toBe(true);
      const last = answer.body.at(-1)!;
      expect(ReturnRequest.safeParse(open(last)).success).toBe(true);
      // Load, not customers: no event per request.
      expect(await events('RETURN_REQUESTED')).toEqual([]);
    });

    it('validates like a single request', async () => {
      expect((await h.call('POST', '/sandbox/return-requests/bulk', { body: { serviceReceiptId, count: 0 } })).status).toBe(400);
      expect((await h.call('POST', '/sandbox/return-requests/bulk', { body: { serviceReceiptId: 'nope', count: 1 } })).status).toBe(404);
    });
  });

  it('keeps the private key of the integration out of everything the sandbox says', async () => {
    await pendingRequest(h, serviceReceiptId);
    const pair = await integrationKeyPair();
    const raw = (await poll()).raw + JSON.stringify(await events());
    expect(raw).not.toContain(pair.privateKeyPem.split('\n')[1]);
  });
});
