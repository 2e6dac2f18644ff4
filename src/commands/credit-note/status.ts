// `svc credit-note accept|reject|complete REQUEST_ID` and `status REQUEST_ID STATUS`: one
// PATCH of the request's status. A refused move exits 7 with the service's account of
// the current state and the moves it allows. Before accepting, the request is kept in the
// ledger (CONTRACT §8): a service may stop listing it once it is no longer PENDING, and
// `issue` and `complete` still need it.
import { writeReceiptsCaller, type Caller } from '../../api/caller.js';
import { setReturnRequestStatus } from '../../api/credit-note.js';
import { SettableQueueItemStatus } from '../../contract/returns.js';
import { findQueueItem } from '../../credit-notes/queue-cache.js';
import { NotFoundError, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note, println } from '../../io/streams.js';
import type { Verb } from '../context.js';

export interface StatusOptions {
  requestId: string;
  status: string;
}

export async function run(opts: StatusOptions, f: Factory): Promise<void> {
  await setStatus(f, opts.requestId, settable(opts.status));
}

export const accept: Verb<{ requestId: string; partial: boolean }> = {
  run: (opts, f) => setStatus(f, opts.requestId, opts.partial ? 'PARTIALLY_ACCEPTED' : 'ACCEPTED'),
};

export const reject: Verb<{ requestId: string }> = {
  run: (opts, f) => setStatus(f, opts.requestId, 'REJECTED'),
};

export const complete: Verb<{ requestId: string }> = {
  run: (opts, f) => setStatus(f, opts.requestId, 'COMPLETED'),
};

/** STATUS of `svc credit-note status`, in any case; PENDING and CANCELLED are not the merchant's to set. */
function settable(value: string): SettableQueueItemStatus {
  const parsed = SettableQueueItemStatus.safeParse(value.trim().toUpperCase());
  if (parsed.success) return parsed.data;
  throw new UsageError(`${value} is not a status a merchant can set`, {
    hint: `use one of ${SettableQueueItemStatus.options.join(', ')}`,
  });
}

async function setStatus(f: Factory, requestId: string, status: SettableQueueItemStatus): Promise<void> {
  const caller = await writeReceiptsCaller(f);
  if (status === 'ACCEPTED' || status === 'PARTIALLY_ACCEPTED') await keepQueueItem(f, caller, requestId);
  const result = await setReturnRequestStatus(caller, requestId, status);
  if (f.io.json) writeJson(f.io, result);
  else println(f.io, `${result.requestId} ${result.status}`);
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
