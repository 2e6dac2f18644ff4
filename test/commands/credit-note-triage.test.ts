// `credit-note triage` against a fake service that keeps its queue (MockAgent) and a real
// ledger, a person's answers scripted: the open requests oldest first, each decision made
// through the single commands (status PATCH bodies `{ status }` only, the issue's checks,
// confirmation and Idempotency-Key), the reject reason kept in the ledger, the summary.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { keysFor, run as triage } from '../../src/commands/credit-note/triage.js';
import type { CreditNoteTemplateRequest } from '../../src/contract/template.js';
import type { ReturnRequest } from '../../src/contract/returns.js';
import { loadCreditNotes } from '../../src/credit-notes/records.js';
import { CancelError, UsageError } from '../../src/errors.js';
import { groceries } from '../credit-notes/fixtures.js';
import {
  atTerminal,
  merchantKeys,
  queueItem,
  receiptRecord,
  replyIssue,
  scriptedPrompter,
  serveQueue,
  statusMoves,
  withKeys,
  type Answer,
  type MerchantKeys,
} from './credit-note-setup.js';
import { NOW, closeHarnesses, expectHeader, harness, type Harness } from './receipts-setup.js';

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

const MILK = '4001234567890';
const WATER = '4001111222333';
const ID = (n: number) => `${String(n).repeat(8)}-0000-4000-8000-000000000000`;
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();

function returnRequest(lines: [string, number][], changes: Partial<ReturnRequest> = {}): ReturnRequest {
  return {
    serviceReceiptId: 'sr-1',
    receiptId: groceries().documentNumber,
    lineItems: lines.map(([productId, quantity]) => ({ productId, quantity, reasonCode: 'DAMAGED' })),
    refundPreference: 'STORE_CREDIT',
    ...changes,
  };
}

/** The merchant's keys and the record of the groceries receipt, at a terminal, answering `answers`. */
async function shop(answers: Answer[]): Promise<{ h: Harness; person: ReturnType<typeof scriptedPrompter> }> {
  const h = await harness();
  await withKeys(h, keys);
  await (await h.f.ledger()).importRecords({ receipts: [receiptRecord(groceries())], creditNotes: [] });
  const person = scriptedPrompter(answers);
  atTerminal(h, person.prompter);
  return { h, person };
}

const keysAsked = (asked: readonly string[]) => asked.filter((q) => q.startsWith('key: ')).map((q) => q.slice(5, 13));

