// CONTRACT §8 "Outstanding" queue: a real service may list only PENDING items, so an item is
// kept in the ledger when it is first seen, and a command that needs one the queue no longer
// lists (`issue` after `accept`, `show`) falls back to the kept copy. The copy is the
// encrypted item as the service sent it: nothing decrypted is kept.
import { listReturnRequests } from '../api/credit-note.js';
import type { Caller } from '../api/caller.js';
import type { QueueItem } from '../contract/returns.js';
import { NotFoundError } from '../errors.js';
import type { Factory } from '../factory.js';

/** The queue item of a request: the service's, kept for later; else the one kept when it was last seen. */
export async function findQueueItem(f: Factory, caller: Caller, requestId: string): Promise<QueueItem> {
  const listed = (await listReturnRequests(caller)).find((i) => i.requestId === requestId);
  const ledger = await f.ledger();
  if (listed) {
    await ledger.rememberQueueItems([listed]);
    return listed;
  }
  const kept = await ledger.queueItem(requestId);
  if (kept) return kept;
  throw new NotFoundError(`no return request ${requestId} in the queue`, {
    hint: 'see the outstanding requests with `svc credit-note poll`',
  });
}
