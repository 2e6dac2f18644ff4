// The outstanding return request queue (docs/interface-decisions.md#return-requests, #return-request-moves;
// docs/interface-decisions.md#return-request-moves): what customers' devices submitted, for
// whom, and the state each request is in. The service only ever holds the ciphertext.
import { ISSUER_MOVES } from '../contract/moves.js';
import type { QueueItem, QueueItemStatus, SettableQueueItemStatus } from '../contract/returns.js';
import type { Sandbox } from './context.js';
import type { Caller } from './guard.js';
import type { Issuer } from './issuers.js';
import { HttpError } from './router.js';
import { defineSlice } from './state.js';

export interface QueueRecord extends Issuer {
  readonly requestId: string;
  readonly serviceReceiptId: string;
  readonly encryptedSymmetricKey: string;
  /** Base64 SPKI of the issuer key the request was encrypted for. */
  readonly publicKey: string;
  readonly encryptedCreditNoteInitiationRequest: string;
  readonly createdAt: string;
  /** Changed only through `setStatusByIssuer` and `cancelByCustomer`. */
  status: QueueItemStatus;
  updatedAt: string;
}

// Insertion order is creation order, so listing oldest first needs no sort, even for 10,000
// items: requests made now go last (the sandbox clock never goes back without a reset,
// which empties the queue), and requests dated back (an aged queue) are sorted in once.
const queue = defineSlice('queue', () => new Map<string, QueueRecord>());

/** Adds requests made together; `datedBack` when their createdAt is earlier than now. */
export function enqueue(sandbox: Sandbox, records: readonly QueueRecord[], datedBack = false): void {
  const map = sandbox.state.slice(queue);
  for (const record of records) map.set(record.requestId, record);
  if (!datedBack) return;
  // Every createdAt is the sandbox's own ISO form (UTC, milliseconds), so strings compare as times; the sort is stable.
  const ordered = [...map.values()].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  map.clear();
  for (const record of ordered) map.set(record.requestId, record);
}

/**
 * A company sees every request of its receipts; a client application only those of the
 * receipts it issued, which are the ones encrypted for its key.
 */
function visibleTo(record: QueueRecord, caller: Caller): boolean {
  return record.companyId === caller.companyId && (caller.via === 'api-key' || record.clientId === caller.clientId);
}

/** The polling shape, and nothing else (docs/interface-decisions.md#return-requests names what it must not contain). */
export function queueItem(record: QueueRecord): QueueItem {
  return {
    requestId: record.requestId,
    serviceReceiptId: record.serviceReceiptId,
    encryptedSymmetricKey: record.encryptedSymmetricKey,
    publicKey: record.publicKey,
    status: record.status,
    createdAt: record.createdAt,
    encryptedCreditNoteInitiationRequest: record.encryptedCreditNoteInitiationRequest,
  };
}

// Polling a 10,000-item queue is benchmarked: each item is encoded once and kept until its
// status changes, so a poll is a filter and one copy rather than 10,000 stringifications.
const encoded = new WeakMap<QueueRecord, Buffer>();
const [OPEN, COMMA, CLOSE] = ['[', ',', ']'].map((c) => Buffer.from(c)) as [Buffer, Buffer, Buffer];

function encodedItem(record: QueueRecord): Buffer {
  let bytes = encoded.get(record);
  if (!bytes) encoded.set(record, (bytes = Buffer.from(JSON.stringify(queueItem(record)))));
  return bytes;
}

/** The caller's queue items as a JSON array, oldest first. */
export function queueJson(sandbox: Sandbox, caller: Caller): Buffer {
  const parts = [OPEN];
  for (const record of sandbox.state.slice(queue).values()) {
    if (!visibleTo(record, caller)) continue;
    if (parts.length > 1) parts.push(COMMA);
    parts.push(encodedItem(record));
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/** The caller's request, or a 404 that reads the same for unknown and someone else's. */
export function requireQueueRecord(sandbox: Sandbox, requestId: string, caller?: Caller): QueueRecord {
  const record = sandbox.state.slice(queue).get(requestId);
  if (!record || (caller !== undefined && !visibleTo(record, caller))) throw new HttpError('not_found', `no return request ${requestId}`);
  return record;
}

/** The issuer's move; the same status again is a retry and changes nothing. */
export function setStatusByIssuer(sandbox: Sandbox, record: QueueRecord, to: SettableQueueItemStatus): void {
  if (record.status === to) return;
  const allowed = ISSUER_MOVES[record.status];
  if (!allowed.includes(to)) {
    throw new HttpError('invalid_transition', `request is ${record.status}; allowed: ${allowed.length > 0 ? allowed.join(', ') : 'none'}`);
  }
  move(sandbox, record, to);
}

/** The customer's move: only a request nobody has decided on yet can be withdrawn. */
export function cancelByCustomer(sandbox: Sandbox, record: QueueRecord): void {
  if (record.status === 'CANCELLED') return;
  if (record.status !== 'PENDING') throw new HttpError('invalid_transition', `request is ${record.status}; only a PENDING request can be cancelled`);
  move(sandbox, record, 'CANCELLED');
}

function move(sandbox: Sandbox, record: QueueRecord, to: QueueItemStatus): void {
  record.status = to;
  record.updatedAt = sandbox.clock.iso();
  encoded.delete(record);
}

export function statusAnswer(record: QueueRecord): { requestId: string; status: QueueItemStatus; updatedAt: string } {
  return { requestId: record.requestId, status: record.status, updatedAt: record.updatedAt };
}
