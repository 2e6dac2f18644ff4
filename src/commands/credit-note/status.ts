// `svc credit-note accept|reject|complete [REQUEST_ID...]` and `status [REQUEST_ID] STATUS`:
// one PATCH of the request's status. A refused move exits 7 with the service's account of
// the current state and the moves it allows. Before accepting, the request is kept in the
// ledger (docs/interface-decisions.md#outstanding-queue): a service may stop listing it once it is no longer PENDING, and
// `issue` and `complete` still need it. A partial acceptance records its part in the ledger
// first (docs/interface-decisions.md#partial-acceptance). Without an ID a terminal offers the requests the
// verb can move (src/credit-notes/moves.ts). A final move (REJECTED, COMPLETED; `status`
// to either runs `reject` or `complete`) is confirmed on a terminal, naming each request's
// document number, lines and amount, and needs --yes elsewhere. A rejection's reason
// (--reason) is kept in the ledger beside the request (this machine's, or the team's
// database): the PATCH takes `{ status }` only, so the service never hears it. A request is
// rejected once: a reason given for one rejected before is not kept over the first one's,
// which stands, as its line and its --json element (`rejection`, `reasonRecorded`) say.
import type { Caller } from '../../api/caller.js';
import { listReturnRequests, RequestNotFoundError, RequestStateError, setReturnRequestStatus } from '../../api/credit-note.js';
import { SettableQueueItemStatus, type QueueItem } from '../../contract/returns.js';
import { pickRequestId, type PickFor } from '../../credit-notes/pick.js';
import { findQueueItem } from '../../credit-notes/queue-cache.js';
import { rejectedWhen, rejectionReason } from '../../credit-notes/rejection.js';
import { readQueue } from '../../credit-notes/queue.js';
import { loadKeyring } from '../../keys/keystore.js';
import { rememberMove } from '../../completion/cache.js';
import { companyNameOf } from '../../auth/caller.js';
import { completeQuestion, listedLine, rejectQuestion } from '../../credit-notes/moves.js';
import { creditedFor } from '../../credit-notes/credited.js';
import { CancelError, ExitCode, NotFoundError, PartialFailureError, SvcError, UsageError, errorReport, exitCodeOf } from '../../errors.js';
import { approvedPart } from '../../credit-notes/approved.js';
import { askPart, creditedAlready, keepAcceptedPart, partText, refuseUncountablePart, samePart } from '../../credit-notes/accepted-part.js';
import { recorder } from '../../credit-notes/recorder.js';
import { askedPart } from '../../credit-notes/part.js';
import { requestNotFound, requestsOf, type RequestOf } from '../../credit-notes/request-grant.js';
import { parseItem, type ItemQuantity } from '../../credit-notes/item-flag.js';
import type { Factory } from '../../factory.js';
import { grantFlagOf } from '../../grants/company.js';
import { markDoneHint } from '../../credit-notes/prepare.js';
import { oneLine, writeJson } from '../../io/output.js';
import { claimStdoutReaderGone } from '../../io/reader-gone.js';
import { confirmOrCancel } from '../../io/prompter.js';
import { canPrompt, note, println } from '../../io/streams.js';
import { printable } from '../../io/printable.js';
import { zoneOf } from '../../io/time.js';
import type { Rejection } from '../../contract/records.js';
import type { Verb } from '../context.js';

export interface StatusOptions {
  /** Undefined: chosen on a terminal. */
  requestId?: string | undefined;
  status: string;
  /** A final move (REJECTED, COMPLETED) without asking; needed for one off a terminal. */
  yes?: boolean | undefined;
  /** With REJECTED: why; kept in the ledger (this machine's, or the team's database). */
  reason?: string | undefined;
  /** With COMPLETED: the customer was credited another way (see CompleteOptions). */
  creditedElsewhere?: boolean | undefined;
}

