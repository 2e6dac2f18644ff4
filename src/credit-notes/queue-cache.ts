// docs/interface-decisions.md#outstanding-queue: a real service may list only PENDING items, so an item is
// kept in the ledger when it is first seen, and a command that needs one the queue no longer
// lists (`issue` after `accept`, `show`) falls back to the kept copy. The copy is the
// encrypted item as the service sent it: nothing decrypted is kept.
import { listReturnRequests } from '../api/credit-note.js';
import type { Caller } from '../api/caller.js';
import type { QueueItem } from '../contract/returns.js';
import { requestNotFound } from './request-grant.js';
import { rememberMove } from '../completion/cache.js';
import { matchRequestId } from './request-id.js';
import type { Factory } from '../factory.js';

/**
 * The queue item of a request: the service's, kept for later; else the one kept when it was
 * last seen. `requestId` may be a unique prefix (6+ characters) of a listed request's ID.
 */
export async function findQueueItem(f: Factory, caller: Caller, given: string): Promise<QueueItem> {
  const queue = await listReturnRequests(caller);
  const requestId = matchRequestId(given, queue.map((i) => i.requestId));
  const listed = queue.find((i) => i.requestId === requestId);
  const ledger = await f.ledger();
  if (listed) {
    // Its status as the service says now, for completion too (a colleague may have moved it).
    await Promise.all([ledger.rememberQueueItems([listed]), rememberMove(f, listed.requestId, listed.status)]);
    return listed;
  }
  const kept = await ledger.queueItem(requestId);
  if (kept) return kept;
  throw await requestNotFound(f, caller, requestId);
}
