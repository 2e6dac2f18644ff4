// The issuer's moves of a return request (docs/interface-decisions.md#return-request-moves):
// one table, which the sandbox enforces and the CLI's pickers, completion and
// confirmations read. Plain data with type-only imports, so that `svc __complete` loads no
// schema library to read it.
import type { QueueItemStatus, SettableQueueItemStatus } from './returns.js';

/** From each status, where the issuer may move it; PENDING and CANCELLED are never the issuer's to set. */
export const ISSUER_MOVES: Readonly<Record<QueueItemStatus, readonly SettableQueueItemStatus[]>> = {
  PENDING: ['ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED'],
  ACCEPTED: ['COMPLETED'],
  PARTIALLY_ACCEPTED: ['COMPLETED'],
  REJECTED: [],
  COMPLETED: [],
  CANCELLED: [],
};

/** The issuer's moves out of `from` (none for a status this client does not know). */
export function issuerMovesFrom(from: string): readonly SettableQueueItemStatus[] {
  return Object.hasOwn(ISSUER_MOVES, from) ? ISSUER_MOVES[from as QueueItemStatus] : [];
}

/** Whether the issuer may move a request in `from` to `to`. */
export function issuerMayMove(from: string, to: string): boolean {
  return (issuerMovesFrom(from) as readonly string[]).includes(to);
}

/** Statuses nothing moves a request out of: a move there cannot be undone. */
export function isFinalStatus(status: string): boolean {
  return Object.hasOwn(ISSUER_MOVES, status) && issuerMovesFrom(status).length === 0;
}
