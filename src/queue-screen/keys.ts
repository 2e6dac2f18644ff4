// The queue screen's keys: what `?` shows, what the hint line offers for the selected
// request, and which decision each key is. The decisions, their words and where each is legal
// are the moves table's (src/credit-notes/moves.ts), which triage, the single commands and
// completion read too.
import { MOVES, movableStatuses, movesFor, verbCanMove, type MoveKey, type QueueVerb } from '../credit-notes/moves.js';

export type DecisionKey = MoveKey;

/** Each decision key as the screen says it: the table's short name (the hint line is narrow). */
export const DECISIONS = Object.fromEntries(Object.entries(MOVES).map(([key, move]) => [key, { verb: move.verb, name: move.short, bulk: move.bulk }])) as Readonly<
  Record<DecisionKey, { verb: QueueVerb; name: string; bulk: boolean }>
>;

export function isDecisionKey(key: string): key is DecisionKey {
  return Object.hasOwn(DECISIONS, key);
}

/** The decision keys a request in `status` can take, in the order the hint line shows them. */
export function decisionsFor(status: string): DecisionKey[] {
  return movesFor(status);
}

/** Why `key` cannot act on a request in `status` ("… is REJECTED; accept moves PENDING"), or undefined when it can. */
export function refusal(key: DecisionKey, status: string, label: string): string | undefined {
  const { verb, name } = DECISIONS[key];
  if (verbCanMove(verb, status)) return undefined;
  const from = movableStatuses(verb);
  const then = key === 'i' && status === 'PENDING' ? ': accept it first (a, or p for a part)' : '';
  return `cannot ${name} ${label}: it is ${status}; ${name} moves ${from.length > 0 ? from.join(' or ') : 'none'}${then}`;
}

/** What `?` shows: every key, one line each. */
export const KEY_HELP: readonly (readonly [string, string])[] = [
  ['↑ k  ↓ j', 'move the cursor'],
  ['PgUp PgDn', 'a page up or down'],
  ['Home g  End G', 'the first or the last request'],
  ['/', 'filter: type to narrow the rows (any cell, the customer\'s name, email or phone, the document number); Enter keeps it, Esc clears it'],
  ['Enter', 'show the selected request (as `credit-note show`); q or Esc back'],
  ['space', 'mark or unmark the request under the cursor (the cursor stays), for a bulk accept or reject; a declined question keeps the marks'],
  ['a', 'accept (the marked requests, else the selected one)'],
  ['p', 'accept in part: asks the part, recorded as `accept --item` does'],
  ['r', 'reject, with a reason (the marked, else the selected; asks first, naming each)'],
  ['i', 'issue the credit note and complete the request (preview, asks first)'],
  ['c', 'complete without a credit note (asks first)'],
  ['e', 'the whole message, when the status line cuts a long one; q or Esc back'],
  ['?', 'these keys'],
  ['Esc', 'clear the filter, then the marks, else leave'],
  ['q  Ctrl-C', 'leave'],
];
