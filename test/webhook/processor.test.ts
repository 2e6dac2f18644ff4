// What happens after the 2xx: decryption with the profile's keys (historical ones too),
// the event lines, the processed markers, restarts and forwarding.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { bodyId } from '../../src/crypto/hash.js';
import { encryptJson } from '../../src/crypto/hybrid.js';
import { openJournal } from '../../src/webhook/journal.js';
import { inProcessDecryptor } from '../../src/webhook/decryptor.js';
import { createProcessor, decodeDelivery, MAX_UNWRITTEN, PROCESSING_BATCH, writeEvent, type ProcessedEvent } from '../../src/webhook/processor.js';
import { testStreams } from '../../src/io/test-streams.js';
import { signPayload } from '../../src/webhook/signature.js';
import { journalPathOf } from '../../src/webhook/subscriptions.js';
import { closeHarnesses, harness, NOW } from '../commands/receipts-setup.js';
import {
  CURRENT_KEY,
  creditNoteCreatedBody,
  deliver,
  envelope,
  events,
  FOREIGN_KEY,
  installKeys,
  NOW_SECONDS,
  OLD_KEY,
  readJournalFile,
  returnRequest,
  returnRequestedBody,
  SECRET,
  startListening,
  until,
  withSecret,
  type Listening,
} from './setup.js';

const running: Listening[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((l) => l.stop()));
  await closeHarnesses();
});

async function listening(opts: { keys?: typeof OLD_KEY[]; forwardTo?: string } = {}) {
  const h = await harness({ json: true });
  await withSecret(h.f);
  await installKeys(await h.f.secrets(), opts.keys ?? [OLD_KEY, CURRENT_KEY]);
  const l = await startListening(h, opts.forwardTo === undefined ? {} : { forwardTo: opts.forwardTo });
  running.push(l);
  return { h, l };
}

/** Delivers each body and waits until each has its event line and its processed marker. */
async function deliverAll(h: Awaited<ReturnType<typeof harness>>, l: Listening, bodies: Buffer[]) {
  for (const body of bodies) expect((await deliver(l.url, body)).status).toBe(200);
  await until(() => events(h).length >= bodies.length, 'the event lines');
  await until(async () => (await readJournalFile(l.journalPath)).processed.length >= bodies.length, 'the markers');
  return events(h);
}