export async function run(opts: StatusOptions, f: Factory): Promise<void> {
  const status = settable(opts.status);
  // The same move as its own verb, confirmed alike: REJECTED is `reject`, COMPLETED `complete`.
  if (status === 'REJECTED') return reject.run({ requestIds: opts.requestId === undefined ? [] : [opts.requestId], yes: opts.yes, reason: opts.reason }, f, 'credit-note status');
  if (opts.reason !== undefined) throw new UsageError('--reason goes with REJECTED', { hint: 'a reason is kept only for a rejection' });
  if (opts.creditedElsewhere && status !== 'COMPLETED') throw new UsageError('--credited-elsewhere goes with COMPLETED', { hint: 'nothing was moved' });
  if (status === 'COMPLETED') return complete.run({ requestIds: opts.requestId === undefined ? [] : [opts.requestId], yes: opts.yes, creditedElsewhere: opts.creditedElsewhere }, f, 'credit-note status');
  // The same move as `accept --partial`: the part is recorded with it (asked for, or --item there).
  if (status === 'PARTIALLY_ACCEPTED') return accept.run({ requestIds: opts.requestId === undefined ? [] : [opts.requestId], partial: true }, f);
  const requestIds = await givenOrPicked(f, opts.requestId === undefined ? [] : [opts.requestId], {
    command: 'credit-note status',
    usage: '[options] [request-id] <status>',
    purpose: `set to ${status}`,
    verb: 'status',
    target: status,
  });
  await setStatuses(f, requestIds, status);
}

export interface AcceptOptions {
  requestIds: string[];
  partial: boolean;
  /** PRODUCT_ID:QTY, repeatable: the part accepted (implies --partial), recorded in the ledger. */
  item?: string[] | undefined;
}

export const accept: Verb<AcceptOptions> = {
  async run(opts, f) {
    const items = (opts.item ?? []).map(parseItem);
    const partial = opts.partial || items.length > 0;
    const given = await givenOrPicked(f, opts.requestIds, {
      command: 'credit-note accept',
      usage: '[options] [request-id...]',
      purpose: partial ? 'accept in part' : 'accept',
      verb: partial ? 'accept-part' : 'accept',
    });
    if (!partial) return setStatuses(f, given, 'ACCEPTED');
    if (items.length > 0 && given.length > 1) {
      throw new UsageError('--item names the part of one request: accept one request at a time with --item', { hint: 'nothing was accepted' });
    }
    // The part of each request is known (named, or asked for) and checked before anything moves.
    const requests = await requestsOf(f, given);
    const parts = new Map<string, ItemQuantity[]>();
    for (const { requestId, caller } of requests) parts.set(requestId, await partToAccept(f, caller, requestId, items));
    await setStatuses(f, requests, 'PARTIALLY_ACCEPTED', { parts });
  },
};

/** The part named with --item (checked against the request), or asked for on a terminal; exit 2 otherwise. */
async function partToAccept(f: Factory, caller: Caller, requestId: string, items: readonly ItemQuantity[]): Promise<ItemQuantity[]> {
  const item = await findQueueItem(f, caller, requestId);
  const [read] = await readQueue([item], await loadKeyring(f));
  const request = read?.returnRequest;
  if (request === undefined) {
    throw new UsageError(`cannot read return request ${requestId} (${read?.decryptError ?? 'no result'}), so no part of it can be accepted`, {
      hint: 'accept or reject it whole',
    });
  }
  if (items.length > 0) {
    approvedPart({ requestId, status: 'PARTIALLY_ACCEPTED', request, items });
    await refuseUncountablePart(f, item.serviceReceiptId, items);
    return [...items];
  }
  if (canPrompt(f.io)) {
    const asked = await askPart(f, requestId, request);
    await refuseUncountablePart(f, item.serviceReceiptId, asked);
    return asked;
  }
  throw new UsageError(`accepting return request ${requestId} in part needs the part: name it with --item PRODUCT_ID:QTY (svc credit-note accept ${requestId}${await grantFlagOf(f, caller)} --item …)`, {
    hint: `it asks for ${askedPart(request)
      .split(' ')
      .map((i) => `--item ${i}`)
      .join(' ')}; keep what you accept, lowering the quantities`,
  });
}

