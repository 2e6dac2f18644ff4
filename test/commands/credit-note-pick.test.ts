// A request ID left out: on a terminal the open requests to choose from, oldest first, and
// the command goes on with the one chosen; without a terminal the usage error names the
// argument and where its values come from, before anything is fetched. And the reason of a
// rejection, kept in the ledger only.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as show } from '../../src/commands/credit-note/show.js';
import { accept, complete, reject, run as setStatus } from '../../src/commands/credit-note/status.js';
import { run as issue } from '../../src/commands/credit-note/issue.js';
import type { ReturnRequest } from '../../src/contract/returns.js';
import { choiceLabels } from '../../src/credit-notes/pick.js';
import type { ReadItem } from '../../src/credit-notes/queue.js';
import { CancelError, ExitCode, NotFoundError, UsageError } from '../../src/errors.js';
import type { Factory } from '../../src/factory.js';
import { displayWidth } from '../../src/io/width.js';
import { groceries } from '../credit-notes/fixtures.js';
import { atTerminal, merchantKeys, queueItem, receiptRecord, scriptedPrompter, serveQueue, statusMoves, withKeys, type MerchantKeys } from './credit-note-setup.js';
import { NOW, closeHarnesses, harness, parseArgv } from './receipts-setup.js';

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
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();

function request(lines: [string, number][], receiptId = 'R-2025-000871'): ReturnRequest {
  return {
    serviceReceiptId: 'sr-1',
    receiptId,
    lineItems: lines.map(([productId, quantity]) => ({ productId, quantity, reasonCode: 'DAMAGED' })),
    refundPreference: 'STORE_CREDIT',
  };
}

/** Three open requests (listed newest first) and two closed ones. */
const queue = () => [
  queueItem(ID(3), request([['4001234567890', 1]]), keys.current.publicKey, { createdAt: minutesAgo(3) }),
  queueItem(ID(5), request([['4001234567890', 1]]), keys.current.publicKey, { createdAt: minutesAgo(90), status: 'COMPLETED' }),
  queueItem(ID(2), request([['4001111222333', 2], ['4001234567890', 1]], 'R-2025-000872'), keys.current.publicKey, { createdAt: minutesAgo(20), status: 'ACCEPTED' }),
  queueItem(ID(6), request([['4001234567890', 1]]), keys.current.publicKey, { createdAt: minutesAgo(80), status: 'CANCELLED' }),
  queueItem(ID(1), request([['4001234567890', 2]]), keys.older.publicKey, { createdAt: minutesAgo(2 * 24 * 60) }),
];