describe('known events', () => {
  it('opens RETURN_REQUESTED to the return request, and CREDIT_NOTE_CREATED to the receipt envelope', async () => {
    const { h, l } = await listening();
    const returned = returnRequestedBody('sr-1');
    const created = creditNoteCreatedBody('cn-1');
    const [first, second] = await deliverAll(h, l, [returned, created]);
    expect(first).toEqual({
      id: bodyId(returned),
      event: 'RETURN_REQUESTED',
      receivedAt: new Date(NOW).toISOString(),
      verified: true,
      duplicate: false,
      data: returnRequest('sr-1'),
      // The company the event is of: one listener may receive for thousands.
      companyId: 'c0000000-0000-4000-8000-000000000001',
      // What the text line names: the receipt, or the credit note.
      serviceReceiptId: 'sr-1',
    });
    expect(second).toEqual({ id: bodyId(created), event: 'CREDIT_NOTE_CREATED', receivedAt: new Date(NOW).toISOString(), verified: true, duplicate: false, data: envelope(), companyId: 'c0000000-0000-4000-8000-000000000001', serviceReceiptId: 'cn-1' });
    const stderr = h.streams.stderr();
    expect(stderr).toContain(`--> RETURN_REQUESTED  ${bodyId(returned).slice(0, 12)}  receipt sr-1  2 items\n`);
    expect(stderr).toContain(`--> CREDIT_NOTE_CREATED  ${bodyId(created).slice(0, 12)}  credit note cn-1  SERVICE, UBL_CREDIT_NOTE\n`);
    expect((await readJournalFile(l.journalPath)).processed.map((p) => [p.id, p.ok])).toEqual([
      [bodyId(returned), true],
      [bodyId(created), true],
    ]);
  });

  it('decrypts with a historical key after a rotation, and tries every key when the item names none', async () => {
    const { h, l } = await listening({ keys: [OLD_KEY, CURRENT_KEY] });
    const lines = await deliverAll(h, l, [returnRequestedBody('sr-old', OLD_KEY, { items: 1 }), returnRequestedBody('sr-unnamed', OLD_KEY, { omitKey: true })]);
    expect(lines.map((e) => [e.data, e.error])).toEqual([
      [returnRequest('sr-old', 1), undefined],
      [returnRequest('sr-unnamed'), undefined],
    ]);
    expect(h.streams.stderr()).toContain('receipt sr-old  1 item\n');
  });

  it('decrypts an event for a key stored while listening (`svc keys rotate` in another terminal)', async () => {
    const { h, l } = await listening({ keys: [OLD_KEY] });
    await installKeys(await h.f.secrets(), [OLD_KEY, CURRENT_KEY]);
    const rotated = returnRequestedBody('sr-rotated');
    const [line] = await deliverAll(h, l, [rotated]);
    expect(line).toMatchObject({ id: bodyId(rotated), data: returnRequest('sr-rotated') });
    expect(line!.error).toBeUndefined();
    const journal = await readJournalFile(l.journalPath);
    expect(journal.deliveries.map((d) => d.id)).toEqual([bodyId(rotated)]);
    expect(journal.processed).toMatchObject([{ id: bodyId(rotated), ok: true }]);
  });

  it('keeps and reports a delivery that cannot be decrypted, without stopping', async () => {
    const { h, l } = await listening({ keys: [CURRENT_KEY] });
    const foreign = returnRequestedBody('sr-foreign', FOREIGN_KEY);
    const good = returnRequestedBody('sr-good');
    const [bad, ok] = await deliverAll(h, l, [foreign, good]);
    expect(bad).toMatchObject({ id: bodyId(foreign), event: 'RETURN_REQUESTED', data: null });
    expect(bad!.error).toMatch(/^cannot decrypt: no private key matches/);
    expect(ok).toMatchObject({ data: returnRequest('sr-good') });
    const journal = await readJournalFile(l.journalPath);
    expect(journal.deliveries.map((d) => d.id)).toContain(bodyId(foreign));
    expect(journal.processed.find((p) => p.id === bodyId(foreign))).toMatchObject({ ok: false, error: bad!.error });
    expect(h.streams.stderr()).toMatch(/receipt sr-foreign {2}error: cannot decrypt: no private key matches/);
  });

  it('reports a known event whose data is incomplete', async () => {
    const { h, l } = await listening();
    const body = Buffer.from(JSON.stringify({ event: 'RETURN_REQUESTED', data: { creditNoteInitiationRequest: { serviceReceiptId: 'sr-1' } } }));
    const [line] = await deliverAll(h, l, [body]);
    expect(line).toMatchObject({ event: 'RETURN_REQUESTED', data: null });
    expect(line!.error).toContain('not a valid RETURN_REQUESTED delivery: data.creditNoteInitiationRequest.');
  });
});

describe('unknown events', () => {
  it('are journalled and shown, not fatal', async () => {
    const { h, l } = await listening();
    const body = Buffer.from(JSON.stringify({ event: 'RECEIPT_DELIVERED', data: { serviceReceiptId: 'sr-1' } }));
    const [line] = await deliverAll(h, l, [body, returnRequestedBody('sr-2')]);
    expect(line).toEqual({ id: bodyId(body), event: 'RECEIPT_DELIVERED', receivedAt: new Date(NOW).toISOString(), verified: true, duplicate: false, data: null });
    expect(h.streams.stderr()).toContain('--> RECEIPT_DELIVERED');
    expect((await readJournalFile(l.journalPath)).deliveries[0]).toMatchObject({ id: bodyId(body), event: 'RECEIPT_DELIVERED' });
  });
});

