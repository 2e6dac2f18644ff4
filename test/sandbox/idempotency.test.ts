import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UblDocument } from '../../src/contract/template.js';
import { documentHash } from '../../src/crypto/hash.js';
import { fixedClock } from '../../src/clock.js';
import { createSandboxClock } from '../../src/sandbox/clock.js';
import type { Sandbox } from '../../src/sandbox/context.js';
import { bundledFixturePath, loadFixture } from '../../src/sandbox/fixture.js';
import { IDEMPOTENCY_TTL_SECONDS, idempotent } from '../../src/sandbox/idempotency.js';
import { HttpError, json, type Reply, type RouteRequest } from '../../src/sandbox/router.js';
import { createSandboxState } from '../../src/sandbox/state.js';
import { FOODS, receiptEntries, startHarness, templateRequest, type Harness, type Resolved } from './receipt-helpers.js';

describe('Idempotency-Key on POST /receipt/encrypted', () => {
  let h: Harness;
  let token: string;
  let body: Record<string, unknown>;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    await h.call('POST', '/sandbox/reset');
    token = h.token();
    body = await submission(token);
  });

  async function submission(as: string): Promise<Record<string, unknown>> {
    const template = (await h.call<UblDocument>('POST', '/receipt/template', { token: as, body: templateRequest() })).body;
    const match = (await h.call<Resolved>('POST', '/recipient/resolve', { token: as, body: { email: 'carol@example.org' } })).body;
    return { matchId: match.matchId, templateHash: documentHash(template), encryptedReceipts: receiptEntries(template, match.recipients) };
  }

  const submit = (key: string | undefined, payload: unknown = body, as = token) =>
    h.call('POST', '/receipt/encrypted', { token: as, body: JSON.stringify(payload), ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }) });
  const deliveryCount = async () => (await h.call<unknown[]>('GET', '/sandbox/deliveries')).body.length;

  it('replays the first response byte for byte for the same key and body, without submitting again', async () => {
    const first = await submit('key-1');
    expect(first.status).toBe(201);
    await h.call('POST', '/sandbox/clock', { body: { advanceSeconds: 60 } });
    const again = await submit('key-1');
    expect(again.status).toBe(201);
    expect(again.raw).toBe(first.raw);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await deliveryCount()).toBe(2);
  });

  it('answers 409 idempotency_key_reused for the same key with another body', async () => {
    const first = await submit('key-1');
    const other = { ...body, encryptedReceipts: [...(body.encryptedReceipts as unknown[])].reverse() };
    const { status, body: error } = await submit('key-1', other);
    expect(status).toBe(409);
    expect(error).toMatchObject({ error: 'idempotency_key_reused', error_description: expect.stringContaining('another request body') });
    // docs/interface-decisions.md#idempotency-keys: the details name the first result.
    expect((error as { details: unknown }).details).toEqual([{ path: 'serviceReceiptId', message: (first.body as { serviceReceiptId: string }).serviceReceiptId }]);
    expect(await deliveryCount()).toBe(2);
  });

  it('compares the raw body: the same JSON spelt differently is another body', async () => {
    await submit('key-1');
    const spaced = await h.call('POST', '/receipt/encrypted', { token, body: JSON.stringify(body, null, 2), headers: { 'idempotency-key': 'key-1' } });
    expect(spaced.status).toBe(409);
  });

  it('submits anew without a key, or with a new one', async () => {
    const a = await submit(undefined);
    const b = await submit(undefined);
    const c = await submit('key-2');
    expect(new Set([a.body.serviceReceiptId, b.body.serviceReceiptId, c.body.serviceReceiptId]).size).toBe(3);
    expect(await deliveryCount()).toBe(6);
  });

  it('keeps no failure: after a 400 the same key may carry a corrected body', async () => {
    const broken = await submit('key-1', { ...body, templateHash: '0'.repeat(64) });
    expect(broken.body).toMatchObject({ error: 'unknown_template' });
    expect((await submit('key-1')).status).toBe(201);
  });

  it('keeps keys apart per company', async () => {
    await submit('shared-key');
    const theirs = h.token(FOODS);
    const { status } = await submit('shared-key', await submission(theirs), theirs);
    expect(status).toBe(201);
  });

  it('forgets a key after a day by the sandbox clock', async () => {
    const first = await submit('key-1');
    await h.call('POST', '/sandbox/clock', { body: { advanceSeconds: IDEMPOTENCY_TTL_SECONDS } });
    token = h.token();
    const fresh = await submission(token);
    const later = await submit('key-1', fresh);
    expect(later.status).toBe(201);
    expect(later.body.serviceReceiptId).not.toBe(first.body.serviceReceiptId);
  });

  it('refuses a key that is too long or not visible ASCII', async () => {
    for (const key of ['x'.repeat(256), 'has space']) {
      const { status, body: error } = await submit(key);
      expect(status).toBe(400);
      expect(error).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('Idempotency-Key') });
    }
  });

  it('applies to POST /receipt/email too, and tells routes apart', async () => {
    const template = (await h.call<UblDocument>('POST', '/receipt/template', { token, body: templateRequest() })).body;
    const email = { to: 'carol@example.org', template };
    const send = () => h.call('POST', '/receipt/email', { token, body: email, headers: { 'idempotency-key': 'mail-1' } });
    const first = await send();
    expect(first.status).toBe(202);
    expect((await send()).raw).toBe(first.raw);
    expect((await h.call<unknown[]>('GET', '/sandbox/outbox')).body).toHaveLength(1);
    const elsewhere = await submit('mail-1');
    expect(elsewhere.body).toMatchObject({ error: 'idempotency_conflict', error_description: expect.stringContaining('POST /receipt/email') });
  });
});

describe('idempotent()', () => {
  const request = (body: string): RouteRequest<unknown, unknown, unknown> => ({
    method: 'POST',
    path: '/thing',
    params: {},
    query: {},
    headers: { 'idempotency-key': 'k' },
    body: JSON.parse(body),
    rawBody: Buffer.from(body),
  });

  it('refuses the same key while its first request is still running, and lets it go once that one has finished', async () => {
    const state = createSandboxState(await loadFixture(bundledFixturePath()));
    const sandbox = { state, clock: createSandboxClock(fixedClock(0)) } as unknown as Sandbox;
    let finish: (reply: Reply) => void = () => {};
    const first = idempotent(sandbox, request('{}'), 'company', () => new Promise<Reply>((resolve) => (finish = resolve)));
    const error = await idempotent(sandbox, request('{}'), 'company', () => json(200, {})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ code: 'idempotency_conflict', message: expect.stringContaining('still in progress') });
    finish(json(201, { n: 1 }));
    expect((await first).body).toBe('{"n":1}');
    expect((await idempotent(sandbox, request('{}'), 'company', () => json(201, { n: 2 }))).body).toBe('{"n":1}');
  });
});
