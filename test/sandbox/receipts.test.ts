import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Recipient } from '../../src/contract/recipient.js';
import type { SandboxDelivery } from '../../src/contract/sandbox-inspect.js';
import type { UblDocument } from '../../src/contract/template.js';
import { documentHash } from '../../src/crypto/hash.js';
import { generateKeyPair } from '../../src/crypto/keys.js';
import { findReceipt } from '../../src/sandbox/receipts.js';
import {
  ALICE,
  CUSTOMER,
  RETAIL,
  START,
  finalDocument,
  receiptEntries,
  startHarness,
  templateRequest,
  type Harness,
  type Resolved,
} from './receipt-helpers.js';

describe('POST /receipt/encrypted', () => {
  let h: Harness;
  let token: string;
  let template: UblDocument;
  let templateHash: string;
  let match: Resolved;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    await h.call('POST', '/sandbox/reset');
    token = h.token();
    template = (await h.call<UblDocument>('POST', '/receipt/template', { token, body: templateRequest() })).body;
    templateHash = documentHash(template);
    match = (await h.call<Resolved>('POST', '/recipient/resolve', { token, body: { email: 'alice@example.com' } })).body;
  });

  const submit = (encryptedReceipts: unknown[], extra: Record<string, unknown> = {}) =>
    h.call('POST', '/receipt/encrypted', { token, body: { matchId: match.matchId, templateHash, encryptedReceipts, ...extra } });
  const deliveries = async (serviceReceiptId?: string) =>
    (await h.call<SandboxDelivery[]>('GET', `/sandbox/deliveries${serviceReceiptId ? `?serviceReceiptId=${serviceReceiptId}` : ''}`)).body;
  // The sandbox context the store functions take; only state is read.
  const sandboxView = () => ({ state: h.running.state }) as Parameters<typeof findReceipt>[0];

  it("delivers to all three of Alice's devices: each decrypts, and the final hash matches", async () => {
    const entries = receiptEntries(template, match.recipients);
    const { status, body } = await submit(entries);
    expect(status).toBe(201);
    expect(body).toEqual({ serviceReceiptId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4/), templateHash, createdAt: new Date(START).toISOString() });
    const serviceReceiptId = String(body.serviceReceiptId);

    const seen = await deliveries(serviceReceiptId);
    expect(seen).toEqual(
      entries.map((entry) => ({
        serviceReceiptId,
        kind: 'RECEIPT',
        recipientId: entry.recipientId,
        customerId: ALICE,
        status: 'DELIVERED',
        hashMatches: true,
        deliveredAt: new Date(START).toISOString(),
        entry,
      })),
    );
    // Ciphertexts only: nothing of the plaintext is exposed.
    const raw = JSON.stringify(seen);
    for (const plain of ['Coffee beans', CUSTOMER.address.split('\n')[0] ?? '', 'R-2030-0001']) expect(raw).not.toContain(plain);

    const receipt = findReceipt(sandboxView(), serviceReceiptId, RETAIL);
    expect(receipt).toMatchObject({ customerId: ALICE, templateHash, deviceIds: match.recipients.map((r) => r.recipientId) });
    expect(receipt?.stored.size).toBe(3);
    for (const stored of receipt?.stored.values() ?? []) {
      expect(stored.document).toEqual(finalDocument(template));
      expect(stored.customerDetails).toEqual(CUSTOMER);
    }
  });

  it('records UNDECRYPTABLE for a device whose entry was sealed for another key, and still accepts the submission', async () => {
    const stranger = await generateKeyPair();
    const wrongFor = match.recipients[1]?.recipientId;
    const entries = receiptEntries(template, match.recipients, {
      encryptFor: (r: Recipient) => (r.recipientId === wrongFor ? stranger.publicKey : r.publicKey),
    });
    const { status, body } = await submit(entries);
    expect(status).toBe(201);
    const seen = await deliveries(String(body.serviceReceiptId));
    expect(seen.map((d) => [d.recipientId, d.status])).toEqual(match.recipients.map((r) => [r.recipientId, r.recipientId === wrongFor ? 'UNDECRYPTABLE' : 'DELIVERED']));
    const failed = seen.find((d) => d.status === 'UNDECRYPTABLE');
    expect(failed?.reason).toBe('encryptedReceipt: cannot decrypt: the wrapped key does not open with this private key');
    expect(failed?.hashMatches).toBeUndefined();
    expect(findReceipt(sandboxView(), String(body.serviceReceiptId), RETAIL)?.stored.has(wrongFor ?? '')).toBe(false);
  });

  it("names the key when an entry's publicKey is not the device's", async () => {
    const stranger = await generateKeyPair();
    const entries = receiptEntries(template, match.recipients).map((e, i) => (i === 0 ? { ...e, publicKey: stranger.publicKey } : e));
    const { body } = await submit(entries);
    const [first] = await deliveries(String(body.serviceReceiptId));
    expect(first).toMatchObject({ status: 'UNDECRYPTABLE', reason: expect.stringMatching(/^encryptedReceipt: cannot decrypt: no private key matches the item's public key /) });
  });

  it('records hashMatches false when the final hash is not of the decrypted document, and leaves it out without one', async () => {
    const wrong = await submit(receiptEntries(template, match.recipients, { finalHash: documentHash(template) }));
    expect((await deliveries(String(wrong.body.serviceReceiptId))).map((d) => d.hashMatches)).toEqual([false, false, false]);

    const entries = receiptEntries(template, match.recipients).map(({ finalHash: _h, ...entry }) => entry);
    const without = await submit(entries);
    expect(without.status).toBe(201);
    const seen = await deliveries(String(without.body.serviceReceiptId));
    expect(seen.every((d) => d.status === 'DELIVERED' && !('hashMatches' in d))).toBe(true);
  });

  it('records unusable customer details as UNDECRYPTABLE too', async () => {
    const { encryptJson } = await import('../../src/crypto/hybrid.js');
    const entries = receiptEntries(template, match.recipients).map((entry, i) => {
      if (i !== 2) return entry;
      const recipient = match.recipients[2];
      const details = encryptJson({ email: 'not an email' }, recipient?.publicKey ?? '');
      return { ...entry, encryptedCustomerDetails: details.ciphertext, encryptedCustomerAesKey: details.wrappedKey };
    });
    const { body } = await submit(entries);
    const third = (await deliveries(String(body.serviceReceiptId)))[2];
    expect(third).toMatchObject({ status: 'UNDECRYPTABLE', reason: 'encryptedCustomerDetails: not customer details (email must be an email address)' });
  });

  it('refuses entries that do not cover exactly the matched devices: 400 naming each problem', async () => {
    const [a, b, c] = receiptEntries(template, match.recipients);
    if (!a || !b || !c) throw new Error('three entries expected');
    const missing = await submit([a, b]);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      error: 'validation_failed',
      details: [{ path: 'encryptedReceipts', message: `has no entry for recipient ${c.recipientId}: encrypt for every recipient the match returned` }],
    });

    const bob = (await h.call<Resolved>('POST', '/recipient/resolve', { token, body: { email: 'bob@example.com' } })).body;
    const [stranger] = receiptEntries(template, bob.recipients);
    const wrong = await submit([a, b, a, { ...c, supplierPartyId: 'someone-else' }, stranger]);
    expect(wrong.body).toMatchObject({
      error: 'validation_failed',
      details: [
        { path: 'encryptedReceipts.2.recipientId', message: 'appears more than once: one entry per recipient' },
        { path: 'encryptedReceipts.3.supplierPartyId', message: "must be the template's accountingSupplierParty.partyIdentification[0].id.value" },
        { path: 'encryptedReceipts.4.recipientId', message: 'is not a recipient of this match' },
      ],
    });
    expect(await deliveries()).toEqual([]);
  });

  it('refuses a malformed submission with field paths, after checking the token', async () => {
    const noAuth = await h.call('POST', '/receipt/encrypted', { body: {} });
    expect(noAuth.status).toBe(401);
    const { status, body } = await submit([{ recipientId: 'x' }], { templateHash: 'ABC' });
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'validation_failed' });
    const paths = (body.details as { path: string }[]).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['templateHash', 'encryptedReceipts.0.encryptedReceipt', 'encryptedReceipts.0.publicKey', 'encryptedReceipts.0.supplierPartyId']));
  });

  it('lists deliveries of every receipt, oldest first, or of one; a receipt it never issued is 404, not an empty list', async () => {
    const first = await submit(receiptEntries(template, match.recipients));
    const second = await submit(receiptEntries(template, match.recipients));
    const all = await deliveries();
    expect(all.map((d) => d.serviceReceiptId)).toEqual([...Array(3).fill(first.body.serviceReceiptId), ...Array(3).fill(second.body.serviceReceiptId)]);
    expect(await deliveries(String(first.body.serviceReceiptId))).toHaveLength(3);
    const unknown = await h.call<{ error: string; error_description: string }>('GET', '/sandbox/deliveries?serviceReceiptId=00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'not_found', error_description: 'no receipt or credit note 00000000-0000-4000-8000-000000000000' });
  });
});