describe('credit-note triage', () => {
  it('walks the open requests oldest first: accept, reject with a reason and a confirmation, issue, quit', async () => {
    const { h, person } = await shop([
      { key: 'a' },
      { key: 's' },
      { key: 'r' },
      { input: '  box arrived opened ' },
      { confirm: true },
      { key: 'i' },
      { confirm: true },
      { key: 'q' },
    ]);
    const state = serveQueue(h, [
      queueItem(ID(4), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(5) }),
      queueItem(ID(2), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(20) }),
      queueItem(ID(9), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(60), status: 'REJECTED' }),
      queueItem(ID(3), returnRequest([[MILK, 1]]), keys.older.publicKey, { createdAt: minutesAgo(10), status: 'ACCEPTED' }),
      queueItem(ID(1), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(30) }),
    ]);
    replyIssue(h, 'cn-1');

    await triage({}, h.f);

    expect(keysAsked(person.asked)).toEqual([ID(1), ID(1), ID(2), ID(3), ID(4)].map((id) => id.slice(0, 8)));
    expect(person.asked).toContain('key: 11111111 ACCEPTED: [i issue & complete, c complete, no credit note, s next, ? keys, q quit]');
    expect(person.asked).toContain("confirm: Reject request 22222222 on R-2025-000871 (1 × Whole milk 3.5% 1 l, 1.28 EUR) of your API key's company? No credit note is issued. It cannot be moved again.");
    expect(person.asked).toContain("confirm: Issue credit note CN-R-2025-000871-1 for 1.28 EUR (1 × Whole milk 3.5% 1 l) from your API key's company and complete request 33333333 on R-2025-000871? It cannot be moved again.");
    expect(person.left()).toEqual([]);
    // Exactly these moves, each as the service's interface has it: `{ status }` and nothing else.
    expect(statusMoves(h)).toEqual([
      [ID(1), 'ACCEPTED'],
      [ID(2), 'REJECTED'],
      [ID(3), 'COMPLETED'],
    ]);
    expect([...state.values()].map((i) => [i.requestId, i.status])).toEqual([
      [ID(4), 'PENDING'],
      [ID(2), 'REJECTED'],
      [ID(9), 'REJECTED'],
      [ID(3), 'COMPLETED'],
      [ID(1), 'ACCEPTED'],
    ]);
    // One credit note, issued as `issue` issues it: derived Idempotency-Key, recorded in the ledger.
    const submissions = h.sent.filter((s) => s.path === '/credit-note/encrypted');
    expect(submissions).toHaveLength(1);
    expect(expectHeader(submissions[0]!, 'idempotency-key')).toMatch(/^svc-credit-note-[0-9a-f]{40}$/);
    expect((await loadCreditNotes(h.f, 'sr-1')).map((n) => [n.requestId, n.documentNumber, n.serviceReceiptId])).toEqual([[ID(3), 'CN-R-2025-000871-1', 'cn-1']]);
    // The reason never reached the service; the ledger keeps it.
    expect(JSON.stringify(h.sent)).not.toContain('arrived opened');
    expect(await (await h.f.ledger()).rejection(ID(2))).toEqual({ reason: 'box arrived opened', rejectedAt: new Date(NOW).toISOString(), rejectedBy: expect.stringMatching(/.@./) });

    const out = h.streams.stdout();
    expect(out).toMatch(/^accepted +1: 11111111$/m);
    expect(out).toMatch(/^accepted in part +0$/m);
    expect(out).toMatch(/^rejected +1: 22222222 \("box arrived opened"\)$/m);
    // Where the reason is kept, said as the ledger is: no team database here, so this machine.
    expect(person.asked).toContain('input: Why reject it? (kept on this machine only)');
    expect(out).toMatch(/^note +rejection reasons are kept on this machine only \(the service takes none\)/m);
    expect(out).toMatch(/^issued +1: CN-R-2025-000871-1 \(request 33333333, credit note ID cn-1\)$/m);
    // On screen at `q`, with nothing done: skipped, so that the counts cover every open request.
    expect(out).toMatch(/^skipped +1: 44444444$/m);
    expect(out).not.toContain('not reached');
    expect(h.streams.stderr()).toContain(`request ${ID(3)} is COMPLETED`);
    // issue's line for scripts (the bare credit note ID) is not the walk's: its own names what was issued, read back.
    expect(out).not.toMatch(/^cn-1$/m);
    expect(h.streams.stderr()).toMatch(new RegExp(`^issued credit note CN-R-2025-000871-1 for \\d+\\.\\d{2} EUR, credit note ID cn-1; request ${ID(3)} is COMPLETED now \\(read back from the ledger and the service\\)$`, 'm'));
    // Each request shown as `show` shows it, with the decision `issue` would make.
    expect(h.output().match(/checks: all passed/g)).toHaveLength(4);
    // The credit note issued with `i` is the one its decision showed: printed once, not again by issue.
    expect(h.output().match(/credit note CN-R-2025-000871-\d+ for receipt/g)).toHaveLength(4);
  });

  it('accept part asks the items as issue --item takes them, and issuing credits that part', async () => {
    const { h, person } = await shop([{ key: 'p' }, { input: `${WATER}:2` }, { key: 'i' }, { confirm: true }]);
    serveQueue(h, [queueItem(ID(1), returnRequest([[MILK, 1], [WATER, 3]]), keys.current.publicKey)]);
    replyIssue(h, 'cn-1');

    await triage({}, h.f);

    expect(person.asked.filter((q) => q.startsWith('input: '))).toHaveLength(1);
    expect(statusMoves(h)).toEqual([
      [ID(1), 'PARTIALLY_ACCEPTED'],
      [ID(1), 'COMPLETED'],
    ]);
    const template = h.sent.find((s) => s.path === '/credit-note/template')!.body as CreditNoteTemplateRequest;
    expect(template.products.map((p) => [p.identifier, p.quantity])).toEqual([[WATER, 2]]);
    // The part's decision is shown before it is issued.
    expect(h.streams.stderr()).toContain(`would issue this`);
    expect(h.streams.stderr()).toContain(`--item ${WATER}:2`);
    // Counted once, where it ended: issued, said as accepted in part first.
    expect(h.streams.stdout()).toMatch(/^accepted in part +0$/m);
    expect(h.streams.stdout()).toMatch(/^issued +1: CN-R-2025-000871-1 \(request 11111111, accepted in part first, credit note ID cn-1\)$/m);
  });

  it('a declined or failing decision leaves the request on screen; skip moves on, nothing changed', async () => {
    const { h, person } = await shop([{ key: 'c' }, { confirm: false }, { key: 'i' }, { key: 's' }]);
    // A receipt this merchant has no record of: issue's checks refuse it.
    serveQueue(h, [queueItem(ID(1), returnRequest([[MILK, 1]], { serviceReceiptId: 'sr-unknown' }), keys.current.publicKey, { serviceReceiptId: 'sr-unknown', status: 'ACCEPTED' })]);

    await triage({}, h.f);

    expect(keysAsked(person.asked)).toEqual(['11111111', '11111111', '11111111']);
    expect(statusMoves(h)).toEqual([]);
    expect(h.sent.filter((s) => s.path !== '/credit-note' && !s.path.endsWith('/status'))).toEqual([]);
    const err = h.streams.stderr();
    expect(err).toContain('cancelled: nothing was completed');
    expect(err).toMatch(/error: return request 11111111-.* is invalid:\n {2}serviceReceiptId: receipt sr-unknown is not known/);
    expect(h.streams.stdout()).toMatch(/^skipped +1: 11111111$/m);
  });

  it('the summary counts each request reached once, by what was done to it: skipped then accepted after `b` is accepted; one left with `b` or on screen at `q` is skipped', async () => {
    const { h } = await shop([{ key: 's' }, { key: 'b' }, { key: 'a' }, { key: 'q' }]);
    serveQueue(h, [
      queueItem(ID(1), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(3) }),
      queueItem(ID(2), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(2) }),
      queueItem(ID(3), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(1) }),
    ]);
    await triage({}, h.f);
    expect(statusMoves(h)).toEqual([[ID(1), 'ACCEPTED']]);
    const out = h.streams.stdout();
    expect(out).toMatch(/^accepted +1: 11111111$/m);
    // 22222222 was on screen and left with `b`: skipped, not lost; 33333333 never shown.
    expect(out).toMatch(/^skipped +1: 22222222$/m);
    expect(out).toMatch(/^not reached +1$/m);

    const quit = await shop([{ key: 'q' }]);
    serveQueue(quit.h, [
      queueItem(ID(1), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(2) }),
      queueItem(ID(2), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(1) }),
    ]);
    await triage({}, quit.h.f);
    // The request on screen at `q` was reached: 1 skipped and 1 not reached make the 2.
    expect(quit.h.streams.stdout()).toMatch(/^skipped +1: 11111111$/m);
    expect(quit.h.streams.stdout()).toMatch(/^not reached +1$/m);
  });

  it('accepted and then issued is counted once, as issued (accepted first)', async () => {
    const { h } = await shop([{ key: 'a' }, { key: 'i' }, { confirm: true }, { key: 'q' }]);
    serveQueue(h, [queueItem(ID(1), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(3) }), queueItem(ID(2), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(2) })]);
    replyIssue(h, 'cn-1');
    await triage({}, h.f);
    const out = h.streams.stdout();
    expect(out).toMatch(/^accepted +0$/m);
    expect(out).toMatch(/^issued +1: CN-R-2025-000871-1 \(request 11111111, accepted first, credit note ID cn-1\)$/m);
    expect(out).toMatch(/^skipped +1: 22222222$/m);
  });

  it('a request a colleague moved while it was on screen: said, nothing sent, and counted as changed elsewhere, not as this walk\'s accept', async () => {
    const { h, person } = await shop([{ key: 'a' }, { key: 'q' }]);
    const state = serveQueue(h, [queueItem(ID(1), returnRequest([[MILK, 1]]), keys.current.publicKey)]);
    // The colleague accepts it just as this person presses `a`.
    const ask = person.prompter.key.bind(person.prompter);
    let moved = false;
    person.prompter.key = async (question) => {
      if (!moved) {
        moved = true;
        state.get(ID(1))!.status = 'ACCEPTED';
      }
      return ask(question);
    };
    await triage({}, h.f);
    expect(statusMoves(h)).toEqual([]);
    expect(h.streams.stderr()).toContain(`request ${ID(1)} is ACCEPTED now (moved elsewhere while it was on screen): nothing was done`);
    const out = h.streams.stdout();
    expect(out).toMatch(/^accepted +0$/m);
    expect(out).toMatch(/^changed elsewhere +1: 11111111$/m);
    expect(out).toMatch(/^skipped +0$/m);
  });

  it('Esc or Ctrl-C at the keys ends the walk as cancelled (exit 3), after the summary of what was done', async () => {
    const { h } = await shop([{ key: 'a' }, { key: 's' }, { cancel: true }]);
    serveQueue(h, [
      queueItem(ID(1), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(2) }),
      queueItem(ID(2), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(1) }),
    ]);
    const error = await triage({}, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancelError);
    expect((error as CancelError).message).toBe('cancelled: triage stopped; the summary above is what was done');
    expect(statusMoves(h)).toEqual([[ID(1), 'ACCEPTED']]);
    expect(h.streams.stdout()).toMatch(/^accepted +1: 11111111$/m);
  });

  it('needs a terminal, and prints no JSON: a usage error (exit 2) before anything is fetched', async () => {
    const h = await harness();
    const error = (await triage({}, h.f).catch((e: unknown) => e)) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('triage needs a terminal; use poll/accept/reject/issue in scripts');

    const json = await harness({ json: true });
    atTerminal(json, scriptedPrompter([]).prompter);
    await expect(triage({}, json.f)).rejects.toBeInstanceOf(UsageError);
    expect(h.sent).toEqual([]);
    expect(json.sent).toEqual([]);
  });

  it('an empty queue is said so, with nothing asked', async () => {
    const { h, person } = await shop([]);
    serveQueue(h, [queueItem(ID(1), returnRequest([[MILK, 1]]), keys.current.publicKey, { status: 'COMPLETED' })]);
    await triage({}, h.f);
    expect(person.asked).toEqual([]);
    expect(h.streams.stderr()).toContain('there are no open return requests: nothing to triage');
  });

  it('offers only the moves the service allows from each status', () => {
    expect(keysFor('PENDING', false).map((k) => k.key).join('')).toBe('aprs?q');
    expect(keysFor('ACCEPTED', false).map((k) => k.key).join('')).toBe('ics?q');
    expect(keysFor('PENDING', false, true).map((k) => k.key).join('')).toBe('aprsb?q');
    expect(keysFor('COMPLETED', true, true).map((k) => k.key).join('')).toBe('sb?q');
    expect(keysFor('PARTIALLY_ACCEPTED', true).map((k) => `${k.key} ${k.name}`)).toEqual(['i issue & complete', 'c complete, no credit note', 's next', '? keys', 'q quit']);
  });

  it('c after p names the part accepted, at the figures issue would credit it (the cent a line credited before leaves), not every line asked', async () => {
    const { h, person } = await shop([{ key: 'a' }, { key: 'i' }, { confirm: true }, { key: 'p' }, { input: `${MILK}:1` }, { key: 'c' }, { confirm: false }, { key: 'q' }]);
    serveQueue(h, [
      queueItem(ID(1), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(30) }),
      queueItem(ID(2), returnRequest([[MILK, 1], [WATER, 3]]), keys.current.publicKey, { createdAt: minutesAgo(20) }),
    ]);
    replyIssue(h, 'cn-1');
    await triage({}, h.f);
    // Milk (2 for 2.55 EUR) credited once for 1.28 EUR: the other one is the 1.27 EUR left, as issue (and --dry-run) would credit it.
    expect(person.asked.filter((q) => q.startsWith('confirm: Complete'))).toEqual([
      "confirm: Complete request 22222222 on R-2025-000871 (accepted in part: 1 × Whole milk 3.5% 1 l, 1.27 EUR) of your API key's company with NO credit note: nothing is credited? It cannot be moved again.",
    ]);
    expect(h.streams.stderr()).toContain('total 1.27 EUR');
    expect(statusMoves(h)).toEqual([
      [ID(1), 'ACCEPTED'],
      [ID(1), 'COMPLETED'],
      [ID(2), 'PARTIALLY_ACCEPTED'],
    ]);
  });

  it('? lists what the keys do; c completes without a credit note (asked as complete asks); b goes back to decide again', async () => {
    const { h, person } = await shop([{ key: '?' }, { key: 'c' }, { confirm: true }, { key: 'b' }, { key: 's' }, { key: 'q' }]);
    serveQueue(h, [
      queueItem(ID(1), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(30), status: 'PARTIALLY_ACCEPTED' }),
      queueItem(ID(2), returnRequest([[MILK, 1]]), keys.current.publicKey, { createdAt: minutesAgo(20) }),
    ]);
    await triage({}, h.f);
    expect(person.asked).toEqual([
      'key: 11111111 PARTIALLY_ACCEPTED: [i issue & complete, c complete, no credit note, s skip, ? keys, q quit]',
      'key: 11111111 PARTIALLY_ACCEPTED: [i issue & complete, c complete, no credit note, s skip, ? keys, q quit]',
      // Accepted in part on another machine: the part is not known here, and what the customer asked is said as that.
      "confirm: Complete request 11111111 on R-2025-000871 (accepted in part, the part not recorded here; asked: 1 × Whole milk 3.5% 1 l, 1.28 EUR) of your API key's company with NO credit note: nothing is credited? It cannot be moved again.",
      'key: 22222222 PENDING: [a accept, p accept part, r reject, s skip, b back, ? keys, q quit]',
      // Back at the first: COMPLETED now, nothing left but to move on.
      'key: 11111111 COMPLETED: [s next, ? keys, q quit]',
      'key: 22222222 PENDING: [a accept, p accept part, r reject, s skip, b back, ? keys, q quit]',
    ]);
    expect(h.streams.stderr()).toContain('c  complete it without a credit note: nothing is credited');
    expect(statusMoves(h)).toEqual([[ID(1), 'COMPLETED']]);
    expect(h.streams.stdout()).toMatch(/^completed, no credit note +1: 11111111$/m);
  });
});