/**
 * Records the part before the move, so that no PARTIALLY_ACCEPTED request of this machine is
 * ever without its part (a kill in between leaves a PENDING request with a part that only
 * counts once it is accepted in part). A different part already recorded (a colleague's) is
 * replaced only once the move succeeded: a refused move leaves the colleague's decision as is.
 */
async function recordPart(f: Factory, caller: Caller, requestId: string, items: readonly ItemQuantity[]): Promise<(() => Promise<void>) | undefined> {
  const ledger = await f.ledger();
  const grantFlag = await grantFlagOf(f, caller);
  // Once credited, the part that was credited stands: refused before anything moves.
  const credited = await ledger.lastIntent('credit-note', requestId);
  if (credited !== undefined && credited.state !== 'abandoned') throw creditedAlready(requestId, credited.documentNumber, { grantFlag });
  const recorded = await ledger.acceptedPart(requestId);
  const keep = async () => void (await keepAcceptedPart(f, requestId, items, recorded, grantFlag));
  if (recorded !== undefined && !samePart(recorded.items, items)) {
    return async () => {
      await keep();
      note(f.io, `replaced the part ${partText(recorded.items)} recorded ${recorded.acceptedAt}${recorded.acceptedBy ? ` by ${recorded.acceptedBy}` : ''}`);
    };
  }
  await keep();
  return undefined;
}

export interface RejectOptions {
  requestIds: string[];
  yes?: boolean | undefined;
  /** Why; kept in the ledger (this machine's, or the team's database). */
  reason?: string | undefined;
}

/** The verbs of final moves take the command they run for, for the picker's usage error (`status` runs them too). */
type FinalVerb<O> = { run(opts: O, f: Factory, command?: string): Promise<void> };

export const reject: FinalVerb<RejectOptions> = {
  async run(opts, f, command = 'credit-note reject') {
    const reason = opts.reason === undefined ? undefined : rejectionReason(opts.reason);
    const requests = await requestsOf(f, await givenOrPicked(f, opts.requestIds, pickFor(command, 'reject')));
    // A request with a credit note is refused before the question, which would say it has none:
    // one alone as the command's error; of several, each on its line, and the question names the others.
    if (requests.length === 1) await refuseRejectingCredited(f, requests[0]!.caller, requests[0]!.requestId);
    const refused = requests.length === 1 ? new Map<string, unknown>() : await refuseCreditedAmong(f, requests);
    const asked = requests.filter((r) => !refused.has(r.requestId));
    if (asked.length > 0) await confirmFinal(f, asked, { verb: 'Reject', yes: opts.yes, command });
    await setStatuses(f, requests, 'REJECTED', { reason, refused });
  },
};

/**
 * Of several requests to reject, those with a credit note (issued, or being submitted), each
 * refused on its own line now, as a failed move's line reads (on stderr with --json, whose
 * array has it at the end): by request ID, the refusal.
 */
async function refuseCreditedAmong(f: Factory, requests: readonly RequestOf[]): Promise<Map<string, unknown>> {
  const refused = new Map<string, unknown>();
  for (const { requestId, caller } of requests) {
    try {
      await refuseRejectingCredited(f, caller, requestId);
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      refused.set(requestId, error);
      const line = `${requestId} error: ${oneLine(error.message)}`;
      if (f.io.json) note(f.io, line);
      else println(f.io, line);
    }
  }
  return refused;
}

export interface CompleteOptions {
  requestIds: string[];
  yes?: boolean | undefined;
  /** The customer was credited another way: complete requests with no credit note in the ledger. */
  creditedElsewhere?: boolean | undefined;
}