describe('restarts', () => {
  it('processes a delivery journalled but not processed before the restart, exactly once', async () => {
    const h = await harness({ json: true });
    await withSecret(h.f);
    await installKeys(await h.f.secrets(), [CURRENT_KEY]);
    // What a crash between the fsync and the processing leaves behind.
    const journal = await openJournal(journalPathOf(h.f), { clock: fixedClock(NOW) });
    const body = returnRequestedBody('sr-crash');
    await journal.record(body, { 'content-type': 'application/json' }, 'RETURN_REQUESTED');
    await journal.close();

    const first = await startListening(h);
    await until(() => events(h).length === 1, 'the backlog event');
    expect(events(h)[0]).toMatchObject({ id: bodyId(body), duplicate: false, data: returnRequest('sr-crash') });
    expect(h.streams.stderr()).toContain('processing 1 journalled delivery the last run left unprocessed');
    await first.stop();

    const second = await startListening(h);
    // The sender's retry of the same delivery after the restart.
    expect((await deliver(second.url, body)).body).toMatchObject({ duplicate: true });
    await until(() => events(h).length === 2, 'the duplicate line');
    await second.stop();
    expect(events(h).map((e) => e.duplicate)).toEqual([false, true]);
    expect((await readJournalFile(journalPathOf(h.f))).processed).toHaveLength(1);
  });

  it('stopping finishes the batch in hand and leaves the rest unprocessed for the next start', async () => {
    const h = await harness();
    const journal = await openJournal(journalPathOf(h.f), { clock: fixedClock(NOW) });
    const bodies = Array.from({ length: PROCESSING_BATCH + 2 }, (_, i) => returnRequestedBody(`sr-${i}`));
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inHand: () => void = () => {};
    const decrypting = new Promise<void>((resolve) => {
      inHand = resolve;
    });
    const reported: ProcessedEvent[] = [];
    const processor = createProcessor({
      decryptor: inProcessDecryptor(async () => {
        inHand();
        await gate;
        return [{ keyId: CURRENT_KEY.keyId, privateKeyPem: CURRENT_KEY.privateKeyPem }];
      }),
      markProcessed: (id, outcome) => journal.markProcessed(id, outcome),
      report: (p) => void reported.push(p),
      warn: () => {},
    });
    const entries = [];
    for (const body of bodies) entries.push((await journal.record(body, {}, 'RETURN_REQUESTED')).entry);
    // A backlog at start: all queued at once, so the first batch is a full one.
    entries.forEach((entry, i) => processor.enqueue({ entry, raw: bodies[i]!, headers: {} }, false));
    await decrypting;
    const stopping = processor.stop();
    release();
    expect(await stopping).toBe(2);
    await journal.close();
    expect(reported.map((r) => r.report.id)).toEqual(bodies.slice(0, PROCESSING_BATCH).map((b) => bodyId(b)));
    const reopened = await openJournal(journalPathOf(h.f), { clock: fixedClock(NOW) });
    expect(reopened.takeUnprocessed().map((d) => d.entry.id)).toEqual(bodies.slice(PROCESSING_BATCH).map((b) => bodyId(b)));
    await reopened.close();
  });
});

