// Which return requests `credit-note poll` shows: by status (the open ones unless told
// otherwise), receipt and age (src/credit-notes/queue-flags.ts reads the flags). Only what the queue item carries in clear is used, so the
// filter runs before anything is decrypted (it is plain data).
import type { QueueItem } from '../contract/returns.js';

export const OPEN_STATUSES = ['PENDING', 'ACCEPTED', 'PARTIALLY_ACCEPTED'] as const;

export interface QueueFilter {
  /** Undefined: every status. */
  statuses?: readonly string[] | undefined;
  /** A serviceReceiptId, or a prefix of one. */
  receipt?: string | undefined;
  /** Only these receipts (whole serviceReceiptIds): the one a document number named, a customer's. */
  receipts?: readonly string[] | undefined;
  /** ISO times: created before / after. */
  createdBefore?: string | undefined;
  createdAfter?: string | undefined;
}

export function matchesFilter(item: QueueItem, filter: QueueFilter | undefined): boolean {
  if (filter === undefined) return true;
  if (filter.statuses !== undefined && !filter.statuses.includes(item.status)) return false;
  if (filter.receipt !== undefined && !item.serviceReceiptId.startsWith(filter.receipt)) return false;
  if (filter.receipts !== undefined && !filter.receipts.includes(item.serviceReceiptId)) return false;
  const created = Date.parse(item.createdAt);
  if (filter.createdBefore !== undefined && !(created < Date.parse(filter.createdBefore))) return false;
  if (filter.createdAfter !== undefined && !(created > Date.parse(filter.createdAfter))) return false;
  return true;
}

/**
 * Oldest first, by when the customer asked (`createdAt`); requests asked at the same moment
 * keep the order they come in (the service's, as `poll` lists them: sort stably). A time that
 * cannot be read goes last.
 */
export function oldestFirst(a: Pick<QueueItem, 'createdAt'>, b: Pick<QueueItem, 'createdAt'>): number {
  const at = askedAt(a);
  const bt = askedAt(b);
  return at < bt ? -1 : at > bt ? 1 : 0;
}

function askedAt(item: Pick<QueueItem, 'createdAt'>): number {
  const at = Date.parse(item.createdAt);
  return Number.isNaN(at) ? Number.POSITIVE_INFINITY : at;
}
