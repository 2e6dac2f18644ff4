// Moves that are allowed, confirmed alike (issue 20): every picker and shell completion of
// every verb offers only the requests the verb can move (a table over all statuses × verbs,
// written out here rather than derived from the code's own table); a final move (REJECTED,
// COMPLETED, by its verb or by `status`) needs --yes without a terminal, and on one is
// confirmed naming each request's document number, lines and amount.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as completeSlot } from '../../src/commands/complete.js';
import { run as issue } from '../../src/commands/credit-note/issue.js';
import { run as show } from '../../src/commands/credit-note/show.js';
import { accept, complete, reject, run as setStatus } from '../../src/commands/credit-note/status.js';
import { rememberPolledRequests } from '../../src/completion/cache.js';
import type { QueueItem, ReturnRequest } from '../../src/contract/returns.js';
import { CancelError, ExitCode, UsageError } from '../../src/errors.js';
import type { Factory } from '../../src/factory.js';
import { groceries } from '../credit-notes/fixtures.js';
import { atTerminal, merchantKeys, queueItem, receiptRecord, scriptedPrompter, serveQueue, statusMoves, withKeys, type MerchantKeys } from './credit-note-setup.js';
import { NOW, closeHarnesses, harness } from './receipts-setup.js';

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

const STATUSES = ['PENDING', 'ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED', 'COMPLETED', 'CANCELLED'] as const;
const ID = (n: number) => `${String(n).repeat(8)}-0000-4000-8000-000000000000`;
const idOf = (status: string) => ID(STATUSES.indexOf(status as (typeof STATUSES)[number]) + 1);

const milkAndBread: ReturnRequest = {
  serviceReceiptId: 'sr-1',
  receiptId: 'R-2025-000871',
  lineItems: [
    { productId: '4001234567890', quantity: 2, reasonCode: 'DAMAGED' },
    { productId: '4009876543210', quantity: 1, reasonCode: 'DAMAGED' },
  ],
  refundPreference: 'STORE_CREDIT',
};

/** One request in each status, oldest first in the table's order. */
function everyStatus(): QueueItem[] {
  return STATUSES.map((status, i) => queueItem(idOf(status), milkAndBread, keys.current.publicKey, { status, createdAt: new Date(NOW - (10 - i) * 60_000).toISOString() }));
}

/** What each verb may offer, by hand: the service's moves (docs/interface-decisions.md#return-request-moves), per verb. */
const PICKERS: [string, (f: Factory) => Promise<unknown>, string[]][] = [
  ['show', (f) => show({ reveal: false }, f), ['PENDING', 'ACCEPTED', 'PARTIALLY_ACCEPTED']],
  ['accept', (f) => accept.run({ requestIds: [], partial: false }, f), ['PENDING']],
  ['accept --partial', (f) => accept.run({ requestIds: [], partial: true }, f), ['PENDING']],
  ['reject', (f) => reject.run({ requestIds: [], yes: true }, f), ['PENDING']],
  ['complete', (f) => complete.run({ requestIds: [], yes: true, creditedElsewhere: true }, f), ['ACCEPTED', 'PARTIALLY_ACCEPTED']],
  ['issue', (f) => issue({ dryRun: true }, f), ['ACCEPTED', 'PARTIALLY_ACCEPTED']],
  ['status ACCEPTED', (f) => setStatus({ status: 'ACCEPTED' }, f), ['PENDING']],
  ['status PARTIALLY_ACCEPTED', (f) => setStatus({ status: 'PARTIALLY_ACCEPTED' }, f), ['PENDING']],
  ['status REJECTED', (f) => setStatus({ status: 'REJECTED', yes: true }, f), ['PENDING']],
  ['status COMPLETED', (f) => setStatus({ status: 'COMPLETED', yes: true, creditedElsewhere: true }, f), ['ACCEPTED', 'PARTIALLY_ACCEPTED']],
];