export const complete: FinalVerb<CompleteOptions> = {
  async run(opts, f, command = 'credit-note complete') {
    const requests = await requestsOf(f, await givenOrPicked(f, opts.requestIds, pickFor(command, 'complete')));
    if (!opts.creditedElsewhere) await refuseCompletingUncredited(f, requests, command);
    await confirmFinal(f, requests, { verb: 'Complete', yes: opts.yes, command });
    await setStatuses(f, requests, 'COMPLETED');
  },
};

function pickFor(command: string, verb: 'reject' | 'complete'): PickFor {
  const status = command === 'credit-note status';
  return {
    command,
    usage: status ? '[options] [request-id] <status>' : '[options] [request-id...]',
    purpose: status ? `set to ${verb === 'reject' ? 'REJECTED' : 'COMPLETED'}` : verb,
    verb,
  };
}

/**
 * A final move (nothing moves a request out of REJECTED or COMPLETED) is confirmed on a
 * terminal, naming each request by its receipt's document number, lines and amount;
 * elsewhere it needs --yes (exit 2 naming it), as `issue` does.
 */
async function confirmFinal(f: Factory, requests: readonly RequestOf[], how: { verb: 'Reject' | 'Complete'; yes: boolean | undefined; command: string }): Promise<void> {
  if (how.yes) return;
  const what = requests.length === 1 ? `request ${requests[0]!.requestId}` : `${requests.length} requests`;
  if (!canPrompt(f.io)) {
    throw new UsageError(`${how.verb.toLowerCase()} ${what} needs --yes here: the move is final and there is no terminal to ask`, {
      hint: `add --yes to \`svc ${how.command}\` when you mean it`,
    });
  }
  // What it will do, said before it is done: no credit note, or the one issued (the ledger's), for which company.
  const read = await Promise.all(
    requests.map(async (r) => ({ requestId: r.requestId, ...(await readForQuestion(f, r.caller, r.requestId)), company: await companyNameOf(f, r.caller), credited: await creditedFor(f, r.requestId) })),
  );
  // One already there moves nowhere: nothing to confirm for it (its line says it already was).
  const target = how.verb === 'Reject' ? 'REJECTED' : 'COMPLETED';
  const asked = read.filter((r) => r.status !== target);
  if (asked.length === 0) return;
  const message = how.verb === 'Reject' ? rejectQuestion(asked) : completeQuestion(asked);
  await confirmOrCancel(f.prompter(), { message, flag: '--yes' }, `cancelled: nothing was ${how.verb === 'Reject' ? 'rejected' : 'completed'}`);
}

/** Several requests accepted at once (the queue screen's marked ones): asked first, naming each as a final move does. */
export async function confirmAccept(f: Factory, requestIds: readonly string[]): Promise<void> {
  const asked = await Promise.all((await requestsOf(f, requestIds)).map(async (r) => ({ requestId: r.requestId, summary: await summaryOf(f, r.caller, r.requestId), company: await companyNameOf(f, r.caller) })));
  await confirmOrCancel(f.prompter(), { message: `Accept these ${asked.length} requests?\n${asked.map(listedLine).join('\n')}\n`, flag: 'request IDs to accept' }, 'cancelled: nothing was accepted');
}

/** "R-2026-0008 (2 × Milk, 1 × Bread, 6.07 EUR)"; the request's ID when it cannot be read. */
async function summaryOf(f: Factory, caller: Caller, requestId: string): Promise<string> {
  return (await readForQuestion(f, caller, requestId)).summary;
}

/** The request's summary for a question, and its status as found (undefined when it could not be). */
async function readForQuestion(f: Factory, caller: Caller, requestId: string): Promise<{ summary: string; status?: string | undefined }> {
  try {
    const item = await findQueueItem(f, caller, requestId);
    const [read] = await readQueue([item], await loadKeyring(f));
    if (read?.returnRequest === undefined) return { summary: `request ${requestId} (cannot be read)`, status: item.status };
    // Accepted in part: the part, as `issue` would credit it, not every line asked for.
    const { questionSummary } = await import('../../credit-notes/decision.js');
    return { summary: await questionSummary(f, caller, item, read.returnRequest), status: item.status };
  } catch (error) {
    if (error instanceof SvcError) return { summary: `request ${requestId}` };
    throw error;
  }
}

