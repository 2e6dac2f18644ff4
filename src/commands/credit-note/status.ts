// `svc credit-note accept|reject|complete [REQUEST_ID...]` and `status [REQUEST_ID] STATUS`:
// one PATCH of the request's status. A refused move exits 7 with the service's account of
// the current state and the moves it allows. Before accepting, the request is kept in the
// ledger (CONTRACT §8): a service may stop listing it once it is no longer PENDING, and
// `issue` and `complete` still need it. Without an ID a terminal offers the open requests to
// choose from. A rejection's reason (--reason) is kept in the ledger beside the request:
// the PATCH takes `{ status }` only, so the service never hears it.
import type { Caller } from '../../api/caller.js';
import { setReturnRequestStatus } from '../../api/credit-note.js';
import { SettableQueueItemStatus } from '../../contract/returns.js';
import { pickRequestId, type PickFor } from '../../credit-notes/pick.js';
import { findQueueItem } from '../../credit-notes/queue-cache.js';
import { rejectionReason } from '../../credit-notes/rejection.js';
import { CancelError, NotFoundError, PartialFailureError, UsageError, errorReport } from '../../errors.js';
import { approvedPart } from '../../credit-notes/approved.js';
import { askPart, keepAcceptedPart, partText, samePart } from '../../credit-notes/accepted-part.js';
import { askedPart } from '../../credit-notes/part.js';
import { readQueue } from '../../credit-notes/queue.js';
import { loadKeyring } from '../../crypto/keystore.js';
import { parseItem, type ItemQuantity } from '../item-flag.js';
import { callerForRequests } from '../../credit-notes/request-grant.js';
import { resolveRequestIds } from '../../credit-notes/request-id.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { canPrompt, note, println } from '../../io/streams.js';
import type { Verb } from '../context.js';

export interface StatusOptions {
  /** Undefined: chosen on a terminal. */
  requestId?: string | undefined;
  status: string;
}

export async function run(opts: StatusOptions, f: Factory): Promise<void> {
  const status = settable(opts.status);
  // The same move as `accept --partial`: the part is recorded with it (asked for, or --item there).
  if (status === 'PARTIALLY_ACCEPTED') return accept.run({ requestIds: opts.requestId === undefined ? [] : [opts.requestId], partial: true }, f);
  const requestIds = await givenOrPicked(f, opts.requestId === undefined ? [] : [opts.requestId], {
    command: 'credit-note status',
    usage: '[options] [request-id] <status>',
    purpose: `set to ${status}`,
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
    });
    if (!partial) return setStatuses(f, given, 'ACCEPTED');
    if (items.length > 0 && given.length > 1) {
      throw new UsageError('--item names the part of one request: accept one request at a time with --item', { hint: 'nothing was accepted' });
    }
    // The part of each request is known (named, or asked for) and checked before anything moves.
    const caller = await callerForRequests(f, given);
    const requestIds = await resolveRequestIds(f, caller, given);
    const parts = new Map<string, ItemQuantity[]>();
    for (const requestId of requestIds) parts.set(requestId, await partToAccept(f, caller, requestId, items));
    await setStatuses(f, requestIds, 'PARTIALLY_ACCEPTED', undefined, parts);
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
    return [...items];
  }
  if (canPrompt(f.io)) return askPart(f, requestId, request);
  throw new UsageError(`accepting return request ${requestId} in part needs the part: name it with --item PRODUCT_ID:QTY (svc credit-note accept ${requestId} --item …)`, {
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
async function recordPart(f: Factory, requestId: string, items: readonly ItemQuantity[]): Promise<(() => Promise<void>) | undefined> {
  const recorded = await (await f.ledger()).acceptedPart(requestId);
  const keep = async () => void (await keepAcceptedPart(f, requestId, items));
  if (recorded !== undefined && !samePart(recorded.items, items)) return keep;
  await keep();
  return undefined;
}

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
 * Moves each request (IDs or unique prefixes) in turn and reports each: one line per request
 * (`ID STATUS`, or the error on stderr), --json an array of results. A failure does not stop
 * the others; the command then exits with the first failure's code.
 */
async function setStatuses(f: Factory, given: readonly string[], status: SettableQueueItemStatus, reason?: string, parts?: ReadonlyMap<string, readonly ItemQuantity[]>): Promise<void> {
  const caller = await callerForRequests(f, given);
  const requestIds = await resolveRequestIds(f, caller, given);
  const results: unknown[] = [];
  const failures: unknown[] = [];
  for (const requestId of requestIds) {
    try {
      // A rejection's reason is kept with the item, so that is kept too.
      if (status === 'ACCEPTED' || status === 'PARTIALLY_ACCEPTED' || reason !== undefined) await keepQueueItem(f, caller, requestId);
      const part = parts?.get(requestId);
      const afterMove = part === undefined ? undefined : await recordPart(f, requestId, part);
      const result = await setReturnRequestStatus(caller, requestId, status);
      await afterMove?.();
      if (reason !== undefined) await keepReason(f, requestId, reason);
      results.push(part === undefined ? result : { ...result, acceptedPart: part });
      if (!f.io.json) println(f.io, `${result.requestId} ${result.status}${part === undefined ? '' : ` (accepted part: ${partText(part)}, recorded)`}`);
    } catch (error) {
      if (requestIds.length === 1) throw error;
      failures.push(error);
      results.push({ requestId, error: errorReport(error) });
      if (!f.io.json) note(f.io, `${requestId}: ${error instanceof Error ? error.message : String(error)}`);
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