describe('pickers offer only the requests the verb can move', () => {
  it.each(PICKERS)('%s', async (_verb, go, movable) => {
    const h = await harness();
    await withKeys(h, keys);
    const person = scriptedPrompter([{ cancel: true }]);
    atTerminal(h, person.prompter);
    serveQueue(h, everyStatus());
    await expect(go(h.f)).rejects.toBeInstanceOf(CancelError);
    expect(person.choices[0]?.map((c) => c.value)).toEqual(movable.map(idOf));
    expect(statusMoves(h)).toEqual([]);
  });

  it('none movable: exit 6 naming the statuses the verb moves; nothing asked', async () => {
    const h = await harness();
    await withKeys(h, keys);
    const person = scriptedPrompter([]);
    atTerminal(h, person.prompter);
    serveQueue(h, everyStatus().filter((i) => i.status !== 'ACCEPTED' && i.status !== 'PARTIALLY_ACCEPTED'));
    const error = await complete.run({ requestIds: [], creditedElsewhere: true }, h.f).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: ExitCode.notFound, message: "there are no return requests of your API key's company to complete: none is ACCEPTED or PARTIALLY_ACCEPTED" });
    expect(person.asked).toEqual([]);
  });
});

/** What completion may offer, by path; show offers every request the last poll listed. */
const COMPLETIONS: [string, string[]][] = [
  ['credit-note show', [...STATUSES]],
  ['credit-note accept', ['PENDING']],
  ['credit-note reject', ['PENDING']],
  ['credit-note complete', ['ACCEPTED', 'PARTIALLY_ACCEPTED']],
  ['credit-note issue', ['ACCEPTED', 'PARTIALLY_ACCEPTED']],
  ['credit-note status', ['PENDING', 'ACCEPTED', 'PARTIALLY_ACCEPTED']],
  ['sandbox trigger cancel', ['PENDING']],
];

describe('completion offers only the requests the verb can move', () => {
  it.each(COMPLETIONS)('%s', async (path, movable) => {
    const h = await harness();
    await rememberPolledRequests(h.f, { requests: everyStatus(), whole: [''] });
    await completeSlot({ words: [path, 'request-id'] }, h.f);
    expect(h.streams.stdout().split('\n').filter(Boolean)).toEqual(movable.map(idOf));
  });

  it('a move made here updates what completion offers', async () => {
    const h = await harness();
    await withKeys(h, keys);
    serveQueue(h, everyStatus());
    await rememberPolledRequests(h.f, { requests: everyStatus(), whole: [''] });
    await accept.run({ requestIds: [idOf('PENDING')], partial: false }, h.f);
    await completeSlot({ words: ['credit-note reject', 'request-id'] }, h.f);
    await completeSlot({ words: ['credit-note complete', 'request-id'] }, h.f);
    // Reject offers nothing now; complete offers the request just accepted beside the others.
    const offered = h.streams.stdout().split('\n').slice(1).filter(Boolean);
    expect(h.streams.stdout()).toMatch(/^\S+ ACCEPTED\n/);
    expect(offered).toEqual([idOf('PENDING'), idOf('ACCEPTED'), idOf('PARTIALLY_ACCEPTED')]);
  });
});

