// Which requests a verb can move, read from the issuer's transitions (src/contract/moves.ts):
// what a picker and shell completion offer, and what triage's keys allow. A request the verb
// cannot move is never offered, so no one confirms a move the service then refuses (409).
import { ISSUER_MOVES, issuerMayMove } from '../contract/moves.js';

/** The verbs that take a request ID; `accept-part` is `accept --partial`, `status` is `status … TARGET`. */
export type QueueVerb = 'show' | 'accept' | 'accept-part' | 'reject' | 'complete' | 'issue' | 'status';

const STATUSES = Object.keys(ISSUER_MOVES);

/** The status each moving verb sets; `issue` credits a request and then completes it. */
const TARGET: Readonly<Record<Exclude<QueueVerb, 'show' | 'status'>, string>> = {
  accept: 'ACCEPTED',
  'accept-part': 'PARTIALLY_ACCEPTED',
  reject: 'REJECTED',
  complete: 'COMPLETED',
  issue: 'COMPLETED',
};

/**
 * Whether `verb` can act on a request in `status`: `show` on any, `status` on one it can move
 * to `target` (to anything, when the target is not known yet, as in completion), the others on
 * one their status can be reached from. Unknown statuses (a newer service's) are moved by none.
 */
export function verbCanMove(verb: QueueVerb, status: string, target?: string): boolean {
  if (verb === 'show') return true;
  if (verb === 'status') return target === undefined ? STATUSES.includes(status) && ISSUER_MOVES[status as keyof typeof ISSUER_MOVES].length > 0 : issuerMayMove(status, target);
  return issuerMayMove(status, TARGET[verb]);
}

/** The statuses `verb` can move, in the table's order: for messages ("to reject: PENDING"). */
export function movableStatuses(verb: QueueVerb, target?: string): string[] {
  return STATUSES.filter((status) => verbCanMove(verb, status, target));
}