/** The IDs given, or the one a person chooses on a terminal (a usage error elsewhere). */
async function givenOrPicked(f: Factory, given: readonly string[], what: PickFor): Promise<string[]> {
  return given.length > 0 ? [...given] : [await pickRequestId(f, what)];
}

/** STATUS of `svc credit-note status`, in any case; PENDING and CANCELLED are not the merchant's to set. */
function settable(value: string): SettableQueueItemStatus {
  const parsed = SettableQueueItemStatus.safeParse(value.trim().toUpperCase());
  if (parsed.success) return parsed.data;
  throw new UsageError(`${value} is not a status a merchant can set`, {
    hint: `use one of ${SettableQueueItemStatus.options.join(', ')}`,
  });
}

/**
 * Moves each request (IDs or unique prefixes, or requests made whole with their callers) in turn and
 * reports each on stdout: one line per request (`ID STATUS`, or `ID error: MESSAGE`), --json
 * an array of results and `{ requestId, error }` elements. A failure does not stop the
 * others; the exit code is then the partial-result contract's (PartialFailureError).
 * `refused`: requests refused before the question, their lines printed then; not moved.
 */
async function setStatuses(
  f: Factory,
  given: readonly string[] | readonly RequestOf[],
  status: SettableQueueItemStatus,
  more: { reason?: string | undefined; parts?: ReadonlyMap<string, readonly ItemQuantity[]>; refused?: ReadonlyMap<string, unknown> } = {},
): Promise<void> {
  const { reason, parts, refused } = more;
  // Requests a final move confirmed are already whole, each with its company's caller.
  const requests = given.every((g): g is RequestOf => typeof g !== 'string') ? [...given] : await requestsOf(f, given as readonly string[]);
  const requestIds = requests.map((r) => r.requestId);
  const results: unknown[] = [];
  const failures: unknown[] = [];
  // A reader that stops early (`accept A B C | head -1`) stops the moves: none is started after
  // it, and the command ends as cancelled rather than quietly, as if every request had moved.
  let readerGone = false;
  let moved = 0;
  const release = requests.length > 1 ? claimStdoutReaderGone(() => (readerGone = true)) : () => {};
  try {
    for (const { requestId, caller } of requests) {
      if (readerGone) break;
      moved += 1;
      await moveOne(requestId, caller);
    }
  } finally {
    release();
  }
  if (readerGone && moved < requests.length) {
    const left = requests.length - moved;
    throw new CancelError(`standard output was closed after ${moved} of ${requests.length} requests: ${left} ${left === 1 ? 'was' : 'were'} not moved to ${status}`, {
      hint: 'run the same command again for the rest (a request already moved is answered as it is)',
    });
  }
  if (f.io.json) writeJson(f.io, requestIds.length === 1 ? results[0] : results);
  if (failures.length > 0) throw new PartialFailureError(`${failures.length} of ${requestIds.length} requests were not moved to ${status}`, failures, requestIds.length);

  async function moveOne(requestId: string, caller: Caller): Promise<void> {
    // Refused before anything was asked, and said then: a failure of the result, not moved.
    if (refused?.has(requestId)) {
      const error = refused.get(requestId);
      failures.push(error);
      results.push({ requestId, error: errorReport(error) });
      return;
    }
    try {
      if (status === 'REJECTED') await refuseRejectingCredited(f, caller, requestId);
      // A rejection's reason is kept with the item, so that is kept too. Either way the status
      // it had before is known: a move to where it already was is said to have changed nothing.
      const kept = status === 'ACCEPTED' || status === 'PARTIALLY_ACCEPTED' || reason !== undefined ? await keepQueueItem(f, caller, requestId) : undefined;
      const before = kept === undefined ? await statusListed(caller, requestId) : kept === 'not found' ? undefined : kept.status;
      const part = parts?.get(requestId);
      const afterMove = part === undefined ? undefined : await recordPart(f, caller, requestId, part);
      const result = await setReturnRequestStatus(caller, requestId, status, await grantFlagOf(f, caller)).catch(async (error: unknown) => {
        // Not in the queue of the company it was looked for in: which one, and where to look.
        throw error instanceof RequestNotFoundError ? await requestNotFound(f, caller, requestId, error) : error;
      });
      await afterMove?.();
      const reasonKept = reason === undefined ? undefined : await keepReason(f, requestId, reason);
      const rejected = status === 'REJECTED' && f.io.json ? await rejectionFields(f, requestId, reason, reasonKept) : {};
      results.push({ ...result, ...(part === undefined ? {} : { acceptedPart: part }), ...rejected });
      await rememberMove(f, result.requestId, result.status);
      const already = alreadyNote(f, before === result.status && part === undefined, reason, reasonKept);
      if (!f.io.json) println(f.io, `${result.requestId} ${result.status}${part === undefined ? '' : ` (accepted part: ${partText(part)}, recorded)`}${already}`);
      else if (reasonKept?.recorded === false) note(f.io, `request ${result.requestId}${already}`);
      // The item read just before, as the move left it (its status read back from the service): no second listing.
      // A part is checked as `issue` would credit it: the part just recorded (a part given again is a decision again).
      if ((status === 'ACCEPTED' && before !== result.status) || (status === 'PARTIALLY_ACCEPTED' && part !== undefined)) {
        await noteIfIssueWouldRefuse(f, caller, result.requestId, kept !== undefined && kept !== 'not found' ? { ...kept, status: result.status } : undefined, part !== undefined);
      }
    } catch (error) {
      if (requestIds.length === 1) throw error;
      failures.push(error);
      results.push({ requestId, error: errorReport(error) });
      // A failure is an element of the result like a success (the partial-result contract):
      // on stdout, where a script reading the lines finds every request once.
      if (!f.io.json) println(f.io, `${requestId} error: ${oneLine(error instanceof Error ? error.message : String(error))}`);
    }
  }
}