describe('final moves: --yes without a terminal, a confirmation naming what is moved on one', () => {
  it.each([
    ['reject', (f: Factory) => reject.run({ requestIds: [idOf('PENDING')] }, f), 'reject'],
    ['status REJECTED', (f: Factory) => setStatus({ requestId: idOf('PENDING'), status: 'REJECTED' }, f), 'reject'],
    ['complete', (f: Factory) => complete.run({ requestIds: [idOf('ACCEPTED')], creditedElsewhere: true }, f), 'complete'],
    ['status COMPLETED', (f: Factory) => setStatus({ requestId: idOf('ACCEPTED'), status: 'completed', creditedElsewhere: true }, f), 'complete'],
  ])('%s without a terminal and without --yes: exit 2 naming --yes, nothing sent', async (_name, go, verb) => {
    const h = await harness();
    await withKeys(h, keys);
    serveQueue(h, everyStatus());
    const error = (await go(h.f).catch((e: unknown) => e)) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toContain(`${verb} request`);
    expect(error.message).toContain('needs --yes');
    expect(statusMoves(h)).toEqual([]);
  });

  it('reject and status REJECTED ask alike, naming the document, lines and amount; no: nothing moved (exit 3)', async () => {
    for (const go of [
      (f: Factory) => reject.run({ requestIds: [idOf('PENDING')] }, f),
      (f: Factory) => setStatus({ requestId: idOf('PENDING'), status: 'REJECTED' }, f),
    ]) {
      const h = await harness();
      await withKeys(h, keys);
      await (await h.f.ledger()).importRecords({ receipts: [receiptRecord(groceries())], creditNotes: [] });
      const person = scriptedPrompter([{ confirm: false }]);
      atTerminal(h, person.prompter);
      serveQueue(h, everyStatus());
      await expect(go(h.f)).rejects.toMatchObject({ exitCode: ExitCode.cancelled, message: 'cancelled: nothing was rejected' });
      // 2 of 2 milk (2.55) and 1 of 1 bread (3.52).
      expect(person.asked).toEqual(["confirm: Reject request 11111111 on R-2025-000871 (2 × Whole milk 3.5% 1 l, 1 × Sourdough bread 750 g, 6.07 EUR) of your API key's company? No credit note is issued. It cannot be moved again."]);
      expect(statusMoves(h)).toEqual([]);
    }
  });

  it('several at once: each named; yes moves them all', async () => {
    const h = await harness();
    await withKeys(h, keys);
    const person = scriptedPrompter([{ confirm: true }]);
    atTerminal(h, person.prompter);
    serveQueue(h, everyStatus());
    await complete.run({ requestIds: [idOf('ACCEPTED'), idOf('PARTIALLY_ACCEPTED')], creditedElsewhere: true }, h.f);
    // No record of the receipt here: the product IDs, and no amount; the same document told apart by request ID.
    // The one accepted in part on another machine: its part is not known here, so what was asked is said as that.
    expect(person.asked).toEqual([
      `confirm: Complete these 2 requests? They cannot be moved again.\n  R-2025-000871 (2 × 4001234567890, 1 × 4009876543210) of your API key's company, request ${idOf('ACCEPTED').slice(0, 8)}, with NO credit note: nothing is credited\n  R-2025-000871 (accepted in part, the part not recorded here; asked: 2 × 4001234567890, 1 × 4009876543210) of your API key's company, request ${idOf('PARTIALLY_ACCEPTED').slice(0, 8)}, with NO credit note: nothing is credited\n`,
    ]);
    expect(statusMoves(h)).toEqual([
      [idOf('ACCEPTED'), 'COMPLETED'],
      [idOf('PARTIALLY_ACCEPTED'), 'COMPLETED'],
    ]);
  });
});

describe('accept --item against a colleague at the same moment', () => {
  it('a part a colleague recorded between this one\'s read and its record is not overwritten unseen: exit 7 naming it, nothing moved', async () => {
    const h = await harness();
    await withKeys(h, keys);
    serveQueue(h, [queueItem(idOf('PENDING'), milkAndBread, keys.current.publicKey)]);
    const ledger = await h.f.ledger();
    const keep = ledger.keepAcceptedPart.bind(ledger);
    ledger.keepAcceptedPart = async (...args) => {
      await keep({ requestId: idOf('PENDING'), items: [{ productId: '4009876543210', quantity: 1 }], acceptedAt: new Date(NOW).toISOString(), acceptedBy: 'colleague@desk' });
      return keep(...args);
    };
    const error = (await accept.run({ requestIds: [idOf('PENDING')], partial: true, item: ['4001234567890:1'] }, h.f).catch((e: unknown) => e)) as UsageError;
    expect(error.exitCode).toBe(ExitCode.conflict);
    expect(error.message).toMatch(/changed while this ran: it is now 4009876543210:1 \(recorded .* by colleague@desk\)$/);
    expect(statusMoves(h)).toEqual([]);
    expect((await ledger.acceptedPart(idOf('PENDING')))?.items).toEqual([{ productId: '4009876543210', quantity: 1 }]);
  });
});

describe('accept --item over a colleague\'s part', () => {
  it('replaces it once the move succeeded, and says whose part it replaced', async () => {
    const h = await harness();
    await withKeys(h, keys);
    serveQueue(h, [queueItem(idOf('PARTIALLY_ACCEPTED'), milkAndBread, keys.current.publicKey, { status: 'PARTIALLY_ACCEPTED' })]);
    const ledger = await h.f.ledger();
    await ledger.keepAcceptedPart({ requestId: idOf('PARTIALLY_ACCEPTED'), items: [{ productId: '4009876543210', quantity: 1 }], acceptedAt: '2026-11-26T10:00:00.000Z', acceptedBy: 'colleague@desk' });
    await accept.run({ requestIds: [idOf('PARTIALLY_ACCEPTED')], partial: true, item: ['4001234567890:1'] }, h.f);
    expect(h.streams.stderr()).toContain('replaced the part 4009876543210:1 recorded 2026-11-26T10:00:00.000Z by colleague@desk');
    expect((await ledger.acceptedPart(idOf('PARTIALLY_ACCEPTED')))?.items).toEqual([{ productId: '4001234567890', quantity: 1 }]);
  });
});
