import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { documentHash } from '../../src/crypto/hash.js';
import type { UblDocument } from '../../src/contract/template.js';
import { MATCH_TTL_SECONDS } from '../../src/sandbox/recipients.js';
import {
  ALICE,
  BOB,
  FOODS,
  issueReceipt,
  receiptEntries,
  startHarness,
  templateRequest,
  type Harness,
  type Resolved,
} from './receipt-helpers.js';

const ALICE_DEVICES = ['dd000000-0000-4000-8000-000000000011', 'dd000000-0000-4000-8000-000000000012', 'dd000000-0000-4000-8000-000000000013'];

describe('POST /recipient/resolve', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    await h.call('POST', '/sandbox/reset');
    token = h.token();
  });

  const resolve = (body: unknown, as = token) => h.call<Resolved>('POST', '/recipient/resolve', { token: as, body });

  it.each([
    ['email', { email: 'alice@example.com' }],
    ['email in other case', { email: 'Alice@Example.COM' }],
    ['phone', { phone: '+4915100000001' }],
    ['phone with separators', { phone: '+49 151 0000-0001' }],
    ['IBAN', { iban: 'DE89370400440532013000' }],
    ['IBAN with spaces, lower case', { iban: 'de89 3704 0044 0532 0130 00' }],
    ['card number', { cardNumber: '4111111111111111' }],
    ['card number with spaces and dashes', { cardNumber: '4111 1111-1111 1111' }],
    ['several identifiers of one customer', { email: 'alice@example.com', cardNumber: '4111111111111111' }],
  ])('finds Alice by %s, with every device and her formats', async (_what, body) => {
    const { status, body: match } = await resolve(body);
    expect(status).toBe(200);
    expect(h.running.state.devicesOf(ALICE).map((d) => d.id)).toEqual(ALICE_DEVICES);
    expect(match).toEqual({
      matchId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      recipients: ALICE_DEVICES.map((id) => ({
        recipientId: id,
        receiverType: 'DEVICE',
        publicKey: h.running.state.devices.get(id)?.publicKey,
        keyAlgorithm: 'RSA_2048',
      })),
      acceptedFormats: ['SERVICE', 'UBL_CREDIT_NOTE'],
    });
  });

  it('gives a new matchId on every resolve', async () => {
    const a = await resolve({ email: 'alice@example.com' });
    const b = await resolve({ email: 'alice@example.com' });
    expect(a.body.matchId).not.toBe(b.body.matchId);
  });

  it('answers 404 not_found when nothing matches, whichever identifier was tried', async () => {
    for (const body of [
      { email: 'nobody@example.com' },
      { phone: '+4915100000009' },
      { iban: 'DE02120300000000202051' },
      { cardNumber: '4000056655665556' },
      { serviceReceiptId: '8a1f2c3d-0000-4000-8000-000000000000' },
      // Alice's email with Bob's card: two people, no one match.
      { email: 'alice@example.com', cardNumber: '5555555555554444' },
    ]) {
      const { status, body: error } = await resolve(body);
      expect(status).toBe(404);
      expect(error).toMatchObject({ error: 'not_found', error_description: 'no recipient matches these details' });
    }
  });

  it('refuses a request without any identifier, or with a malformed one, naming the field', async () => {
    expect((await resolve({})).body).toMatchObject({ error: 'validation_failed', details: [{ path: '', message: expect.stringContaining('give at least one of') }] });
    const bad = await resolve({ iban: 'not an iban' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'validation_failed', details: [{ path: 'iban' }] });
  });

  it('needs a token with write_receipts, checked before the body', async () => {
    expect((await h.call('POST', '/recipient/resolve', { body: {} })).status).toBe(401);
    const readOnly = h.token(undefined, { scopes: ['read_stores'] });
    expect((await resolve({ email: 'alice@example.com' }, readOnly)).body).toMatchObject({ error: 'insufficient_scope' });
  });

  it("resolves the current devices of a receipt's owner by serviceReceiptId, for the issuing company only", async () => {
    const { serviceReceiptId } = await issueReceipt(h, token, { email: 'bob@example.com' });
    const { status, body } = await resolve({ serviceReceiptId });
    expect(status).toBe(200);
    expect(body.recipients.map((r) => r.recipientId)).toEqual(['dd000000-0000-4000-8000-000000000021']);
    expect(h.running.state.devices.get('dd000000-0000-4000-8000-000000000021')?.customerId).toBe(BOB);

    // A device the owner added since is one of the current devices.
    const [phone] = h.running.state.devicesOf(BOB);
    if (!phone) throw new Error('Bob has no device in the fixture');
    h.running.state.devices.set('dd000000-0000-4000-8000-000000000022', { ...phone, id: 'dd000000-0000-4000-8000-000000000022' });
    expect((await resolve({ serviceReceiptId })).body.recipients.map((r) => r.recipientId)).toEqual([
      'dd000000-0000-4000-8000-000000000021',
      'dd000000-0000-4000-8000-000000000022',
    ]);

    expect((await resolve({ serviceReceiptId }, h.token(FOODS))).status).toBe(404);
  });

  describe('the matchId', () => {
    const submit = async (matchId: string, as = token) => {
      const template = await h.call<UblDocument>('POST', '/receipt/template', { token: as, body: templateRequest() });
      const recipients = (await resolve({ email: 'alice@example.com' })).body.recipients;
      return h.call('POST', '/receipt/encrypted', {
        token: as,
        body: { matchId, templateHash: documentHash(template.body), encryptedReceipts: receiptEntries(template.body, recipients) },
      });
    };

    it('lasts 15 minutes by the sandbox clock', async () => {
      const { matchId } = (await resolve({ email: 'alice@example.com' })).body;
      await h.call('POST', '/sandbox/clock', { body: { advanceSeconds: MATCH_TTL_SECONDS - 1 } });
      expect((await submit(matchId)).status).toBe(201);

      const late = (await resolve({ email: 'alice@example.com' })).body.matchId;
      await h.call('POST', '/sandbox/clock', { body: { advanceSeconds: MATCH_TTL_SECONDS } });
      // Access tokens live 15 minutes as well.
      token = h.token();
      const { status, body } = await submit(late);
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: 'validation_failed', details: [{ path: 'matchId', message: expect.stringContaining('resolve the recipient again') }] });
    });

    it("is refused for another company, exactly like an unknown one", async () => {
      const { matchId } = (await resolve({ email: 'alice@example.com' })).body;
      const theirs = await submit(matchId, h.token(FOODS));
      const unknown = await submit('00000000-0000-4000-8000-000000000000');
      expect(theirs.status).toBe(400);
      expect({ ...theirs.body, timestamp: 0 }).toEqual({ ...unknown.body, timestamp: 0 });
    });
  });

  it('never logs identifiers', async () => {
    const lines: string[] = [];
    const logged = await startHarness({ log: (line) => lines.push(line) });
    try {
      const as = logged.token(FOODS);
      for (const body of [{ iban: 'DE89370400440532013000' }, { cardNumber: '4111111111111111' }, { email: 'alice@example.com' }, { phone: '+4915100000009' }])
        await logged.call('POST', '/recipient/resolve', { token: as, body });
    } finally {
      await logged.close();
    }
    const log = lines.join('\n');
    expect(log).toContain('recipient resolve by iban: 3 devices');
    expect(log).toContain('recipient resolve by phone: no match');
    for (const secret of ['0532013000', '1111111111', 'alice@', '4915100000009']) expect(log).not.toContain(secret);
  });
});
