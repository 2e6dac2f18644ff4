// `svc credit-note triage`: the open return requests on a terminal, oldest first, one at a
// time. Each is shown as `show` shows it (the request, and the credit note `issue` would make
// or the checks it would fail), then decided with one key:
//
//   a accept · p accept part · r reject · i issue · c complete without a credit note ·
//   s skip · b back · ? keys · q quit
//
// Every decision runs the single command's own code: status.ts's `accept` and `reject` (so
// the request is kept in the ledger before it is accepted, and a rejection is confirmed),
// issue.ts's `run` (the same checks, preview and confirmation, the same ledger intent and
// Idempotency-Key). `i` issues as `issue --complete` does: the request is closed once it is
// credited, so no later walk offers it again. After `a` or `p` the request stays on screen,
// to be issued now (`i`) or later (`s`). A reject asks why: the service takes no reason, so
// it is kept in this profile's ledger (`show` shows it) and listed in the summary.
//
// The keys offered are the moves table's (src/credit-notes/moves.ts, as the queue screen's):
// no `i` on a PENDING request. After each move the request's status is read back from the
// service (and its credit note from the ledger): the echo and the summary say what happened,
// never what the key meant. Keys typed while a move runs answer no prompt (dropTypeAhead).
//
// A decision that is declined, or fails, leaves the request on screen to decide again. Esc
// or Ctrl-C at the keys ends the walk (exit 3); `q` ends it (exit 0). Either way the summary
// of what was done comes last, on stdout.
import { Writable } from 'node:stream';
import type { Caller } from '../../api/caller.js';
import { writeReceiptsCaller } from '../../auth/caller.js';
import { matchesFilter } from '../../credit-notes/filter.js';
import { openRequests } from '../../credit-notes/pick.js';
import { askPart as askAcceptedPart } from '../../credit-notes/accepted-part.js';
import { queueSelection, type QueueFilterFlags } from '../../credit-notes/queue-flags.js';
import type { ReadItem } from '../../credit-notes/queue.js';
import { findQueueItem } from '../../credit-notes/queue-cache.js';
import { reasonProblem, reasonsKeptWhere } from '../../credit-notes/rejection.js';
import { emptyTally, outcomesOf, summaryFields, type Tally } from '../../credit-notes/triage-tally.js';
import { CancelError, ExitCode, PartialFailureError, SvcError, UsageError } from '../../errors.js';
import { counted } from '../../io/plural.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { printable } from '../../io/printable.js';
import { canPrompt, note } from '../../io/streams.js';
import { theme } from '../../io/theme.js';
import { inputOrCancel } from '../../io/prompter.js';
import type { ItemQuantity } from '../../credit-notes/item-flag.js';
import { fansOut, type FanOutFlags } from '../../grants/fan-out.js';
import { failIfSomeFailed, type FailedGrant } from '../../grants/report.js';
import { describeDecision } from '../../credit-notes/decision.js';
import { MOVES, movesFor, statusAfter, type MoveKey } from '../../credit-notes/moves.js';
import { outcomeOf, outcomeText } from '../../credit-notes/outcome.js';
import { run as issue } from './issue.js';
import { run as show } from './show.js';
import { accept, complete, refuseRejectingCredited, reject } from './status.js';

/** poll's filters: which of the open requests to walk. */
export type TriageOptions = Omit<QueueFilterFlags, 'all'> & FanOutFlags;

type Key = MoveKey | 's' | 'b' | '?' | 'q';

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
  const unread: readonly FailedGrant[] = all.failed ?? [];
  if (unread.length > 0) tally.unread = { companies: unread.map((x) => x.target.company), total: all.total ?? unread.length };
  // Where the summary says the reasons are kept: the ledger's place, known before the walk.
  const reasonsKept = await reasonsKeptWhere(f);
  const typeAhead = f.prompter().dropTypeAhead?.();
  try {
    // `b` goes back to the request before, to decide it again (as it is now).
    const reached = new Set<string>();
    for (let index = 0; index < queue.length; ) {
      const item = queue[index]!;
      if (!reached.has(item.requestId)) {
        reached.add(item.requestId);
        tally.reached.push(item.requestId);
      }
      const company = all.companyOf(item);
      if (company !== undefined) note(f.io, `\n${theme(f.io).bold(printable(company))}`);
      const next = await walkOne(f, await all.callerOf(item), item, tally, index);
      if (next === 'quit') break;
      index = next === 'back' ? Math.max(0, index - 1) : index + 1;
    }
  } catch (error) {
    if (error instanceof CancelError) throw new CancelError('cancelled: triage stopped; the summary above is what was done');
    throw error;
  } finally {
    typeAhead?.dispose();
    note(f.io, '');
    writeRecord(f.io, summaryFields(tally, reasonsKept), tally);
  }
  // Some companies' queues could not be read: the partial result's exit code (9), as poll's.
  failIfSomeFailed(unread, all.total ?? unread.length, 'read');
  const failed = outcomesOf(tally).failed;
  if (failed.length > 0) {
    throw new PartialFailureError(`${failed.length} of ${counted(tally.reached.length, 'request')} reached could not be moved (see "could not be moved" above)`, failed.map((x) => x.error), tally.reached.length);
  }
}

