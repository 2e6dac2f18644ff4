// `svc webhook listen` in-process over real HTTP on 127.0.0.1: what is answered, what is
// stored, and when.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { bodyId } from '../../src/crypto/hash.js';
import { nodeJournalFs, openJournal, type JournalFs } from '../../src/webhook/journal.js';
import { MAX_BODY_BYTES } from '../../src/contract/error.js';
import { startReceiver, type ReceiverOptions } from '../../src/webhook/receiver.js';
import { signPayload } from '../../src/webhook/signature.js';
import { closeHarnesses, harness, NOW } from '../commands/receipts-setup.js';
import {
  CURRENT_KEY,
  deliver,
  events,
  installKeys,
  NOW_SECONDS,
  OTHER_SECRET,
  readJournalFile,
  returnRequestedBody,
  SECRET,
  startListening,
  until,
  withSecret,
  type Listening,
} from './setup.js';

vi.mock('../../src/auth/session.js', () => ({ tokenSourceFor: async () => ({ token: async () => 'tok-1', invalidate: async () => {} }) }));

const running: Listening[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((l) => l.stop()));
  await closeHarnesses();
});

async function listening(opts: { json?: boolean } = {}) {
  const h = await harness({ json: opts.json ?? true });
  await withSecret(h.f);
  await installKeys(await h.f.secrets(), [CURRENT_KEY]);
  const l = await startListening(h);
  running.push(l);
  return { h, l };
}

describe('a verified delivery', () => {
  it('is answered 200 only once it is in the journal', async () => {
    const { l } = await listening();
    const body = returnRequestedBody('sr-1');
    const answer = await deliver(l.url, body);
    // Read at once: the 200 promised it was on disk.
    const { deliveries } = await readJournalFile(l.journalPath);
    expect(answer).toEqual({ status: 200, body: { received: true, id: bodyId(body), duplicate: false } });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      id: bodyId(body),
      event: 'RETURN_REQUESTED',
      headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, body, NOW_SECONDS) },
    });
    expect(Buffer.from(deliveries[0]!.body, 'base64').equals(body)).toBe(true);
  });

  it('is accepted with any known secret: a stored subscription secret, or one of several v1 entries', async () => {
    const h = await harness({ json: true });
    const store = await h.f.secrets();
    await store.set('webhook-secret/whsub_1', OTHER_SECRET);
    const { writePrivateFile } = await import('../../src/store/private-file.js');
    const subscription = { id: 'whsub_1', name: 'n', notificationUrl: 'http://127.0.0.1/webhooks', events: ['RETURN_REQUESTED'], createdAt: new Date(NOW).toISOString() };
    await writePrivateFile(join(h.stateDir, 'shop', 'webhooks'), 'subscriptions.json', JSON.stringify({ version: 1, subscriptions: [subscription] }));
    const l = await startListening(h);
    running.push(l);
    expect((await deliver(l.url, returnRequestedBody('sr-1'), { secret: OTHER_SECRET })).status).toBe(200);
    const body = returnRequestedBody('sr-2');
    const rotated = `t=${NOW_SECONDS},v1=${'0'.repeat(64)},v1=${signPayload(OTHER_SECRET, body, NOW_SECONDS).split('v1=')[1]}`;
    expect((await deliver(l.url, body, { signature: rotated })).status).toBe(200);
  });

  it('learns a subscription made while listening', async () => {
    const h = await harness({ json: true });
    await withSecret(h.f);
    const l = await startListening(h);
    running.push(l);
    const body = returnRequestedBody('sr-1');
    expect((await deliver(l.url, body, { secret: OTHER_SECRET })).status).toBe(400);

    await (await h.f.secrets()).set('webhook-secret/whsub_2', OTHER_SECRET);
    // Kept by another process: its own connection to the subscriptions file.
    const { openSubscriptionFile } = await import('../../src/store/subscription-file.js');
    const subscription = { id: 'whsub_2', name: 'n', notificationUrl: 'http://127.0.0.1/webhooks', events: ['RETURN_REQUESTED'], createdAt: new Date(NOW).toISOString() };
    const other = await openSubscriptionFile(join(h.stateDir, 'shop', 'webhooks', 'subscriptions.db'), () => undefined);
    other.put([{ id: subscription.id, grantId: undefined, notificationUrl: subscription.notificationUrl, record: JSON.stringify(subscription) }]);
    other.close();
    expect((await deliver(l.url, body, { secret: OTHER_SECRET })).status).toBe(200);
  });
});