describe('the request ID left out, on a terminal', () => {
  it('accept: the PENDING requests of the company oldest first, each with short ID, status, age, receipt and lines; the one chosen is accepted', async () => {
    const h = await harness();
    await withKeys(h, keys);
    const person = scriptedPrompter([{ select: ID(3) }]);
    atTerminal(h, person.prompter);
    serveQueue(h, queue());

    await accept.run({ requestIds: [], partial: false }, h.f);

    expect(person.asked).toEqual(["select: Which return request of your API key's company to accept?"]);
    // No record of the receipt here: the product IDs, and no amount.
    expect(person.choices[0]).toEqual([
      { name: '11111111  PENDING  2d  R-2025-000871  2 × 4001234567890', value: ID(1) },
      { name: '33333333  PENDING  3m  R-2025-000871  1 × 4001234567890', value: ID(3) },
    ]);
    expect(statusMoves(h)).toEqual([[ID(3), 'ACCEPTED']]);
    expect(h.streams.stdout()).toBe(`${ID(3)} ACCEPTED\n`);
  });

  it('show, complete, status STATUS and reject go on with the request chosen', async () => {
    for (const [verb, go, asked] of [
      ['show', (f: Factory) => show({ reveal: false }, f), "Which return request of your API key's company to show?"],
      ['complete', (f: Factory) => complete.run({ requestIds: [], yes: true, creditedElsewhere: true }, f), "Which return request of your API key's company to complete?"],
      ['status', (f: Factory) => setStatus({ status: 'completed', yes: true, creditedElsewhere: true }, f), "Which return request of your API key's company to set to COMPLETED?"],
      ['reject', (f: Factory) => reject.run({ requestIds: [], yes: true }, f), "Which return request of your API key's company to reject?"],
    ] as const) {
      const h = await harness();
      await withKeys(h, keys);
      const person = scriptedPrompter([{ select: verb === 'reject' ? ID(1) : ID(2) }]);
      atTerminal(h, person.prompter);
      serveQueue(h, queue());
      await go(h.f);
      expect(person.asked, verb).toEqual([`select: ${asked}`]);
      if (verb === 'show') expect(h.streams.stdout()).toMatch(new RegExp(`^request +${ID(2)}$`, 'm'));
      else expect(statusMoves(h), verb).toEqual([[verb === 'reject' ? ID(1) : ID(2), verb === 'reject' ? 'REJECTED' : 'COMPLETED']]);
    }
  });

  it('issue goes on with the request chosen: its checks and preview, here as a dry run', async () => {
    const h = await harness();
    await withKeys(h, keys);
    await (await h.f.ledger()).importRecords({ receipts: [receiptRecord(groceries())], creditNotes: [] });
    const person = scriptedPrompter([{ select: ID(3) }]);
    atTerminal(h, person.prompter);
    // Issue offers the accepted requests.
    serveQueue(h, queue().map((i) => (i.requestId === ID(3) ? { ...i, status: 'ACCEPTED' } : i)));
    await issue({ dryRun: true }, h.f);
    expect(person.asked).toEqual(["select: Which return request of your API key's company to credit?"]);
    // The receipt recorded here: the products by name and what they come to, in a column of its own.
    expect(person.choices[0]).toEqual([
      { name: '22222222  ACCEPTED  20m  R-2025-000872  2 × Sparkling mineral water 0.75 l, 1 × Whole milk 3.5% 1 l  2.68 EUR', value: ID(2) },
      { name: `33333333  ACCEPTED   3m  R-2025-000871  1 × Whole milk 3.5% 1 l${' '.repeat(38)}1.28 EUR`, value: ID(3) },
    ]);
    expect(h.streams.stderr()).toContain('dry run: every check passed; credit note CN-R-2025-000871-1 was not issued');
    expect(statusMoves(h)).toEqual([]);
  });

  it('Esc or Ctrl-C in the list: cancelled (exit 3), nothing changed', async () => {
    const h = await harness();
    await withKeys(h, keys);
    atTerminal(h, scriptedPrompter([{ cancel: true }]).prompter);
    serveQueue(h, queue());
    const error = (await reject.run({ requestIds: [] }, h.f).catch((e: unknown) => e)) as CancelError;
    expect(error).toBeInstanceOf(CancelError);
    expect(error.exitCode).toBe(ExitCode.cancelled);
    expect(error.message).toBe('cancelled: no request was chosen, nothing was changed');
    expect(statusMoves(h)).toEqual([]);
  });

  it('an empty queue: NotFoundError (exit 6) saying where the closed ones are', async () => {
    const h = await harness();
    await withKeys(h, keys);
    const person = scriptedPrompter([]);
    atTerminal(h, person.prompter);
    serveQueue(h, queue().filter((i) => i.status === 'COMPLETED'));
    const error = (await accept.run({ requestIds: [], partial: false }, h.f).catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.hint).toContain('svc credit-note poll --all');
    expect(person.asked).toEqual([]);
  });

  it('labels fit the terminal and carry no control character of what the customer sent', async () => {
    const hostile = { ...queueItem(ID(1), request([['P\x1b[2J', 1]], 'R-1\u202e'), keys.current.publicKey), returnRequest: request([['P\x1b[2J', 1]], 'R-1\u202e') } as ReadItem;
    const long = { ...hostile, requestId: ID(2), returnRequest: request(Array.from({ length: 30 }, (_, i) => [`SKU-${i}`, 1] as [string, number])) } as ReadItem;
    const unreadable = { ...queueItem(ID(3), request([['x', 1]]), keys.current.publicKey), decryptError: 'cannot decrypt: no private key matches' } as ReadItem;
    const { labels } = await choiceLabels([hostile, long, unreadable], NOW, 60);
    for (const label of labels) {
      expect(label).not.toMatch(/[\x00-\x1f\x7f\u202e]/);
      expect(displayWidth(label)).toBeLessThanOrEqual(57);
    }
    expect(labels[0]).toContain('1 × P\\x1b[2J');
    // The amount is whole, the names cut before it (a record of the receipt gives one).
    const { labels: priced } = await choiceLabels([{ ...long, returnRequest: request(Array.from({ length: 12 }, () => ['4001234567890', 1] as [string, number])) } as ReadItem], NOW, 60, new Map([[long.serviceReceiptId, receiptRecord(groceries(), long.serviceReceiptId)]]));
    expect(priced[0]).toMatch(/…  \d+\.\d{2} EUR$/);
    expect(displayWidth(priced[0]!)).toBeLessThanOrEqual(57);
    expect(labels[1]).toMatch(/…$/);
    expect(labels[2]).toMatch(/^33333333 +PENDING +5m +- +cannot read: can/);
  });
});

