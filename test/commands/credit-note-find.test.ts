// Finding a return by what the customer has, in poll and triage: a receipt's document number
// (from this profile's record, or the decrypted request when no record has it), --customer
// by what the merchant gave with the receipt, and the document number in the table.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as poll } from '../../src/commands/credit-note/poll.js';
import { run as triage } from '../../src/commands/credit-note/triage.js';
import type { ReturnRequest } from '../../src/contract/returns.js';
import { UsageError } from '../../src/errors.js';
import { groceries } from '../credit-notes/fixtures.js';
import { atTerminal, merchantKeys, queueItem, receiptRecord, scriptedPrompter, serveQueue, withKeys, type MerchantKeys } from './credit-note-setup.js';
import { NOW, closeHarnesses, harness, type Harness } from './receipts-setup.js';

const tokenSourceFor = vi.hoisted(() =>
  vi.fn(async (_f: unknown, _want?: { scope?: string }) => ({ token: async () => 'tok-1', invalidate: async () => {} })),
);
vi.mock('../../src/auth/session.js', () => ({ tokenSourceFor }));

let keys: MerchantKeys;
beforeAll(async () => {
  keys = await merchantKeys();
});
afterEach(async () => {
  await closeHarnesses();
});

const ID = (n: number) => `${String(n).repeat(8)}-0000-4000-8000-000000000000`;
const request = (serviceReceiptId: string, receiptId: string): ReturnRequest => ({
  serviceReceiptId,
  receiptId,
  lineItems: [{ productId: '4001234567890', quantity: 1, reasonCode: 'DAMAGED' }],
  refundPreference: 'STORE_CREDIT',
});

/** Alice's receipt R-2025-000871 (sr-alice, recorded here), Bob's R-2025-000990 (sr-bob, recorded), and one another machine issued. */
async function shop(h: Harness): Promise<void> {
  await withKeys(h, keys);
  const aliceReceipt = { ...receiptRecord(groceries(), 'sr-alice'), customer: { name: 'Alice Example', email: 'alice@example.com', phone: '+4915100000001' } };
  const bobReceipt = { ...receiptRecord({ ...groceries(), documentNumber: 'R-2025-000990' }, 'sr-bob'), customer: {}, lookup: { by: 'email', display: 'bob@example.com' } };
  await (await h.f.ledger()).importRecords({ receipts: [aliceReceipt, bobReceipt], creditNotes: [] });
  serveQueue(h, [
    queueItem(ID(1), request('sr-alice', 'R-2025-000871'), keys.current.publicKey, { serviceReceiptId: 'sr-alice', createdAt: new Date(NOW - 3_000).toISOString() }),
    queueItem(ID(2), request('sr-bob', 'R-2025-000990'), keys.current.publicKey, { serviceReceiptId: 'sr-bob', createdAt: new Date(NOW - 2_000).toISOString() }),
    queueItem(ID(3), request('sr-elsewhere', 'X-77'), keys.current.publicKey, { serviceReceiptId: 'sr-elsewhere', createdAt: new Date(NOW - 1_000).toISOString() }),
  ]);
}

async function polled(flags: Record<string, string>): Promise<string[]> {
  const h = await harness({ json: true });
  await shop(h);
  await poll({ interval: '10', decrypt: true, ...flags }, h.f);
  return (JSON.parse(h.streams.stdout()) as { requestId: string }[]).map((i) => i.requestId);
}