describe('refused deliveries are answered 400 and nothing is stored', () => {
  const cases: [string, (body: Buffer) => Parameters<typeof deliver>[2], string][] = [
    ['no signature', () => ({ signature: null }), 'missing'],
    ['an empty signature', () => ({ signature: '' }), 'missing'],
    ['a malformed signature', () => ({ signature: 'sha256=abc' }), 'not of the form'],
    ['another secret', () => ({ secret: OTHER_SECRET }), 'no signature matches'],
    ['a body altered after signing', (body) => ({ signature: signPayload(SECRET, Buffer.concat([body, Buffer.from(' ')]), NOW_SECONDS) }), 'no signature matches'],
    ['a signature 301 s old', () => ({ t: NOW_SECONDS - 301 }), 'older than'],
    ['a signature 301 s ahead', () => ({ t: NOW_SECONDS + 301 }), 'ahead'],
  ];
  it.each(cases)('%s', async (_name, opts, problem) => {
    const { h, l } = await listening();
    const body = returnRequestedBody('sr-1');
    const answer = await deliver(l.url, body, opts(body));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'invalid_signature' });
    expect(String(answer.body.error_description)).toContain(problem);
    expect(await readJournalFile(l.journalPath)).toEqual({ deliveries: [], processed: [] });
    // No event, only the line that says it was refused (and why).
    expect(events(h)).toEqual([{ rejected: true, receivedAt: expect.any(String), status: 400, error: 'invalid_signature', reason: expect.any(String) }]);
    expect(h.streams.stderr()).toContain('refused a delivery: 400 ');
  });

  it('accepts a signature exactly 300 s old', async () => {
    const { l } = await listening();
    expect((await deliver(l.url, returnRequestedBody('sr-1'), { t: NOW_SECONDS - 300 })).status).toBe(200);
  });
});

describe('the route and the body', () => {
  /** A signed JSON body of exactly `size` bytes. */
  const padded = (size: number) => {
    const head = '{"event":"PADDING","data":{"pad":"';
    const tail = '"}}';
    return Buffer.from(head + 'x'.repeat(size - head.length - tail.length) + tail);
  };

  it('takes a body of exactly 1 MiB, and answers 413 to one byte more without storing it', async () => {
    const { l } = await listening();
    expect((await deliver(l.url, padded(MAX_BODY_BYTES))).status).toBe(200);
    const tooBig = await deliver(l.url, padded(MAX_BODY_BYTES + 1));
    expect(tooBig).toMatchObject({ status: 413, body: { error: 'payload_too_large' } });
    expect((await readJournalFile(l.journalPath)).deliveries).toHaveLength(1);
  });

  it('stops reading a body without Content-Length at the limit', async () => {
    const { l } = await listening();
    const big = padded(MAX_BODY_BYTES + 100);
    const chunks = () => Readable.from(Array.from({ length: Math.ceil(big.length / 65536) }, (_, i) => big.subarray(i * 65536, (i + 1) * 65536)));
    const res = await request(l.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, big, NOW_SECONDS) },
      body: chunks(),
    });
    expect(res.statusCode).toBe(413);
    await res.body.dump();
    expect((await readJournalFile(l.journalPath)).deliveries).toEqual([]);
  });

  it('answers 404 off the path, 405 to other methods, 415 to a body that is not JSON', async () => {
    const { l } = await listening();
    const body = returnRequestedBody('sr-1');
    const base = l.url.replace(/\/webhooks$/, '');
    expect((await deliver(`${base}/other`, body)).status).toBe(404);
    expect((await deliver(`${l.url}/x`, body)).status).toBe(404);
    // One segment below the path, not of a subscription's own path: said so, with the form one has.
    expect((await deliver(`${l.url}/gnonexistent`, body)).body).toMatchObject({
      error: 'not_found',
      error_description: 'no subscription has the path /webhooks/gnonexistent: deliveries are accepted at POST /webhooks, or at a subscription\'s own path below it (/webhooks/g followed by 24 hex digits)',
    });
    expect((await deliver(`${base}/other`, body)).body).toMatchObject({
      error_description: 'deliveries are accepted at POST /webhooks, or at a subscription\'s own path below it (/webhooks/g followed by 24 hex digits); this request was to /other',
    });
    expect((await deliver(l.url, body, { method: 'PUT' })).status).toBe(405);
    const refused = await deliver(l.url, body, { contentType: 'application/x-www-form-urlencoded' });
    expect(refused.status).toBe(415);
    // Says what it was sent with, not only what it wants.
    expect(refused.body).toMatchObject({ error: 'unsupported_media_type', error_description: 'sent with Content-Type "application/x-www-form-urlencoded"; a delivery has Content-Type: application/json' });
    expect((await deliver(l.url, body, { contentType: 'application/json; charset=utf-8' })).status).toBe(200);
    expect((await deliver(`${l.url}?attempt=2`, body)).body).toMatchObject({ duplicate: true });
    expect((await readJournalFile(l.journalPath)).deliveries).toHaveLength(1);
  });
});