describe('the request ID left out, without a terminal', () => {
  it('is the usage error it always was (exit 2), naming REQUEST-ID and where IDs come from; nothing is fetched', async () => {
    for (const go of [
      (f: Factory) => show({ reveal: false }, f),
      (f: Factory) => accept.run({ requestIds: [], partial: false }, f),
      (f: Factory) => reject.run({ requestIds: [], yes: true }, f),
      (f: Factory) => complete.run({ requestIds: [], creditedElsewhere: true }, f),
      (f: Factory) => setStatus({ status: 'ACCEPTED' }, f),
      (f: Factory) => issue({ yes: true }, f),
    ]) {
      const h = await harness();
      const error = (await go(h.f).catch((e: unknown) => e)) as UsageError;
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toBe('missing REQUEST-ID: the return request; `svc credit-note poll` lists their IDs');
      expect(error.hint).toMatch(/^usage: svc credit-note \w+ \[options\] \[request-id(\.\.\.)?\]( <status>)?; on a terminal, leave it out to choose from the open requests$/);
      expect(h.sent).toEqual([]);
    }
  });
});

describe('argv → options, the request ID optional', () => {
  it('maps a missing ID to none, and one argument of status to the STATUS', async () => {
    expect(await parseArgv(['credit-note', 'show'])).toEqual([{ requestId: undefined, reveal: false }]);
    expect(await parseArgv(['credit-note', 'accept'])).toEqual([{ requestIds: [], partial: false }]);
    expect(await parseArgv(['credit-note', 'reject', '--reason', 'worn'])).toEqual([{ requestIds: [], yes: undefined, reason: 'worn' }]);
    expect(await parseArgv(['credit-note', 'complete'])).toEqual([{ requestIds: [], yes: undefined }]);
    expect(await parseArgv(['credit-note', 'issue', '--dry-run'])).toEqual([{ requestId: undefined, dryRun: true }]);
    expect(await parseArgv(['credit-note', 'triage'])).toEqual([{}]);
    expect(await parseArgv(['credit-note', 'status', 'accepted'])).toEqual([{ requestId: undefined, status: 'accepted' }]);
    expect(await parseArgv(['credit-note', 'status', 'req-1', 'ACCEPTED'])).toEqual([{ requestId: 'req-1', status: 'ACCEPTED' }]);
    // An ID alone still lacks its STATUS; nothing at all too.
    await expect(parseArgv(['credit-note', 'status', 'req-1'])).rejects.toMatchObject({ code: 'commander.missingArgument', message: expect.stringContaining('missing STATUS') });
    await expect(parseArgv(['credit-note', 'status'])).rejects.toMatchObject({ code: 'commander.missingArgument' });
  });
});