/**
 * COMPLETED is final: a request completed with no credit note issued for it (none in the
 * ledger) leaves the customer never credited, so that takes --credited-elsewhere. Checked for
 * every request before anything moves. A credit note still being submitted is finished by
 * `issue`, which can complete the request itself.
 */
async function refuseCompletingUncredited(f: Factory, requests: readonly RequestOf[], command: string): Promise<void> {
  const ledger = await f.ledger();
  const uncredited: { requestId: string; pending: boolean }[] = [];
  for (const { requestId } of requests) {
    const intent = await ledger.lastIntent('credit-note', requestId);
    if (intent === undefined || intent.state === 'abandoned') uncredited.push({ requestId, pending: false });
    else if (intent.state !== 'done') uncredited.push({ requestId, pending: true });
  }
  if (uncredited.length === 0) return;
  const named = uncredited.map((u) => u.requestId).join(', ');
  const pending = uncredited.filter((u) => u.pending).map((u) => u.requestId);
  const first = uncredited[0]!.requestId;
  // The way offered must work: when `issue` would refuse the first (all of it credited
  // already, the window closed), that is said instead of sending the person to it.
  const { caller } = requests.find((r) => r.requestId === first)!;
  const refused = (await issueWouldRefuse(f, caller, first))?.why;
  const request = `${first}${await grantFlagOf(f, caller)}`;
  throw new UsageError(
    `return request${uncredited.length === 1 ? '' : 's'} ${named} ${uncredited.length === 1 ? 'has' : 'have'} no credit note issued in this ledger: completing would close ${uncredited.length === 1 ? 'it' : 'them'} with the customer never credited`,
    {
      hint:
        (refused !== undefined
          ? `nothing was completed; \`svc credit-note issue ${request}\` would refuse it (${refused})`
          : `nothing was completed; credit the customer first with \`svc credit-note issue ${request} --complete\``) +
        (pending.length > 0 ? ` (a credit note for ${pending.join(', ')} is still being submitted: that finishes it)` : '') +
        `, or, when the customer was credited another way, add --credited-elsewhere to \`svc ${command}\``,
    },
  );
}