describe('duplicates', () => {
  it('answers a retried body 200 again but processes it once', async () => {
    const { h, l } = await listening();
    const body = returnRequestedBody('sr-1');
    expect((await deliver(l.url, body)).body).toMatchObject({ duplicate: false });
    // A retry: same body, fresh signature time.
    expect(await deliver(l.url, body, { t: NOW_SECONDS + 5 })).toEqual({ status: 200, body: { received: true, id: bodyId(body), duplicate: true } });
    await until(() => events(h).length === 2, 'two event lines');
    await until(async () => (await readJournalFile(l.journalPath)).processed.length === 1, 'the processed marker');
    expect(events(h).map((e) => e.duplicate)).toEqual([false, true]);
    expect((await readJournalFile(l.journalPath)).deliveries).toHaveLength(1);
  });

  it('answers concurrent identical bodies both 2xx and processes one', async () => {
    const { h, l } = await listening();
    const body = returnRequestedBody('sr-1');
    const answers = await Promise.all([deliver(l.url, body), deliver(l.url, body), deliver(l.url, body)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.body.duplicate).sort()).toEqual([false, true, true]);
    await until(() => events(h).length === 3, 'three event lines');
    await l.stop();
    running.splice(0);
    const journal = await readJournalFile(l.journalPath);
    expect(journal.deliveries).toHaveLength(1);
    expect(journal.processed).toHaveLength(1);
    expect(events(h).filter((e) => !e.duplicate)).toHaveLength(1);
  });
});

