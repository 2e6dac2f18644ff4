// `svc credit-note triage`: the open return requests on a terminal, oldest first, one at a
// time. Each is shown as `show` shows it (the request, and the credit note `issue` would make
// or the checks it would fail), then decided with one key:
//
//   a accept · p accept part · r reject · i issue · s skip · q quit
//
// Every decision runs the single command's own code: status.ts's `accept` and `reject` (so
// the request is kept in the ledger before it is accepted, and a rejection is confirmed),
// issue.ts's `run` (the same checks, preview and confirmation, the same ledger intent and
// Idempotency-Key). `i` issues as `issue --complete` does: the request is closed once it is
// credited, so no later walk offers it again. After `a` or `p` the request stays on screen,
// to be issued now (`i`) or later (`s`). A reject asks why: the service takes no reason, so
// it is kept in this profile's ledger (`show` shows it) and listed in the summary.
//
// A decision that is declined, or fails, leaves the request on screen to decide again. Esc
// or Ctrl-C at the keys ends the walk (exit 3); `q` ends it (exit 0). Either way the summary
// of what was done comes last, on stdout.
import { writeReceiptsCaller, type Caller } from '../../api/caller.js';
import { matchesFilter } from '../../credit-notes/filter.js';
import { openRequests } from '../../credit-notes/pick.js';
import { askPart as askAcceptedPart } from '../../credit-notes/accepted-part.js';
import { queueSelection, type QueueFilterFlags } from '../../credit-notes/queue-flags.js';
import type { ReadItem } from '../../credit-notes/queue.js';
import { findQueueItem } from '../../credit-notes/queue-cache.js';
import { reasonProblem } from '../../credit-notes/rejection.js';
import { emptyTally, summaryFields, type Tally } from '../../credit-notes/triage-tally.js';
import { CancelError, SvcError, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { printable } from '../../io/printable.js';
import { canPrompt, note } from '../../io/streams.js';
import { theme } from '../../io/theme.js';
import type { ItemQuantity } from '../item-flag.js';
import { fansOut, type FanOutFlags } from '../../grants/fan-out.js';
import { describeDecision, run as issue } from './issue.js';
import { run as show } from './show.js';
import { accept, reject } from './status.js';

/** poll's filters: which of the open requests to walk. */
export type TriageOptions = Omit<QueueFilterFlags, 'all'> & FanOutFlags;

type Key = 'a' | 'p' | 'r' | 'i' | 's' | 'q';

/** Statuses in which nothing is left to decide. */
const CLOSED = new Set(['REJECTED', 'COMPLETED', 'CANCELLED']);

export async function run(opts: TriageOptions, f: Factory): Promise<void> {
  if (!canPrompt(f.io)) {
    throw new UsageError('triage needs a terminal; use poll/accept/reject/issue in scripts', {
      hint: '`svc credit-note poll` lists the open requests; accept, reject and issue take their IDs (--yes answers their questions)',
    });
  }
  if (f.io.json) {
    throw new UsageError('triage is a walk on a terminal and prints no JSON', { hint: 'in scripts: `svc credit-note poll --json`, then accept, reject or issue --json' });
  }
  const selection = await queueSelection(f, opts, { decrypt: true });
  // Over many companies, each request is decided for its own (triage-all.ts).
  const all = fansOut(opts) ? await (await import('./triage-all.js')).openRequestsOfAll(f, opts) : await openRequestsOfOne(f);
  const queue = all.open.filter((i) => matchesFilter(i, selection.filter) && (selection.decrypted?.(i) ?? true));
  if (queue.length === 0) {
    note(f.io, selection.nothingBecause ?? `there are no open return requests${filtered(opts) ? ' that match' : ''}: nothing to triage`);
    return;
  }
  const tally = emptyTally(queue.length);
  try {
    for (const [index, item] of queue.entries()) {
      tally.seen = index + 1;
      const company = all.companyOf(item);
      if (company !== undefined) note(f.io, `\n${theme(f.io).bold(printable(company))}`);
      if ((await walkOne(f, await all.callerOf(item), item, tally)) === 'quit') break;
    }
  } catch (error) {
    if (error instanceof CancelError) throw new CancelError('cancelled: triage stopped; the summary above is what was done');
    throw error;
  } finally {
    note(f.io, '');
    writeRecord(f.io, summaryFields(tally), tally);
  }
}

/** The open requests of the company the command acts for. */
async function openRequestsOfOne(f: Factory): Promise<{ open: ReadItem[]; callerOf(item: ReadItem): Promise<Caller>; companyOf(item: ReadItem): string | undefined }> {
  const caller = await writeReceiptsCaller(f);
  return { open: await openRequests(f, caller), callerOf: async () => caller, companyOf: () => undefined };
}

/** One request, decided: on to the next one, or the end of the walk. */
async function walkOne(f: Factory, caller: Caller, item: ReadItem, tally: Tally): Promise<'next' | 'quit'> {
  const { requestId } = item;
  note(f.io, `\n${theme(f.io).bold(`── ${tally.seen} of ${tally.total} ──`)}`);
  try {
    await show({ requestId, reveal: false }, f);
  } catch (error) {
    // An unreadable request can still be skipped, accepted or rejected.
    if (!(error instanceof SvcError)) throw error;
    report(f, error);
  }
  let status = item.status;
  let part: ItemQuantity[] | undefined;
  let acted = false;
  for (;;) {
    const key = await f.prompter().key({ message: `${requestId.slice(0, 8)} ${status}:`, flag: 'request IDs to accept, reject or issue', keys: keysFor(status, acted) });
    if (key === 's') {
      if (!acted) tally.skipped.push(requestId);
      return 'next';
    }
    if (key === 'q') return 'quit';
    try {
      if (key === 'a') {
        await accept.run({ requestIds: [requestId], partial: false }, f);
        tally.accepted.push(requestId);
        [status, acted] = ['ACCEPTED', true];
      } else if (key === 'p') {
        part = await askPart(f, item);
        // Recorded in the ledger with the move: `issue` (here with `i`, or later anywhere) credits it.
        await accept.run({ requestIds: [requestId], partial: true, item: part.map((i) => `${i.productId}:${i.quantity}`) }, f);
        tally.partial.push(requestId);
        [status, acted] = ['PARTIALLY_ACCEPTED', true];
        await describeDecision(f, caller, requestId, part);
      } else if (key === 'r') {
        const reason = await f.prompter().input({ message: 'Why reject it? (kept on this machine only)', flag: '--reason', validate: (v) => reasonProblem(v) ?? true });
        await reject.run({ requestIds: [requestId], reason }, f);
        tally.rejected.push({ requestId, reason: reason.trim() });
        return 'next';
      } else {
        // A part accepted earlier, in another walk or with `accept --partial`, is recorded:
        // issue credits it (or asks for it when none is recorded).
        await issueIn(f, requestId, undefined, tally);
        return 'next';
      }
    } catch (error) {
      if (error instanceof CancelError) {
        note(f.io, error.message);
        continue;
      }
      if (!(error instanceof SvcError)) throw error;
      report(f, error);
      status = (await currentStatus(f, caller, requestId)) ?? status;
      if (CLOSED.has(status)) {
        note(f.io, `request ${requestId} is ${status} now; on to the next one`);
        return 'next';
      }
    }
  }
}

/**
 * What can still be done: a PENDING request can be accepted, in part or whole, rejected or
 * credited; an accepted one only credited (the service allows no other move but COMPLETED).
 */
export function keysFor(status: string, acted: boolean): { key: Key; name: string }[] {
  const decide: { key: Key; name: string }[] =
    status === 'PENDING'
      ? [
          { key: 'a', name: 'accept' },
          { key: 'p', name: 'accept part' },
          { key: 'r', name: 'reject' },
        ]
      : [];
  return [...decide, { key: 'i', name: 'issue & complete' }, { key: 's', name: acted ? 'next' : 'skip' }, { key: 'q', name: 'quit' }];
}

/** The part accepted, typed as `issue --item` takes it, starting from what the request asks. */
async function askPart(f: Factory, item: ReadItem): Promise<ItemQuantity[]> {
  if (item.returnRequest === undefined) {
    throw new UsageError(`request ${item.requestId} cannot be read, so no part of it can be named`, { hint: 'accept or reject it whole, or skip it' });
  }
  return askAcceptedPart(f, item.requestId, item.returnRequest);
}

/** `issue --complete`, and the credit note it recorded in the ledger, for the summary (even when completing failed after it). */
async function issueIn(f: Factory, requestId: string, part: readonly ItemQuantity[] | undefined, tally: Tally): Promise<void> {
  const before = await issuedFor(f, requestId);
  try {
    // issue prints the credit note's ID and says the request is COMPLETED.
    await issue({ requestId, item: part?.map((i) => `${i.productId}:${i.quantity}`), complete: true }, f);
  } finally {
    const after = await issuedFor(f, requestId);
    if (after !== undefined && after.serviceReceiptId !== before?.serviceReceiptId) tally.issued.push(after);
  }
}

async function issuedFor(f: Factory, requestId: string): Promise<Tally['issued'][number] | undefined> {
  const intent = await (await f.ledger()).lastIntent('credit-note', requestId);
  if (intent?.state !== 'done' || intent.result === undefined) return undefined;
  return { requestId, documentNumber: intent.documentNumber, serviceReceiptId: intent.result };
}

/** The request's status as the service (or the kept copy) says now; undefined when that cannot be learnt. */
async function currentStatus(f: Factory, caller: Caller, requestId: string): Promise<string | undefined> {
  try {
    return (await findQueueItem(f, caller, requestId)).status;
  } catch {
    return undefined;
  }
}

function filtered(opts: TriageOptions): boolean {
  return Object.values(opts).some((v) => v !== undefined);
}

/** An error as main.ts prints it (control characters made visible), without ending the walk. */
function report(f: Factory, error: SvcError): void {
  note(f.io, `${theme(f.io).red('error:')} ${printable(error.message)}`);
  if (error.hint) note(f.io, `hint: ${printable(error.hint)}`);
}
