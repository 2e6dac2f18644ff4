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

/** The status a moving verb leaves a request in. */
export function statusAfter(verb: Exclude<QueueVerb, 'show' | 'status'>): string {
  return TARGET[verb];
}

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

/** The keys a request is decided with, on the queue screen and in triage. */
export type MoveKey = 'a' | 'p' | 'r' | 'i' | 'c';

export interface Move {
  verb: Exclude<QueueVerb, 'show' | 'status'>;
  /** What triage's keys line and the screen's `?` call it. */
  name: string;
  /** The screen's hint line, where the width is short. */
  short: string;
  /** What it does, for triage's `?`. */
  help: string;
  /** Takes several requests at once (the screen's marks). */
  bulk: boolean;
}

/**
 * Each decision key: its verb (which the table above decides the legality of), its words, and
 * what it does. `i` credits an accepted request and completes it: a PENDING one is accepted
 * first (a, or p for a part), so the moves offered are those the service allows.
 */
export const MOVES: Readonly<Record<MoveKey, Move>> = {
  a: { verb: 'accept', name: 'accept', short: 'accept', help: 'accept the request whole (ACCEPTED)', bulk: true },
  p: { verb: 'accept-part', name: 'accept part', short: 'accept part', help: 'accept part of it: name the part, recorded for issue (PARTIALLY_ACCEPTED)', bulk: false },
  r: { verb: 'reject', name: 'reject', short: 'reject', help: 'reject it, with no credit note and a reason kept in the ledger, not sent to the service (final: asks first)', bulk: true },
  i: { verb: 'issue', name: 'issue & complete', short: 'issue', help: 'issue the credit note and complete the request (final: asks first, naming the amount)', bulk: false },
  c: { verb: 'complete', name: 'complete, no credit note', short: 'complete', help: 'complete it without a credit note: nothing is credited, settled another way (final: asks first)', bulk: false },
};

/** The decision keys a request in `status` can take, in the table's order. */
export function movesFor(status: string): MoveKey[] {
  return (Object.keys(MOVES) as MoveKey[]).filter((k) => verbCanMove(MOVES[k].verb, status));
}

/** A request in the words of a final question: its summary ("R-2026-0008 (2 × Milk, 6.07 EUR)") and the company it is of. */
export interface Asked {
  summary: string;
  company: string;
  /** Named in every question: several requests on one document read alike. */
  requestId?: string | undefined;
}

/** "request 1dd58e1e on R-2025-000871 (1 × Milk, 1.28 EUR) of Example Retail Ltd": which request a question is about. */
function named(a: Asked): string {
  return `${a.requestId === undefined ? '' : `request ${a.requestId.slice(0, 8)} on `}${a.summary} of ${a.company}`;
}

/** "R-2025-000871 (1 × Milk, 1.28 EUR) of Example Retail Ltd, request 1dd58e1e": one line of a list of several. */
export function listedLine(a: Asked): string {
  return `  ${a.summary} of ${a.company}${a.requestId === undefined ? '' : `, request ${a.requestId.slice(0, 8)}`}`;
}

/** What a final move will credit: a credit note already issued for the request, or none. */
export type CreditNoteIssued = { documentNumber: string; amount: string } | undefined;

const FINAL = 'It cannot be moved again.';

/** `reject`'s question: no credit note, and final. */
export function rejectQuestion(asked: readonly Asked[]): string {
  if (asked.length === 1) return `Reject ${named(asked[0]!)}? No credit note is issued. ${FINAL}`;
  return `Reject these ${asked.length} requests? No credit note is issued for any of them. They cannot be moved again.\n${asked.map(listedLine).join('\n')}\n`;
}

/** `complete`'s question: the credit note issued for each request, or that none is and nothing is credited. */
export function completeQuestion(asked: readonly (Asked & { credited: CreditNoteIssued })[]): string {
  const how = (c: CreditNoteIssued) => (c === undefined ? 'with NO credit note: nothing is credited' : `credited by credit note ${c.documentNumber} (${c.amount})`);
  if (asked.length === 1) return `Complete ${named(asked[0]!)} ${how(asked[0]!.credited)}? ${FINAL}`;
  return `Complete these ${asked.length} requests? They cannot be moved again.\n${asked.map((a) => `${listedLine(a)}, ${how(a.credited)}`).join('\n')}\n`;
}

/** The request an issue is for: its ID, its receipt's document number, and (credited in part) how much it asks. */
export interface IssuedFor {
  requestId: string;
  receipt: string;
  company: string;
  /** Set when the credit note credits only part of what the request asks: "6 lines, 15.20 EUR". */
  askedMore?: string | undefined;
}

/**
 * `issue`'s question: which credit note, how much and for what (its own lines, not the
 * request's), whose; which request, and with --complete that it closes it, the part not
 * credited included.
 */
export function issueQuestion(creditNote: { documentNumber: string; amount: string; lines: readonly string[] }, issued: IssuedFor, complete: boolean): string {
  const request = `request ${issued.requestId.slice(0, 8)} on ${issued.receipt}`;
  const issue = `Issue credit note ${creditNote.documentNumber} for ${creditNote.amount} (${creditNote.lines.join(', ')}) from ${issued.company}`;
  const more = issued.askedMore === undefined ? '' : complete ? ` (it asks ${issued.askedMore}: the rest is not credited)` : ` (it asks ${issued.askedMore})`;
  return complete ? `${issue} and complete ${request}${more}? ${FINAL}` : `${issue} for ${request}${more}?`;
}
