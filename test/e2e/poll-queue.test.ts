// A queue long enough to be unwrapped on threads, on the built binary: `credit-note poll`
// decrypts every item, keeps the service's order, and gives the same items as JSON and as
// rows, and with --status only those of that status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs } from './helpers.js';
import { startMerchant, type Merchant, type PolledItem } from './merchant.js';

const dirs = tempDirs();
let m: Merchant;
const COUNT = 300;

beforeAll(async () => {
  m = await startMerchant(dirs);
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

describe('credit-note poll on a long queue', () => {
  it('decrypts every item in the service order, as JSON and as rows', async () => {
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', m.receiptFile, '--email', 'alice@example.com']);
    const bulk = await fetch(`${m.sandbox.url}/sandbox/return-requests/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ serviceReceiptId, count: COUNT }),
    });
    expect(bulk.status).toBe(201);
    const accepted = await m.json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId]);
    await m.svc(['credit-note', 'accept', accepted.requestId]);

    const polled = await m.json<PolledItem[]>(['credit-note', 'poll']);
    expect(polled).toHaveLength(COUNT + 1);
    expect(polled.filter((p) => p.decryptError !== undefined)).toEqual([]);
    expect(new Set(polled.map((p) => p.returnRequest?.serviceReceiptId))).toEqual(new Set([serviceReceiptId]));
    const plain = await m.json<{ requestId: string }[]>(['credit-note', 'poll', '--no-decrypt']);
    expect(polled.map((p) => p.requestId)).toEqual(plain.map((p) => p.requestId));

    const rows = (await m.svc(['credit-note', 'poll'])).stdout.trimEnd().split('\n');
    expect(rows.map((r) => r.split('\t')[0])).toEqual(plain.map((p) => p.requestId));
    // REQUEST ID, RECEIPT, STATUS, AGE, ITEMS, REFUND, NOTE: every row decrypted.
    expect(rows.filter((r) => r.split('\t')[4] === '-' || r.split('\t')[6]?.startsWith('error:'))).toEqual([]);

    const onlyAccepted = await m.json<PolledItem[]>(['credit-note', 'poll', '--status', 'accepted']);
    expect(onlyAccepted.map((p) => [p.requestId, p.status])).toEqual([[accepted.requestId, 'ACCEPTED']]);
    expect(onlyAccepted[0]?.returnRequest?.serviceReceiptId).toBe(serviceReceiptId);
  });
});