/**
 * Why `issue` would refuse the request, in a line, and the way forward its refusal names
 * (src/credit-notes/decision.ts `ways`); undefined when it would not (or that cannot be learnt).
 */
async function issueWouldRefuse(f: Factory, caller: Caller, requestId: string, found?: QueueItem): Promise<{ why: string; ways: string | undefined } | undefined> {
  const { decisionOf } = await import('../../credit-notes/decision.js');
  const decision = await decisionOf(f, caller, requestId, [], found).catch(() => undefined);
  if (decision?.json.checks !== 'failed') return undefined;
  return { why: decision.json.issues.map((i) => `${printable(i.path)}: ${printable(i.message)}`).join('; '), ways: decision.ways };
}

/**
 * A request with a credit note issued, or one being submitted (a run killed or under way,
 * which a re-run would finish), is not rejected: the customer would be refused and credited.
 * Checked before anything is asked (reject of one request, triage's `r`), so that no question
 * says "No credit note is issued" of a request that has one.
 */
export async function refuseRejectingCredited(f: Factory, caller: Caller, requestId: string): Promise<void> {
  const intent = await (await f.ledger()).lastIntent('credit-note', requestId);
  if (intent === undefined || intent.state === 'abandoned') return;
  const grantFlag = await grantFlagOf(f, caller);
  const request = `${requestId}${grantFlag}`;
  const status = intent.state === 'done' ? await statusListed(caller, requestId) : undefined;
  // Credited and already closed: said as it is, not with a next step it no longer has.
  if (status === 'COMPLETED') {
    throw new RequestStateError(`return request ${requestId} is COMPLETED, credited by credit note ${intent.documentNumber}: it cannot be moved again`, {
      hint: `nothing was rejected; see it with \`svc credit-note show ${request}\``,
    });
  }
  throw creditedAlready(requestId, intent.documentNumber, {
    grantFlag,
    refused: 'it cannot be rejected',
    hint:
      intent.state === 'done'
        ? `it was credited: ${markDoneHint(request, status)}`
        : `nothing was rejected; ${markDoneHint(request, undefined, true)}; or close it with \`svc credit-note issue ${request} --abandon-pending\` and then reject`,
  });
}

/**
 * Accepted (whole, or in part), a request can no longer be rejected: when `issue` would refuse
 * it (more asked back than is left, a closed return window, a receipt this profile has no
 * record of), that is said now, with the way forward `issue`'s own refusal names: crediting
 * what is left with `issue --item …`, the receipt record with `--original FILE`, or
 * `complete --credited-elsewhere`. For a part, `issue` checks the part recorded, and so does
 * this. Said once the move is made, as the read-back status is what `issue` would start from.
 */
async function noteIfIssueWouldRefuse(f: Factory, caller: Caller, requestId: string, found: QueueItem | undefined, inPart = false): Promise<void> {
  const refused = await issueWouldRefuse(f, caller, requestId, found);
  if (refused === undefined) return;
  const request = `${requestId}${await grantFlagOf(f, caller)}`;
  const ways = refused.ways ?? `settle it another way and run \`svc credit-note complete ${request} --credited-elsewhere\``;
  note(f.io, `note: \`svc credit-note issue ${request}\` would refuse it (${refused.why}); accepted${inPart ? ' in part' : ''}, it can no longer be rejected: ${printable(ways)}`);
}

/** The request's status as the service lists it now; undefined when it is not listed (or cannot be asked). */
async function statusListed(caller: Caller, requestId: string): Promise<string | undefined> {
  try {
    return (await listReturnRequests(caller)).find((item) => item.requestId === requestId)?.status;
  } catch {
    return undefined;
  }
}