describe('the journal underneath', () => {
  /** A receiver over a journal whose file system counts fsyncs or fails writes. */
  async function receiverWith(fs: JournalFs | undefined, dir: string, more: Pick<ReceiverOptions, 'starting' | 'onStarting'> = {}) {
    const journal = await openJournal(join(dir, 'journal.ndjson'), { clock: fixedClock(NOW), ...(fs === undefined ? {} : { fs }) });
    const acknowledged: string[] = [];
    const unstored: { id: string; companyId: string | undefined }[] = [];
    const receiver = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      path: '/webhooks',
      journal,
      secrets: () => [SECRET],
      clock: fixedClock(NOW),
      onDelivery: (d) => acknowledged.push(d.entry.id),
      onJournalError: (_error, raw, companyId) => unstored.push({ id: bodyId(raw), companyId }),
      ...more,
    });
    return {
      url: receiver.url,
      acknowledged,
      unstored,
      async close() {
        await receiver.close();
        await journal.close();
      },
    };
  }

  it('while starting: a delivery is answered 503 with Retry-After, counted, and neither journalled nor handed on; then taken', async () => {
    const h = await harness();
    let starting = true;
    let turnedAway = 0;
    const r = await receiverWith(undefined, h.stateDir, { starting: () => starting, onStarting: () => void (turnedAway += 1) });
    try {
      const body = returnRequestedBody('sr-starting');
      const early = await deliver(r.url, body);
      expect(early.status).toBe(503);
      expect(early.body).toMatchObject({ error: 'unavailable', error_description: 'the listener is starting; retry later' });
      expect(turnedAway).toBe(1);
      expect(r.acknowledged).toEqual([]);
      expect(r.unstored).toEqual([]);
      starting = false;
      expect((await deliver(r.url, body)).status).toBe(200);
      expect(r.acknowledged).toHaveLength(1);
    } finally {
      await r.close();
    }
  });

  it('group-commits: 64 concurrent deliveries take far fewer fsyncs than 64, and all are journalled', async () => {
    const h = await harness();
    let syncs = 0;
    const fs: JournalFs = {
      async openAppend(path) {
        const file = await nodeJournalFs.openAppend(path);
        return {
          async appendDurably(data) {
            // A disk's fsync latency, so that deliveries arrive while one is in flight.
            await new Promise((resolve) => setTimeout(resolve, 10));
            await file.appendDurably(data);
            syncs += 1;
          },
          close: () => file.close(),
        };
      },
    };
    const r = await receiverWith(fs, h.stateDir);
    try {
      const bodies = Array.from({ length: 64 }, (_, i) => returnRequestedBody(`sr-${i}`));
      const answers = await Promise.all(bodies.map((b) => deliver(r.url, b)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(syncs).toBeLessThan(16);
      expect((await readJournalFile(join(h.stateDir, 'journal.ndjson'))).deliveries).toHaveLength(64);
    } finally {
      await r.close();
    }
  });

  it('answers 503 when the journal cannot be written, and takes the retry', async () => {
    const h = await harness();
    let fail = true;
    const fs: JournalFs = {
      async openAppend(path) {
        const file = await nodeJournalFs.openAppend(path);
        return {
          async appendDurably(data) {
            if (fail) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
            await file.appendDurably(data);
          },
          close: () => file.close(),
        };
      },
    };
    const r = await receiverWith(fs, h.stateDir);
    try {
      const body = returnRequestedBody('sr-1');
      expect(await deliver(r.url, body)).toMatchObject({ status: 503, body: { error: 'unavailable' } });
      expect(r.acknowledged).toEqual([]);
      // Whose it was, as the verified envelope names it: the 503 log line carries it.
      expect(r.unstored).toEqual([{ id: bodyId(body), companyId: 'c0000000-0000-4000-8000-000000000001' }]);
      fail = false;
      expect(await deliver(r.url, body)).toMatchObject({ status: 200, body: { duplicate: false } });
      expect(r.acknowledged).toEqual([bodyId(body)]);
    } finally {
      await r.close();
    }
  });
});

describe('starting and stopping', () => {
  it('refuses to start without any secret to verify with', async () => {
    const h = await harness();
    await expect(startListening(h)).rejects.toThrow('knows no webhook signing secret');
  });

  it('says the port is in use', async () => {
    const { h, l } = await listening();
    const port = new URL(l.url).port;
    const other = await harness();
    await withSecret(other.f);
    await expect(startListening(other, { port })).rejects.toThrow(`port ${port} is in use`);
    expect(h.streams.stderr()).toContain('listening on');
  });

  it('on a signal stops accepting, finishes what is in flight and resolves', async () => {
    const { h, l } = await listening({ json: false });
    await deliver(l.url, returnRequestedBody('sr-1'));
    running.splice(0);
    await l.stop();
    await until(async () => (await readJournalFile(l.journalPath)).processed.length === 1, 'processing');
    await expect(deliver(l.url, returnRequestedBody('sr-2'))).rejects.toThrow();
    expect(h.streams.stderr()).toMatch(/--> RETURN_REQUESTED {2}[0-9a-f]{12} {2}receipt sr-1 {2}2 items/);
    expect(h.streams.stderr()).toContain('SIGTERM: finishing the deliveries in progress');
    expect(h.streams.stdout()).toBe('');
  });

  it('keeps decrypted data out of the journal', async () => {
    const { h, l } = await listening();
    await deliver(l.url, returnRequestedBody('sr-secret-receipt'));
    await until(() => events(h).length === 1, 'the event');
    const text = await readFile(l.journalPath, 'utf8');
    expect(text).not.toContain('R-sr-secret-receipt');
    expect(text).not.toContain('ORIGINAL_PAYMENT_METHOD');
    expect(JSON.stringify(events(h))).toContain('R-sr-secret-receipt');
  });
});
