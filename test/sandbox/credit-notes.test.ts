// `POST /credit-note/encrypted` and the issuance flow after it: the owner's devices store
// their copy, one elected device seals the ReceiptEnvelope for the issuing integration, one
// CREDIT_NOTE_CREATED; and the issuer key a device reads afterwards.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxDelivery } from '../../src/contract/sandbox-inspect.js';
import type { UblDocument } from '../../src/contract/template.js';
import { CreditNoteCreatedData, ReceiptEnvelope } from '../../src/contract/webhook.js';
import { documentHash } from '../../src/crypto/hash.js';
import { decryptJson } from '../../src/crypto/hybrid.js';
import { generateKeyPair, keyFingerprint } from '../../src/crypto/keys.js';
import type { RecordedEvent } from '../../src/sandbox/events.js';
import { VERSION } from '../../src/version.js';
import { ALICE, RETAIL, START, finalDocument, issueReceipt, startHarness, type Harness, type Resolved } from './receipt-helpers.js';
import { CLIENT_ID, creditNoteEntries, prepareCreditNote, uploadIntegrationKey } from './return-helpers.js';

const BOB_PHONE = 'dd000000-0000-4000-8000-000000000021';
const ALICE_PHONE = 'dd000000-0000-4000-8000-000000000011';

describe('credit notes', () => {
  let h: Harness;
  let token: string;
  let privateKeyPem: string;
  let publicKey: string;
  let parent: string;
  let template: UblDocument;
  let templateHash: string;
  let resolved: Resolved;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    await h.call('POST', '/sandbox/reset');
    ({ privateKeyPem, publicKey } = await uploadIntegrationKey(h));
    token = h.token();
    parent = (await issueReceipt(h, token)).serviceReceiptId;
    ({ template, templateHash, resolved } = await prepareCreditNote(h, token, parent));
  });

  const submit = (body: Record<string, unknown>, headers: Record<string, string> = {}) => h.call('POST', '/credit-note/encrypted', { token, body, headers });
  const valid = (overrides: Record<string, unknown> = {}) => ({
    matchId: resolved.matchId,
    parentServiceReceiptId: parent,
    encryptedCreditNotes: creditNoteEntries(template, resolved.recipients),
    templateHash,
    ...overrides,
  });
  const created = async () => (await h.call<RecordedEvent[]>('GET', '/sandbox/events?event=CREDIT_NOTE_CREATED')).body;
  const deliveries = async (serviceReceiptId: string) =>
    (await h.call<SandboxDelivery[]>('GET', `/sandbox/deliveries?serviceReceiptId=${serviceReceiptId}`)).body;
  const openEnvelope = (event: RecordedEvent | undefined, key = privateKeyPem) => {
    const data = CreditNoteCreatedData.parse(event?.data);
    return ReceiptEnvelope.parse(decryptJson(data.encryptedCreditNote.encryptedEnvelope, data.encryptedCreditNote.encryptedEnvelopeKey, key));
  };

  it('201, the devices store their copy, and exactly one CREDIT_NOTE_CREATED sealed for the integration', async () => {
    const body = valid();
    const answer = await submit(body);
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      serviceReceiptId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4/),
      parentServiceReceiptId: parent,
      templateHash,
      createdAt: new Date(START).toISOString(),
    });
    const creditNoteId = String(answer.body.serviceReceiptId);
    expect(creditNoteId).not.toBe(parent);

    const seen = await deliveries(creditNoteId);
    expect(seen.map((d) => [d.kind, d.recipientId, d.status, d.hashMatches])).toEqual(
      resolved.recipients.map((r) => ['CREDIT_NOTE', r.recipientId, 'DELIVERED', true]),
    );
    expect(seen.every((d) => d.customerId === ALICE)).toBe(true);

    const events = await created();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'CREDIT_NOTE_CREATED', companyId: RETAIL, clientId: CLIENT_ID });
    expect(events[0]?.data).toEqual({
      encryptedCreditNote: {
        clientId: CLIENT_ID,
        companyId: RETAIL,
        created_at: new Date(START).toISOString(),
        serviceReceiptId: creditNoteId,
        encryptedEnvelope: expect.any(String),
        encryptedEnvelopeKey: expect.any(String),
        publicKey,
        recipientKeyAlgorithm: 'RSA_2048',
        envelopeVersion: 1,
        receiptGeneratorVersion: `svc-sandbox/${VERSION}`,
        finalHash: body.encryptedCreditNotes[0]?.finalHash,
      },
    });
    // Alice accepts UBL credit notes too.
    expect(openEnvelope(events[0])).toEqual({
      envelopeVersion: 1,
      documents: { SERVICE: finalDocument(template), UBL_CREDIT_NOTE: finalDocument(template) },
    });
    // Nothing else is announced: no separate finalisation event.
    expect((await h.call<RecordedEvent[]>('GET', '/sandbox/events')).body.map((e) => e.event)).toEqual(['CREDIT_NOTE_CREATED']);
  });

  it('a customer who accepts only SERVICE gets no UBL_CREDIT_NOTE; without entry finalHash the document hash stands in', async () => {
    const bobParent = (await issueReceipt(h, token, { email: 'bob@example.com' })).serviceReceiptId;
    const bob = await prepareCreditNote(h, token, bobParent);
    const entries = creditNoteEntries(bob.template, bob.resolved.recipients).map(({ finalHash: _omit, ...entry }) => entry);
    const answer = await submit({ matchId: bob.resolved.matchId, parentServiceReceiptId: bobParent, encryptedCreditNotes: entries, templateHash: bob.templateHash });
    expect(answer.status).toBe(201);
    const [event] = await created();
    expect(openEnvelope(event).documents).toEqual({ SERVICE: finalDocument(bob.template) });
    expect(CreditNoteCreatedData.parse(event?.data).encryptedCreditNote.finalHash).toBe(documentHash(finalDocument(bob.template)));
  });

  it('the first device that could decrypt builds the envelope; with none, the credit note stands and nothing is announced', async () => {
    const stranger = await generateKeyPair();
    const [first] = resolved.recipients;
    const partly = creditNoteEntries(template, resolved.recipients, { encryptFor: (r) => (r === first ? stranger.publicKey : r.publicKey) });
    const answer = await submit(valid({ encryptedCreditNotes: partly }));
    expect(answer.status).toBe(201);
    expect((await deliveries(String(answer.body.serviceReceiptId))).map((d) => d.status)).toEqual(['UNDECRYPTABLE', 'DELIVERED', 'DELIVERED']);
    expect(openEnvelope((await created())[0]).documents.SERVICE).toEqual(finalDocument(template));

    const none = creditNoteEntries(template, resolved.recipients, { encryptFor: () => stranger.publicKey });
    const unread = await submit(valid({ encryptedCreditNotes: none }));
    expect(unread.status).toBe(201);
    expect((await deliveries(String(unread.body.serviceReceiptId))).every((d) => d.status === 'UNDECRYPTABLE')).toBe(true);
    expect(await created()).toHaveLength(1);
  });

  it('replays an Idempotency-Key without issuing or announcing twice', async () => {
    const body = valid();
    const first = await submit(body, { 'idempotency-key': 'cn-1' });
    const again = await submit(body, { 'idempotency-key': 'cn-1' });
    expect(again.raw).toBe(first.raw);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await created()).toHaveLength(1);
  });

  describe('refusals (nothing delivered, nothing announced)', () => {
    it.each([
      ['an unknown parent', () => ({ parentServiceReceiptId: '00000000-0000-4000-8000-000000000000' }), 'parentServiceReceiptId'],
      ['an unknown templateHash', () => ({ templateHash: documentHash({ other: true }) }), 'templateHash'],
      ['a missing device', () => ({ encryptedCreditNotes: creditNoteEntries(template, resolved.recipients.slice(1)) }), 'encryptedCreditNotes'],
      ['an unknown matchId', () => ({ matchId: '00000000-0000-4000-8000-000000000000' }), 'matchId'],
    ])('400 for %s', async (_what, overrides, path) => {
      const answer = await submit(valid(overrides()));
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ details: [expect.objectContaining({ path })] });
      expect((await h.call<SandboxDelivery[]>('GET', '/sandbox/deliveries')).body.filter((d) => d.kind === 'CREDIT_NOTE')).toEqual([]);
      expect(await created()).toEqual([]);
    });

    it("400 for a match of someone other than the parent's owner", async () => {
      const bob = (await h.call<Resolved>('POST', '/recipient/resolve', { token, body: { email: 'bob@example.com' } })).body;
      const answer = await submit(valid({ matchId: bob.matchId, encryptedCreditNotes: creditNoteEntries(template, bob.recipients) }));
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ details: [{ path: 'matchId', message: expect.stringContaining("parent receipt's owner") }] });
    });

    it('400 for the template of a receipt rather than a credit note', async () => {
      const { templateHash: receiptTemplateHash } = await issueReceipt(h, token);
      const answer = await submit(valid({ templateHash: receiptTemplateHash }));
      expect(answer.body).toMatchObject({ error: 'unknown_template' });
    });

    it('409 while the issuing integration has no registered key', async () => {
      h.running.state.clientApplications.get(CLIENT_ID)!.publicKey = null;
      const answer = await submit(valid());
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ error: 'issuer_key_missing', error_description: expect.stringContaining('svc keys generate --upload') });
      expect(await created()).toEqual([]);
    });

    it("another company's parent reads as unknown", async () => {
      const answer = await h.call('POST', '/credit-note/encrypted', { token: h.token('c0000000-0000-4000-8000-000000000002'), body: valid() });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ details: [{ path: 'parentServiceReceiptId' }] });
    });
  });

  describe('GET /credit-note/{serviceReceiptId}/issuer-key', () => {
    it("answers a device of the owner with the issuer's key; anyone else learns nothing", async () => {
      const creditNoteId = String((await submit(valid())).body.serviceReceiptId);
      const path = `/credit-note/${creditNoteId}/issuer-key`;
      const answer = await h.call('GET', path, { headers: { 'x-device-id': ALICE_PHONE } });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ publicKey, algorithm: 'RSA_2048', keyId: keyFingerprint(publicKey) });

      expect((await h.call('GET', path)).status).toBe(403);
      expect((await h.call('GET', path, { headers: { 'x-device-id': BOB_PHONE } })).status).toBe(404);
      expect((await h.call('GET', path, { headers: { 'x-device-id': 'no-such-device' } })).status).toBe(404);
      expect((await h.call('GET', `/credit-note/${parent}/issuer-key`, { headers: { 'x-device-id': ALICE_PHONE } })).status).toBe(404);
    });

    it('keeps the key the credit note was issued under after the integration rotates', async () => {
      const creditNoteId = String((await submit(valid())).body.serviceReceiptId);
      const rotated = await generateKeyPair();
      h.running.state.clientApplications.get(CLIENT_ID)!.publicKey = { keyData: rotated.publicKey, algorithm: 'RSA_2048', uploadedAt: START_ISO };
      const answer = await h.call('GET', `/credit-note/${creditNoteId}/issuer-key`, { headers: { 'x-device-id': ALICE_PHONE } });
      expect(answer.body).toMatchObject({ publicKey });
    });
  });
});

const START_ISO = new Date(START).toISOString();