describe('lines still on their way out', () => {
  it('journals an event as processed only once its line is out; a line that never gets out, never; past MAX_UNWRITTEN processing waits', async () => {
    const bodies = Array.from({ length: MAX_UNWRITTEN + 4 }, (_, i) => returnRequestedBody(`sr-${i}`));
    const ids = bodies.map((b) => bodyId(b));
    const marked: string[] = [];
    const reported: string[] = [];
    // Each report's line waits for the reader: settled by hand.
    const lines = new Map<string, { out(): void; lost(): void }>();
    const processor = createProcessor({
      decryptor: inProcessDecryptor(async () => [{ keyId: CURRENT_KEY.keyId, privateKeyPem: CURRENT_KEY.privateKeyPem }]),
      markProcessed: async (id) => void marked.push(id),
      report: (p) => {
        reported.push(p.report.id);
        return new Promise<void>((resolve, reject) => lines.set(p.report.id, { out: resolve, lost: () => reject(new Error('write EPIPE')) }));
      },
      warn: () => {},
    });
    bodies.forEach((raw, i) => processor.enqueue({ entry: { id: ids[i]!, receivedAt: new Date(NOW).toISOString(), event: 'RETURN_REQUESTED' }, raw, headers: {} }, false));
    await until(() => reported.length >= MAX_UNWRITTEN, 'the first reports');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Bounded: no more events shown while that many lines wait; none journalled.
    expect(reported).toHaveLength(MAX_UNWRITTEN);
    expect(marked).toEqual([]);
    // Shown and not journalled processed: each still waits, counted once.
    expect(processor.waiting()).toBe(bodies.length);
    lines.get(ids[0]!)?.out();
    lines.get(ids[1]!)?.lost();
    await until(() => marked.length === 1 && reported.length === MAX_UNWRITTEN + 2, 'the first line out');
    expect(marked).toEqual([ids[0]]);
    // idle() waits for the lines too, and then every outcome has been handed to the journal.
    let idle = false;
    const idling = processor.idle().then(() => (idle = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle).toBe(false);
    for (let i = 2; i < ids.length; i++) {
      await until(() => lines.has(ids[i]!), `the report of ${i}`);
      lines.get(ids[i]!)?.out();
    }
    await idling;
    expect(marked).toEqual(ids.filter((_, i) => i !== 1));
    // The one whose line never got out stays journalled unprocessed, for the next start.
    expect(processor.waiting()).toBe(1);
  });
});

describe('while deliveries are being answered', () => {
  // Acknowledging is what the sender waits for: processing (decrypting on a second thread)
  // waits while requests are in flight, for a bounded time, then takes its share.
  const processorWith = (busy: () => boolean, reported: number[], maxYieldMs?: number) =>
    createProcessor({
      decryptor: inProcessDecryptor(async () => [{ keyId: CURRENT_KEY.keyId, privateKeyPem: CURRENT_KEY.privateKeyPem }]),
      markProcessed: async () => {},
      report: () => void reported.push(performance.now()),
      warn: () => {},
      busy,
      ...(maxYieldMs === undefined ? {} : { maxYieldMs }),
    });
  const enqueueOne = (processor: ReturnType<typeof createProcessor>, n: number) => {
    const raw = returnRequestedBody(`sr-yield-${n}`);
    processor.enqueue({ entry: { id: bodyId(raw), receivedAt: new Date(NOW).toISOString(), event: 'RETURN_REQUESTED' }, raw, headers: {} }, false);
  };

  it('waits until no request is in flight, and then shows the events at once', async () => {
    let busy = true;
    const reported: number[] = [];
    const processor = processorWith(() => busy, reported);
    for (let n = 0; n < 3; n++) enqueueOne(processor, n);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reported).toEqual([]);
    expect(processor.waiting()).toBe(3);
    const freed = performance.now();
    busy = false;
    await processor.idle();
    expect(reported).toHaveLength(3);
    expect(reported[0]! - freed).toBeLessThan(1000);
  });

  it('waits at most maxYieldMs for the oldest delivery waiting: a steady stream never starves processing', async () => {
    const reported: number[] = [];
    const processor = processorWith(() => true, reported, 400);
    const enqueued = performance.now();
    enqueueOne(processor, 0);
    await until(() => reported.length === 1, 'the event shown though requests never stop');
    expect(reported[0]! - enqueued).toBeGreaterThanOrEqual(390);
    await processor.idle();
  });

  it('stops waiting when the listener stops', async () => {
    const reported: number[] = [];
    const processor = processorWith(() => true, reported, 60_000);
    enqueueOne(processor, 0);
    const stopping = performance.now();
    // Left for the next start, without waiting out the minute.
    expect(await processor.stop()).toBe(1);
    expect(performance.now() - stopping).toBeLessThan(1000);
    expect(reported).toEqual([]);
  });
});