/** The open requests of the company the command acts for. */
async function openRequestsOfOne(f: Factory): Promise<{ open: ReadItem[]; callerOf(item: ReadItem): Promise<Caller>; companyOf(item: ReadItem): string | undefined; failed?: undefined; total?: undefined }> {
  const caller = await writeReceiptsCaller(f);
  return { open: await openRequests(f, caller), callerOf: async () => caller, companyOf: () => undefined };
}

/** One request, decided: on to the next one, back to the one before, or the end of the walk. */
async function walkOne(f: Factory, caller: Caller, item: ReadItem, tally: Tally, index: number): Promise<'next' | 'back' | 'quit'> {
  const { requestId } = item;
  note(f.io, `\n${theme(f.io).bold(`── ${index + 1} of ${tally.total} ──`)}`);
  try {
    await show({ requestId, reveal: false }, f);
  } catch (error) {
    // An unreadable request can still be skipped, accepted or rejected.
    if (!(error instanceof SvcError)) throw error;
    report(f, error);
  }
  // Back at a request decided before: as it is now.
  let status = (index + 1 < tally.reached.length ? await currentStatus(f, caller, requestId) : undefined) ?? item.status;
  let part: ItemQuantity[] | undefined;
  let rejectedWhy: string | undefined;
  let acted = false;
  for (;;) {
    // `i` closed it itself (issued, or completed on an earlier credit note); not when refused because someone closed it meanwhile.
    let issuedAndClosed = false;
    if (CLOSED.has(status)) {
      note(f.io, `request ${requestId} is ${status}: nothing is left to decide`);
      const key = await f.prompter().key({ message: `${requestId.slice(0, 8)} ${status}:`, flag: 'request IDs', keys: keysFor(status, true, index > 0) });
      if (key === '?') note(f.io, keysHelp(keysFor(status, true, index > 0)));
      else return key === 'q' ? 'quit' : key === 'b' ? 'back' : 'next';
      continue;
    }
    const keys = keysFor(status, acted, index > 0);
    const key = await f.prompter().key({ message: `${requestId.slice(0, 8)} ${status}:`, flag: 'request IDs to accept, reject or issue', keys });
    // Nothing done to it is counted as skipped at the end (triage-tally.ts), however it was left.
    if (key === 's') return 'next';
    if (key === 'q') return 'quit';
    if (key === 'b') return 'back';
    if (key === '?') {
      note(f.io, keysHelp(keys));
      continue;
    }
    // As it is now, not as it was listed: a colleague's move meanwhile is said, and not made again as if it were this walk's.
    const now = await currentStatus(f, caller, requestId);
    if (now !== undefined && now !== status) {
      note(f.io, `request ${requestId} is ${now} now (moved elsewhere while it was on screen): nothing was done; decide it as it is`);
      status = now;
      if (!tally.elsewhere.includes(requestId)) tally.elsewhere.push(requestId);
      if (CLOSED.has(status)) return 'next';
      continue;
    }
    const issuedBefore = tally.issued.length;
    try {
      if (key === 'a') {
        await accept.run({ requestIds: [requestId], partial: false }, f);
      } else if (key === 'p') {
        part = await askPart(f, item);
        // Recorded in the ledger with the move: `issue` (here with `i`, or later anywhere) credits it.
        await accept.run({ requestIds: [requestId], partial: true, item: part.map((i) => `${i.productId}:${i.quantity}`) }, f);
      } else if (key === 'c') {
        // Settled another way (nothing left to credit, refunded by hand): closed with no credit note, confirmed as `complete` is.
        await complete.run({ requestIds: [requestId], creditedElsewhere: true }, f);
      } else if (key === 'r') {
        // A credit note issued or being submitted (a colleague's too) is refused before the reason and the question, which say none is.
        await refuseRejectingCredited(f, caller, requestId);
        const reason = await inputOrCancel(f.prompter(), { message: `Why reject it? (kept ${await reasonsKeptWhere(f)})`, flag: '--reason', validate: (v) => reasonProblem(v) ?? true }, 'cancelled: nothing was rejected');
        await reject.run({ requestIds: [requestId], reason }, f);
        rejectedWhy = reason.trim();
      } else {
        // A part accepted earlier, in another walk or with `accept --partial`, is recorded:
        // issue credits it (or asks for it when none is recorded).
        issuedAndClosed = await issueIn(f, requestId, undefined, tally);
      }
    } catch (error) {
      if (error instanceof CancelError) {
        note(f.io, error.message);
        continue;
      }
      if (!(error instanceof SvcError)) throw error;
      report(f, error);
      // Refused for the company's sake (its Grant revoked, no access, the service down), not the
      // request's: counted apart, and the walk ends partly failed.
      if (error.exitCode === ExitCode.auth || error.exitCode === ExitCode.forbidden || error.exitCode === ExitCode.unavailable) {
        tally.failed = [...tally.failed.filter((x) => x.requestId !== requestId), { requestId, message: printable(error.message), error }];
      }
    }
    // What happened, read back: the echo and the summary are the service's and the ledger's account, not the key's.
    const before = status;
    const outcome = await outcomeOf(f, caller, requestId);
    status = outcome.status ?? status;
    // A credit note issued is said even when completing the request after it failed.
    const issuedHere = key === 'i' && tally.issued.length > issuedBefore;
    if (status === before && !issuedHere) continue;
    note(f.io, outcomeText(requestId, outcome, { issuedHere }));
    if (status === before) continue;
    acted = true;
    // Counted only as the move it was: a request a colleague closed meanwhile is not "rejected" here.
    const moved = key === 'i' ? issuedAndClosed : status === statusAfter(MOVES[key].verb);
    if (moved && key === 'a') tally.accepted.push(requestId);
    if (moved && key === 'p') {
      tally.partial.push(requestId);
      if (part !== undefined) await describeDecision(f, caller, requestId, part);
    }
    if (moved && key === 'r') tally.rejected.push({ requestId, reason: rejectedWhy ?? '' });
    if (moved && key === 'c' && outcome.creditNote === undefined) tally.completed.push(requestId);
    if (!moved && !tally.elsewhere.includes(requestId)) tally.elsewhere.push(requestId);
    if (CLOSED.has(status)) {
      if (!moved) note(f.io, `request ${requestId} is ${status} now; on to the next one`);
      return 'next';
    }
  }
}

