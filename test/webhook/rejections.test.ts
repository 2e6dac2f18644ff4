// A refused delivery is told, with what a person can act on: the clock skew and which side
// is ahead, how many secrets were tried, a body too large, a signed body that is not JSON
// (415, not journalled). Never the body or a secret.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { MAX_BODY_BYTES } from '../../src/contract/error.js';
import { writePrivateFile } from '../../src/store/private-file.js';
import { openJournal, type Journal } from '../../src/webhook/journal.js';
import { startReceiver, type Rejection, type RunningReceiver } from '../../src/webhook/receiver.js';
import { signPayload } from '../../src/webhook/signature.js';
import { closeHarnesses, harness, NOW } from '../commands/receipts-setup.js';
import { deliver, NOW_SECONDS, OTHER_SECRET, SECRET, startListening, withSecret } from './setup.js';

let dir: string;
let journal: Journal;
let receiver: RunningReceiver;
let rejected: Rejection[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-rejections-'));
  journal = await openJournal(join(dir, 'journal.ndjson'), { clock: fixedClock(NOW) });
  rejected = [];
  receiver = await startReceiver({
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    journal,
    secrets: () => [SECRET, OTHER_SECRET],
    clock: fixedClock(NOW),
    maxBodyBytes: 1024,
    onDelivery: () => {},
    onJournalError: () => {},
    onRejected: (r) => rejected.push(r),
  });
});
afterEach(async () => {
  await receiver.close();
  await journal.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(body: Buffer, signature: string): Promise<number> {
  const res = await request(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body });
  await res.body.dump();
  return res.statusCode;
}
const event = Buffer.from(JSON.stringify({ event: 'RETURN_REQUESTED', data: {} }));

describe('rejected deliveries', () => {
  it('a stale signature names the skew and that this clock is ahead', async () => {
    expect(await post(event, signPayload(SECRET, event, NOW_SECONDS - 86_400))).toBe(400);
    expect(rejected).toEqual([{ status: 400, code: 'invalid_signature', kind: 'signed too long ago (stale)', signature: 'stale', reason: expect.stringMatching(/^stale signature: signed 86400 s before this clock's now \(tolerance 300 s\); this machine's clock is ahead/) }]);
  });

  it('a signature from the future names the skew and that the sender is ahead', async () => {
    expect(await post(event, signPayload(SECRET, event, NOW_SECONDS + 3_600))).toBe(400);
    expect(rejected[0]?.reason).toMatch(/^signature from the future: signed 3600 s after this clock's now .*the sender's clock is ahead/);
  });

  it('no matching secret says how many were tried, and never a secret', async () => {
    expect(await post(event, signPayload('whsec_bm90LWEta25vd24tc2VjcmV0LWF0LWFsbC0xMjM0NTY=', event, NOW_SECONDS))).toBe(400);
    expect(rejected[0]?.reason).toMatch(/^no secret matched \(2 secrets tried\)/);
    expect(JSON.stringify(rejected)).not.toContain(SECRET);
  });

  it('a body too large: 413, said', async () => {
    const big = Buffer.from(JSON.stringify({ pad: 'x'.repeat(2048) }));
    expect(await post(big, signPayload(SECRET, big, NOW_SECONDS))).toBe(413);
    expect(rejected[0]).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  it('a validly signed body that is not JSON, or not UTF-8: 415, not journalled', async () => {
    for (const body of [Buffer.from('not json at all'), Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])]) {
      expect(await post(body, signPayload(SECRET, body, NOW_SECONDS))).toBe(415);
    }
    expect(rejected.map((r) => r.code)).toEqual(['unsupported_media_type', 'unsupported_media_type']);
    await journal.close();
    expect(await readFile(journal.path, 'utf8').catch(() => '')).toBe('');
  });
});

describe('webhook listen, when it stops', () => {
  afterEach(() => closeHarnesses());

  it('counts the deliveries it refused by reason, in words, the most frequent first', async () => {
    const h = await harness();
    await withSecret(h.f);
    const l = await startListening(h);
    const sends: [Buffer, Parameters<typeof deliver>[2]][] = [
      [event, { t: NOW_SECONDS - 86_400 }],
      [event, { t: NOW_SECONDS + 3_600 }],
      [event, { secret: OTHER_SECRET }],
      [event, { signature: null }],
      [event, { t: NOW_SECONDS - 400 }],
      [event, { signature: 'sha256=abc' }],
      [event, { t: NOW_SECONDS - 301 }],
      [Buffer.alloc(MAX_BODY_BYTES + 1, 0x20), {}],
      [event, { t: NOW_SECONDS + 301 }],
      [Buffer.from('not json'), {}],
      [event, { secret: OTHER_SECRET }],
      [event, { t: NOW_SECONDS - 3_600 }],
    ];
    try {
      for (const [body, opts] of sends) expect((await deliver(l.url, body, opts)).status).toBeGreaterThanOrEqual(400);
    } finally {
      await l.stop();
    }
    expect(h.streams.stderr()).toContain(
      'refused 12 deliveries while listening: 4 × signed too long ago (stale), 2 × signed in the future, 2 × no secret matched, ' +
        '1 × no signature header, 1 × malformed signature header, 1 × body too large, 1 × body not JSON\n',
    );
  });
});

describe('webhook listen with SVC_WEBHOOK_SECRET set, a delivery no secret matched', () => {
  afterEach(() => closeHarnesses());
  const THIRD_SECRET = 'whsec_dGhpcmQtc2VjcmV0LXRoaXJkLXNlY3JldC10aGlyZC0xMjM=';

  async function refusedLine(setUp: (h: Awaited<ReturnType<typeof harness>>) => Promise<void> = async () => {}): Promise<string> {
    const h = await harness({ env: { SVC_WEBHOOK_SECRET: SECRET } });
    await setUp(h);
    const l = await startListening(h);
    try {
      expect((await deliver(l.url, event, { secret: OTHER_SECRET })).status).toBe(400);
    } finally {
      await l.stop();
    }
    const stderr = h.streams.stderr();
    for (const secret of [SECRET, OTHER_SECRET, THIRD_SECRET]) expect(stderr).not.toContain(secret);
    return stderr.split('\n').find((line) => line.startsWith('refused a delivery')) ?? '';
  }

  it('as the one secret tried: says the delivery was not signed with it, not to set it', async () => {
    expect(await refusedLine()).toBe(
      'refused a delivery: 400 no secret matched (1 secret tried): the delivery was not signed with SVC_WEBHOOK_SECRET; ' +
        "check that SVC_WEBHOOK_SECRET is the secret of the subscription that sends here",
    );
  });

  it("beside a subscription's secret: says it was signed with neither", async () => {
    const line = await refusedLine(async (h) => {
      await (await h.f.secrets()).set('webhook-secret/whsub_1', THIRD_SECRET);
      const subscription = { id: 'whsub_1', name: 'n', notificationUrl: 'http://127.0.0.1/webhooks', events: ['RETURN_REQUESTED'], createdAt: new Date(NOW).toISOString() };
      await writePrivateFile(join(h.stateDir, 'shop', 'webhooks'), 'subscriptions.json', JSON.stringify({ version: 1, subscriptions: [subscription] }));
    });
    expect(line).toBe(
      "refused a delivery: 400 no secret matched (2 secrets tried): the delivery was not signed with SVC_WEBHOOK_SECRET nor with the secret of this profile's subscription; " +
        'check that SVC_WEBHOOK_SECRET is the secret of the subscription that sends here',
    );
  });
});