describe('waiting', () => {
  it('counts a delivery as not processed while it is forwarded and while its line is on its way out (the backlog gauge, the count left at a stop)', async () => {
    const bodies = Array.from({ length: 3 }, (_, i) => returnRequestedBody(`sr-${i}`));
    let forwards = 0;
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let reported = 0;
    let out: () => void = () => {};
    const lineOut = new Promise<void>((resolve) => (out = resolve));
    const processor = createProcessor({
      decryptor: inProcessDecryptor(async () => [{ keyId: CURRENT_KEY.keyId, privateKeyPem: CURRENT_KEY.privateKeyPem }]),
      markProcessed: async () => {},
      forward: async () => {
        forwards++;
        await answered;
        return { text: 'http://127.0.0.1:3000/h: 200 OK', failed: [] };
      },
      report: () => {
        reported++;
        return lineOut;
      },
      warn: () => {},
    });
    bodies.forEach((raw) => processor.enqueue({ entry: { id: bodyId(raw), receivedAt: new Date(NOW).toISOString(), event: 'RETURN_REQUESTED' }, raw, headers: {} }, false));
    await until(() => forwards === bodies.length, 'the forwards under way');
    expect(processor.waiting()).toBe(3);
    answer();
    await until(() => reported === bodies.length, 'the reports');
    expect(processor.waiting()).toBe(3);
    out();
    await processor.idle();
    expect(processor.waiting()).toBe(0);
  });
});

describe('--forward-to', () => {
  it('re-posts the original raw body and headers to the local app after journalling, and shows its answer', async () => {
    const received: { body: Buffer; headers: IncomingMessage['headers'] }[] = [];
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks), headers: req.headers });
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    try {
      const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
      const { h, l } = await listening({ forwardTo: appUrl });
      const body = returnRequestedBody('sr-1');
      await deliverAll(h, l, [body]);
      expect(received).toHaveLength(1);
      expect(received[0]!.body.equals(body)).toBe(true);
      expect(received[0]!.headers['content-type']).toBe('application/json');
      expect(received[0]!.headers['x-service-signature']).toBe(signPayload(SECRET, body, NOW_SECONDS));
      expect(h.streams.stderr()).toContain(`    forwarded to ${appUrl}: 202 Accepted\n`);
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('shows an app that is down, how often it was tried and how to send it again, and still processes the event', async () => {
    const { h, l } = await listening({ forwardTo: 'http://127.0.0.1:9/hooks' });
    const [line] = await deliverAll(h, l, [returnRequestedBody('sr-1')]);
    expect(line).toMatchObject({ data: returnRequest('sr-1') });
    // Not tried again: said, with the command that sends it again.
    expect(h.streams.stderr()).toContain(`    not forwarded to http://127.0.0.1:9/hooks: failed: ECONNREFUSED (4 attempts; \`svc webhook replay ${(line as { id: string }).id.slice(0, 12)} --forward-to http://127.0.0.1:9/hooks\` sends it again)`);
    // And journalled with the outcome, for `svc webhook events` to say.
    expect((await readJournalFile(l.journalPath)).processed).toEqual([
      expect.objectContaining({ id: (line as { id: string }).id, ok: true, forwardFailed: ['http://127.0.0.1:9/hooks: failed: ECONNREFUSED (4 attempts)'] }),
    ]);
  });

  it('a hung forward holds up only its own delivery: one that arrives while it hangs is forwarded and shown at once', async () => {
    const [hung, later] = [returnRequestedBody('sr-1'), returnRequestedBody('sr-2')];
    const forwarded: string[] = [];
    const reported: string[] = [];
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const processor = createProcessor({
      decryptor: inProcessDecryptor(async () => [{ keyId: CURRENT_KEY.keyId, privateKeyPem: CURRENT_KEY.privateKeyPem }]),
      markProcessed: async () => {},
      forward: async (delivery) => {
        forwarded.push(delivery.entry.id);
        if (delivery.entry.id === bodyId(hung)) await released;
        return { text: 'http://127.0.0.1:3000/h: 200 OK', failed: [] };
      },
      report: (p) => void reported.push(p.report.id),
      warn: () => {},
    });
    const enqueue = (raw: Buffer) => processor.enqueue({ entry: { id: bodyId(raw), receivedAt: new Date(NOW).toISOString(), event: 'RETURN_REQUESTED' }, raw, headers: {} }, false);
    enqueue(hung);
    await until(() => forwarded.length === 1, 'the hung forward');
    // The queue is empty by now: the processor waits for the hung forward alone.
    await new Promise((resolve) => setTimeout(resolve, 20));
    enqueue(later);
    await until(() => reported.includes(bodyId(later)), 'the later delivery shown', 2_000);
    expect(reported).toEqual([bodyId(later)]);
    release();
    await processor.idle();
    expect(reported).toEqual([bodyId(later), bodyId(hung)]);
  });

  it('refuses a target that is not on this machine', async () => {
    const h = await harness();
    await withSecret(h.f);
    await expect(startListening(h, { forwardTo: 'https://example.com/hooks' })).rejects.toThrow('is not an http(s) address on this machine');
  });
});