/**
 * What can still be done: the moves the table allows from `status` (a PENDING request is
 * accepted, in part or whole, or rejected; an accepted one credited, or completed without a
 * credit note), nothing for a closed one; `b` when there is a request before.
 */
export function keysFor(status: string, acted: boolean, canGoBack = false): { key: Key; name: string }[] {
  const decide = movesFor(status).map((key) => ({ key: key as Key, name: MOVES[key].name }));
  return [...decide, { key: 's', name: acted ? 'next' : 'skip' }, ...(canGoBack ? [{ key: 'b' as Key, name: 'back' }] : []), { key: '?', name: 'keys' }, { key: 'q', name: 'quit' }];
}

const KEY_HELP: Readonly<Record<Key, string>> = {
  ...(Object.fromEntries(Object.entries(MOVES).map(([key, move]) => [key, move.help])) as Record<MoveKey, string>),
  s: 'leave it for now: on to the next request',
  b: 'back to the request before',
  '?': 'these keys',
  q: 'quit: the summary of what was done',
};

/** What each key offered does, for `?`. */
function keysHelp(keys: readonly { key: Key }[]): string {
  return keys.map((k) => `  ${k.key}  ${KEY_HELP[k.key]}`).join('\n') + '\n  Esc or Ctrl-C: stop the walk (exit 3)';
}

/** The part accepted, typed as `issue --item` takes it, starting from what the request asks. */
async function askPart(f: Factory, item: ReadItem): Promise<ItemQuantity[]> {
  if (item.returnRequest === undefined) {
    throw new UsageError(`request ${item.requestId} cannot be read, so no part of it can be named`, { hint: 'accept or reject it whole, or skip it' });
  }
  return askAcceptedPart(f, item.requestId, item.returnRequest);
}

/**
 * `issue --complete`, counted as what this run did: a credit note it issued (even when
 * completing failed after it), or a request completed on a credit note issued before (a
 * colleague's, an earlier run's), which this walk did not issue. True when this run closed the
 * request; false when it found it closed already (by someone else).
 */
async function issueIn(f: Factory, requestId: string, part: readonly ItemQuantity[] | undefined, tally: Tally): Promise<boolean> {
  let credited = false;
  const onCredited = ({ documentNumber, serviceReceiptId, here }: { documentNumber: string; serviceReceiptId: string; here: boolean }) => {
    credited = true;
    if (here) tally.issued.push({ requestId, documentNumber, serviceReceiptId });
    else tally.credited.push({ requestId, documentNumber });
  };
  // issue's stdout is the bare credit note ID, a line for scripts: the walk says what was
  // issued in its own words after it (its echo, read back), so that line is not shown.
  // The credit note is on screen already (the request's decision, or the part's): printed once;
  // and the request's status is the walk's echo to say, read back, once.
  await issue({ requestId, item: part?.map((i) => `${i.productId}:${i.quantity}`), complete: true, previewShown: true, statusSaid: true, onCredited }, withoutStdout(f));
  return credited;
}

/** The factory with stdout discarded; everything else (stderr, the prompter, the ledger) shared. */
function withoutStdout(f: Factory): Factory {
  const stdout = new Writable({ write: (_chunk, _encoding, done) => done() });
  return Object.create(f, { io: { value: { ...f.io, stdout } } }) as Factory;
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
  return [opts.status, opts.receipt, opts.customer, opts.olderThan, opts.newerThan, opts.reason, opts.refund].some((v) => v !== undefined);
}

/** An error as main.ts prints it (control characters made visible), without ending the walk. */
function report(f: Factory, error: SvcError): void {
  note(f.io, `${theme(f.io).red('error:')} ${printable(error.message)}`);
  if (error.hint) note(f.io, `hint: ${printable(error.hint)}`);
}