describe('a rejection\'s reason', () => {
  it('reject --reason sends only { status } and keeps the reason in the ledger, which show prints', async () => {
    const h = await harness({ env: { TZ: 'UTC' } });
    await withKeys(h, keys);
    serveQueue(h, queue());
    await reject.run({ requestIds: [ID(1)], yes: true, reason: '  worn, no tags  ' }, h.f);
    expect(statusMoves(h)).toEqual([[ID(1), 'REJECTED']]);
    expect(JSON.stringify(h.sent)).not.toContain('worn');
    const first = { reason: 'worn, no tags', rejectedAt: new Date(NOW).toISOString(), rejectedBy: expect.stringMatching(/.@./) };
    expect(await (await h.f.ledger()).rejection(ID(1))).toEqual(first);
    await show({ requestId: ID(1), reveal: false }, h.f);
    expect(h.streams.stdout()).toMatch(/^reason +worn, no tags \(rejected 2025-03-14 16:42 UTC by [^ ;]+@[^ ;]+; kept on this machine only\)$/m);
  });

  it('rejecting a request rejected before keeps the first rejection and says so: its reason stands, the new one is not recorded', async () => {
    const h = await harness({ env: { TZ: 'UTC' } });
    await withKeys(h, keys);
    serveQueue(h, queue());
    await reject.run({ requestIds: [ID(1)], yes: true, reason: 'worn, no tags' }, h.f);
    await reject.run({ requestIds: [ID(1)], yes: true, reason: 'third reason' }, h.f);
    expect(h.streams.stdout()).toMatch(new RegExp(`^${ID(1)} REJECTED \\(it already was: rejected 2025-03-14 16:42 UTC by [^ ,]+@[^ ,]+, reason "worn, no tags"; the reason "third reason" was not recorded\\)$`, 'm'));
    expect(h.streams.stdout()).not.toContain('nothing changed');
    expect(await (await h.f.ledger()).rejection(ID(1))).toMatchObject({ reason: 'worn, no tags' });
  });

  it('--json says the same: the rejection that stands (reason, when, who) and whether the reason given was recorded; without --reason, the one kept', async () => {
    const h = await harness({ json: true, env: { TZ: 'UTC' } });
    await withKeys(h, keys);
    serveQueue(h, queue());
    const printed = () => h.streams.stdout().length;
    const next = async (reason: string | undefined) => {
      const from = printed();
      await reject.run({ requestIds: [ID(1)], yes: true, reason }, h.f);
      return JSON.parse(h.streams.stdout().slice(from)) as Record<string, unknown>;
    };
    const standing = { reason: 'worn, no tags', rejectedAt: new Date(NOW).toISOString(), rejectedBy: expect.stringMatching(/.@./) };
    expect(await next('worn, no tags')).toEqual({ requestId: ID(1), status: 'REJECTED', updatedAt: expect.any(String), rejection: standing, reasonRecorded: true });
    expect(await next('third reason')).toEqual({ requestId: ID(1), status: 'REJECTED', updatedAt: expect.any(String), rejection: standing, reasonRecorded: false });
    // The line a person reads is on stderr, as before.
    expect(h.streams.stderr()).toMatch(/request \S+ \(it already was: rejected 2025-03-14 16:42 UTC by [^ ,]+@[^ ,]+, reason "worn, no tags"; the reason "third reason" was not recorded\)/);
    expect(await next(undefined)).toEqual({ requestId: ID(1), status: 'REJECTED', updatedAt: expect.any(String), rejection: standing });
    expect(await (await h.f.ledger()).rejection(ID(1))).toMatchObject({ reason: 'worn, no tags' });
  });

  it('an empty or multi-line reason is a usage error before anything is sent', async () => {
    const h = await harness();
    for (const reason of ['  ', 'one\ntwo', 'x'.repeat(1001)]) {
      await expect(reject.run({ requestIds: [ID(1)], yes: true, reason }, h.f)).rejects.toBeInstanceOf(UsageError);
    }
    expect(h.sent).toEqual([]);
  });
});