describe('decodeDelivery', () => {
  it('a RETURN_REQUESTED that cannot be opened still names its receipt, its company and its ciphertext (the request is found by it)', async () => {
    const body = returnRequestedBody('sr-9', FOREIGN_KEY);
    const decoded = await decodeDelivery(body, inProcessDecryptor(async () => [{ keyId: CURRENT_KEY.keyId, privateKeyPem: CURRENT_KEY.privateKeyPem }]));
    expect(decoded.error).toEqual(expect.any(String));
    expect(decoded).toMatchObject({ event: 'RETURN_REQUESTED', serviceReceiptId: 'sr-9', companyId: 'c0000000-0000-4000-8000-000000000001', ciphertext: expect.any(String) });
  });

  it('names no plaintext in its errors', async () => {
    const sealed = encryptJson({ ...returnRequest('sr-1'), refundPreference: 'CASH-4111111111111111' }, CURRENT_KEY.publicKey);
    const item = {
      created_at: new Date(NOW).toISOString(),
      serviceReceiptId: 'sr-1',
      publicKey: CURRENT_KEY.publicKey,
      encryptedCreditNoteInitiationRequest: sealed.ciphertext,
      encryptedSymmetricKey: sealed.wrappedKey,
    };
    const body = Buffer.from(JSON.stringify({ event: 'RETURN_REQUESTED', data: { creditNoteInitiationRequest: item } }));
    const decoded = await decodeDelivery(body, inProcessDecryptor(async () => [{ keyId: CURRENT_KEY.keyId, privateKeyPem: CURRENT_KEY.privateKeyPem }]));
    expect(decoded.data).toBeNull();
    expect(decoded.error).toContain('the decrypted return request is invalid: refundPreference');
    expect(decoded.error).not.toContain('4111');
  });

  it('reports a body that is not JSON', async () => {
    expect(await decodeDelivery(Buffer.from('not json'), inProcessDecryptor(async () => []))).toMatchObject({ event: null, data: null, error: 'the body is not UTF-8 JSON' });
  });
});

describe('writeEvent', () => {
  it('prints what a delivery says on one line, with no character that drives the terminal', () => {
    const t = testStreams({ json: true });
    const processed: ProcessedEvent = {
      report: { id: 'a'.repeat(64), event: 'RETURN_REQUESTED\u001b]0;pwned\u0007', receivedAt: '2026-11-21T10:00:00Z', verified: true, duplicate: false, data: null, error: 'bad\nline' },
      summary: 'receipt sr-1\u001b[2J\r\u202e  2 items',
    };
    writeEvent(t.io, processed);
    expect(t.stderr()).toBe(`--> RETURN_REQUESTED\\x1b]0;pwned\\x07  aaaaaaaaaaaa  receipt sr-1\\x1b[2J \\u202e  2 items  error: bad line\n`);
    expect(JSON.parse(t.stdout())).toEqual(processed.report);
  });
});