/**
 * Keeps the item for after the move and returns it as found (its status is the one before the
 * move); not finding it is left to the PATCH to report ('not found'), and a failure to keep it
 * only warns (undefined: the status is then asked of the service's list).
 */
async function keepQueueItem(f: Factory, caller: Caller, requestId: string): Promise<QueueItem | 'not found' | undefined> {
  try {
    return await findQueueItem(f, caller, requestId);
  } catch (error) {
    if (error instanceof NotFoundError) return 'not found';
    // The service refused this company's Grant (revoked, no access): the move would be refused
    // the same way, so that is the error, without a warning about a copy before it.
    const code = exitCodeOf(error);
    if (code === ExitCode.auth || code === ExitCode.forbidden) throw error;
    note(f.io, `warning: could not keep a copy of request ${requestId} (${error instanceof Error ? error.message : String(error)}); \`issue\` may not find it once the service stops listing it`);
    return undefined;
  }
}

/**
 * What the line of a moved request adds: a move to where it already was changed nothing, and a
 * rejection kept before stands (its reason, when and by whom), the reason given now not recorded.
 */
function alreadyNote(f: Factory, wasAlready: boolean, reason: string | undefined, reasonKept: KeptReason | undefined): string {
  if (reasonKept?.recorded === false && reason !== undefined) {
    const earlier = reasonKept.stands;
    const stands = `${rejectedWhen(earlier, zoneOf(f.env))}, reason "${printable(earlier.reason)}"; the reason "${printable(reason)}" was not recorded`;
    return ` (${wasAlready ? 'it already was' : 'it was rejected meanwhile'}: ${stands})`;
  }
  if (!wasAlready) return '';
  if (reasonKept !== undefined && reason !== undefined) return ` (it already was, with no reason recorded: "${printable(reason)}" is recorded now)`;
  return ' (it already was: nothing changed)';
}

/**
 * A rejected request's --json element says what its line says: the rejection that stands
 * (`rejection`: its reason, `rejectedAt`, `rejectedBy`), and with --reason whether this one
 * was recorded (`reasonRecorded`; false when one kept before stands, or it could not be kept).
 * Without --reason, the rejection kept before, if any: an unreadable ledger only leaves it out.
 */
async function rejectionFields(f: Factory, requestId: string, reason: string | undefined, kept: KeptReason | undefined): Promise<{ rejection?: Rejection; reasonRecorded?: boolean }> {
  if (reason !== undefined) return kept === undefined ? { reasonRecorded: false } : { rejection: kept.stands, reasonRecorded: kept.recorded };
  const standing = await (await f.ledger())
    .rejection(requestId)
    .catch((error: unknown) => {
      if (error instanceof SvcError) return undefined;
      throw error;
    });
  return standing === undefined ? {} : { rejection: standing };
}

/** The rejection that stands after a reason was given, and whether it is the one given (recorded) or one kept before. */
interface KeptReason {
  stands: Rejection;
  recorded: boolean;
}

/**
 * The request is rejected whatever happens here: a reason that cannot be kept only warns.
 * Answers the rejection that stands: this one (recorded), or the one the ledger kept before,
 * which stands and this reason is not kept; undefined when it was not kept for another cause (warned).
 */
async function keepReason(f: Factory, requestId: string, reason: string): Promise<KeptReason | undefined> {
  try {
    const rejection: Rejection = { reason, rejectedAt: new Date(f.clock.now()).toISOString(), rejectedBy: recorder() };
    const kept = await (await f.ledger()).keepRejection(requestId, rejection);
    if (kept === undefined) note(f.io, `warning: the reason for rejecting request ${requestId} was not kept: this ledger has no copy of the request`);
    return kept === undefined ? undefined : { stands: kept.earlier ?? rejection, recorded: kept.earlier === undefined };
  } catch (error) {
    note(f.io, `warning: the reason for rejecting request ${requestId} was not kept (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}