describe('poll finds a return by what the customer has', () => {
  it.each([
    [{ receipt: 'sr-alice' }, [ID(1)]],
    [{ receipt: 'R-2025-000871' }, [ID(1)]],
    [{ receipt: 'R-2025-0009' }, [ID(2)]],
    // Another machine's receipt: the document number in the decrypted request.
    [{ receipt: 'X-77' }, [ID(3)]],
    [{ customer: 'alice@' }, [ID(1)]],
    [{ customer: 'alice example' }, [ID(1)]],
    [{ customer: '+49 151' }, [ID(1)]],
    [{ customer: 'bob@example' }, [ID(2)]],
    [{ customer: 'carol' }, []],
    [{ customer: 'alice', receipt: 'R-2025-000990' }, []],
  ])('%o', async (flags, expected) => {
    expect(await polled(flags)).toEqual(expected);
  });

  it('a prefix of several document numbers is ambiguous (exit 2)', async () => {
    await expect(polled({ receipt: 'R-2025-000' })).rejects.toBeInstanceOf(UsageError);
  });

  it('the table on a terminal shows the document number', async () => {
    const h = await harness({ tty: true });
    await shop(h);
    await poll({ interval: '10', decrypt: true }, h.f);
    expect(h.streams.stdout()).toMatch(/^11111111\S*\s+R-2025-000871\s+PENDING/m);
    expect(h.streams.stdout()).toMatch(/^33333333\S*\s+X-77\s+PENDING/m);
  });
});

describe('the count line describes the queue and the view', () => {
  it('--limit 1 of 3: "1 of 3 shown · 3 pending · oldest 3s"', async () => {
    const h = await harness({ tty: true });
    await shop(h);
    await poll({ interval: '10', decrypt: true, limit: '1' }, h.f);
    expect(h.streams.stdout()).toContain('1 of 3 shown · 3 pending · oldest 3s');
  });

  it('every one shown: "2 requests · 1 pending · 1 accepted · oldest …"', async () => {
    const h = await harness({ tty: true });
    await withKeys(h, keys);
    serveQueue(h, [
      queueItem(ID(1), request('sr-1', 'R-1'), keys.current.publicKey, { createdAt: new Date(NOW - 7 * 86_400_000).toISOString() }),
      queueItem(ID(2), request('sr-1', 'R-1'), keys.current.publicKey, { status: 'ACCEPTED' }),
    ]);
    await poll({ interval: '10', decrypt: true }, h.f);
    expect(h.streams.stdout()).toContain('2 requests · 1 pending · 1 accepted · oldest 7d');
  });
});

describe('the count line names only statuses the view can hold', () => {
  it('--status ACCEPTED: "1 request · 1 accepted · …", no "0 pending" while requests are pending', async () => {
    const h = await harness({ tty: true });
    await withKeys(h, keys);
    serveQueue(h, [
      queueItem(ID(1), request('sr-1', 'R-1'), keys.current.publicKey),
      queueItem(ID(2), request('sr-1', 'R-1'), keys.current.publicKey, { status: 'ACCEPTED' }),
    ]);
    await poll({ interval: '10', decrypt: true, status: 'ACCEPTED' }, h.f);
    expect(h.streams.stdout()).toMatch(/^1 request · 1 accepted · oldest /m);
    expect(h.streams.stdout()).not.toContain('pending');
  });

  it('the open statuses with none pending still say "0 pending"', async () => {
    const h = await harness({ tty: true });
    await withKeys(h, keys);
    serveQueue(h, [queueItem(ID(2), request('sr-1', 'R-1'), keys.current.publicKey, { status: 'ACCEPTED' })]);
    await poll({ interval: '10', decrypt: true }, h.f);
    expect(h.streams.stdout()).toMatch(/^1 request · 0 pending · 1 accepted · oldest /m);
  });
});

describe('triage takes poll\'s filters', () => {
  it('walks only the requests of the customer asked for', async () => {
    const h = await harness();
    await shop(h);
    const person = scriptedPrompter([{ key: 'q' }]);
    atTerminal(h, person.prompter);
    await triage({ customer: 'bob@' }, h.f);
    expect(person.asked).toEqual([expect.stringMatching(/^key: 22222222 PENDING:/)]);
    expect(h.streams.stdout()).toMatch(/^request +22222222-/m);
    expect(h.streams.stdout()).not.toContain('11111111-');
  });

  it('nothing matching: says so, asks nothing', async () => {
    const h = await harness();
    await shop(h);
    const person = scriptedPrompter([]);
    atTerminal(h, person.prompter);
    await triage({ receipt: 'R-2025-000990', reason: 'defective' }, h.f);
    expect(h.streams.stderr()).toContain('there are no open return requests that match: nothing to triage');
  });
});
