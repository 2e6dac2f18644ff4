// `svc credit-note accept|reject|complete [REQUEST_ID...]` and `status [REQUEST_ID] STATUS`:
// one PATCH of the request's status. A refused move exits 7 with the service's account of
// the current state and the moves it allows. Before accepting, the request is kept in the
// ledger (CONTRACT §8): a service may stop listing it once it is no longer PENDING, and
// `issue` and `complete` still need it. Without an ID a terminal offers the open requests to
// choose from. A rejection's reason (--reason) is kept in the ledger beside the request:
// the PATCH takes `{ status }` only, so the service never hears it.
import { writeReceiptsCaller, type Caller } from '../../api/caller.js';
import { setReturnRequestStatus } from '../../api/credit-note.js';
import { SettableQueueItemStatus } from '../../contract/returns.js';
import { pickRequestId, type PickFor } from '../../credit-notes/pick.js';
import { findQueueItem } from '../../credit-notes/queue-cache.js';
import { rejectionReason } from '../../credit-notes/rejection.js';
import { CancelError, NotFoundError, PartialFailureError, UsageError, errorReport } from '../../errors.js';
import { resolveRequestIds } from '../../credit-notes/request-id.js';
import type { Factory } from '../../factory.js';
import { oneLine, writeJson } from '../../io/output.js';
import { canPrompt, note, println } from '../../io/streams.js';
import type { Verb } from '../context.js';

export interface StatusOptions {
  /** Undefined: chosen on a terminal. */
  requestId?: string | undefined;
  status: string;
}

export async function run(opts: StatusOptions, f: Factory): Promise<void> {
  const status = settable(opts.status);
  const requestIds = await givenOrPicked(f, opts.requestId === undefined ? [] : [opts.requestId], {
    command: 'credit-note status',
    usage: '[options] [request-id] <status>',
    purpose: `set to ${status}`,
  });
  await setStatuses(f, requestIds, status);
}

export const accept: Verb<{ requestIds: string[]; partial: boolean }> = {
  async run(opts, f) {
    const requestIds = await givenOrPicked(f, opts.requestIds, {
      command: 'credit-note accept',
      usage: '[options] [request-id...]',
      purpose: opts.partial ? 'accept in part' : 'accept',
    });
    await setStatuses(f, requestIds, opts.partial ? 'PARTIALLY_ACCEPTED' : 'ACCEPTED');
  },
};

export interface RejectOptions {
  requestIds: string[];
  yes?: boolean | undefined;
  /** Why; kept on this machine only. */
  reason?: string | undefined;
}

export const reject: Verb<RejectOptions> = {
  async run(opts, f) {
    const reason = opts.reason === undefined ? undefined : rejectionReason(opts.reason);
    const requestIds = await givenOrPicked(f, opts.requestIds, { command: 'credit-note reject', usage: '[options] [request-id...]', purpose: 'reject' });
    // REJECTED is final: nothing moves a request out of it, so a person is asked first.
    if (!opts.yes && canPrompt(f.io)) {
      const what = requestIds.length === 1 ? `request ${requestIds[0]}` : `${requestIds.length} requests`;
      const ok = await f.prompter().confirm({ message: `Reject ${what}? A rejected request cannot be moved again.`, flag: '--yes' });
      if (!ok) throw new CancelError('cancelled: nothing was rejected');
    }
    await setStatuses(f, requestIds, 'REJECTED', reason);
  },
};

export const complete: Verb<{ requestIds: string[] }> = {
  async run(opts, f) {
    const requestIds = await givenOrPicked(f, opts.requestIds, { command: 'credit-note complete', usage: '[options] [request-id...]', purpose: 'complete' });
    await setStatuses(f, requestIds, 'COMPLETED');
  },
};

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
 * Moves each request (IDs or unique prefixes) in turn and reports each on stdout: one line
 * per request (`ID STATUS`, or `ID error: MESSAGE`), --json an array of results and
 * `{ requestId, error }` elements. A failure does not stop the others; the exit code is then
 * the partial-result contract's (PartialFailureError).
 */
async function setStatuses(f: Factory, given: readonly string[], status: SettableQueueItemStatus, reason?: string): Promise<void> {
  const caller = await writeReceiptsCaller(f);
  const requestIds = await resolveRequestIds(f, caller, given);
  const results: unknown[] = [];
  const failures: unknown[] = [];
  for (const requestId of requestIds) {
    try {
      // A rejection's reason is kept with the item, so that is kept too.
      if (status === 'ACCEPTED' || status === 'PARTIALLY_ACCEPTED' || reason !== undefined) await keepQueueItem(f, caller, requestId);
      const result = await setReturnRequestStatus(caller, requestId, status);
      if (reason !== undefined) await keepReason(f, requestId, reason);
      results.push(result);
      if (!f.io.json) println(f.io, `${result.requestId} ${result.status}`);
    } catch (error) {
      if (requestIds.length === 1) throw error;
      failures.push(error);
      results.push({ requestId, error: errorReport(error) });
      // A failure is an element of the result like a success (the partial-result contract):
      // on stdout, where a script reading the lines finds every request once.
      if (!f.io.json) println(f.io, `${requestId} error: ${oneLine(error instanceof Error ? error.message : String(error))}`);
    }
  }
  if (f.io.json) writeJson(f.io, requestIds.length === 1 ? results[0] : results);
  if (failures.length > 0) throw new PartialFailureError(`${failures.length} of ${requestIds.length} requests were not moved to ${status}`, failures, requestIds.length);
}

/** Keeps the item for after the move; not finding it is left to the PATCH to report, and a failure to keep it only warns. */
async function keepQueueItem(f: Factory, caller: Caller, requestId: string): Promise<void> {
  try {
    await findQueueItem(f, caller, requestId);
  } catch (error) {
    if (error instanceof NotFoundError) return;
    note(f.io, `warning: could not keep a copy of request ${requestId} (${error instanceof Error ? error.message : String(error)}); \`issue\` may not find it once the service stops listing it`);
  }
}

/** The request is rejected whatever happens here: a reason that cannot be kept only warns. */
async function keepReason(f: Factory, requestId: string, reason: string): Promise<void> {
  try {
    const kept = await (await f.ledger()).keepRejection(requestId, { reason, rejectedAt: new Date(f.clock.now()).toISOString() });
    if (!kept) note(f.io, `warning: the reason for rejecting request ${requestId} was not kept: this machine has no copy of the request`);
  } catch (error) {
    note(f.io, `warning: the reason for rejecting request ${requestId} was not kept (${error instanceof Error ? error.message : String(error)})`);
  }
}
