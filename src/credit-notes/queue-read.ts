// One batch of the return request queue, read: the unit of work that poll spreads over
// worker threads (queue-worker.ts) or runs on its own thread, with the same outcome either
// way. A batch is either items already checked against the contract, or the JSON text of
// consecutive elements of the `GET /credit-note` answer, checked here, where the work is
// parallel. An item that cannot be decrypted is an outcome, never a failure of the batch;
// an answer that breaks the contract is (the whole answer is refused, as for any request).
import { QueueItem, ReturnRequest } from '../contract/returns.js';
import { validate, type Issue } from '../contract/validate.js';
import { decryptOutcome } from '../crypto/decrypt-batch.js';
import type { EncryptedItem, KeyringEntry } from '../crypto/hybrid.js';
import { jsonArrayElements } from '../io/output.js';
import { maskedRequest } from './display.js';
import { matchesFilter, type QueueFilter } from './filter.js';

export type ReadItem = QueueItem & ({ returnRequest: ReturnRequest; decryptError?: never } | { decryptError: string; returnRequest?: never });

export type ReadJob =
  | { items: QueueItem[] }
  | {
      /** Consecutive elements of the answer, comma-separated, without the brackets. */
      text: string;
      /** Index of the first of them in the answer, for the paths of contract failures. */
      first: number;
      /** Only the items it lets through are read (and returned). */
      filter?: QueueFilter | undefined;
      /** Return each item as its --json text (jsonArrayElement) instead of as data. */
      asJson?: boolean;
      /** Bank account details masked to their last 4 (credit-notes/display.ts maskedRequest). */
      masked?: boolean;
    };

export type ReadResult =
  | {
      ok: true;
      /** Elements in the batch, shown or not. */
      count: number;
      /** The shown items, or with asJson their --json texts joined by ",\n". */
      items: ReadItem[];
      json: string;
      shown: number;
      unreadable: number;
    }
  | { ok: false; notJson: true }
  | { ok: false; notJson?: never; issues: Issue[] };

/** Reads one batch; `keys` are the profile's private keys, current and historical. */
export function readBatch(job: ReadJob, keys: readonly KeyringEntry[]): ReadResult {
  let items: QueueItem[];
  let count: number;
  if ('items' in job) {
    items = job.items;
    count = items.length;
  } else {
    let values: unknown;
    try {
      values = JSON.parse(`[${job.text}]`);
    } catch {
      return { ok: false, notJson: true };
    }
    const checked = checkItems(values as unknown[], job.first);
    if (!Array.isArray(checked)) return { ok: false, issues: checked.issues };
    count = checked.length;
    items = checked.filter((i) => matchesFilter(i, job.filter));
  }
  const masked = 'text' in job && job.masked === true;
  const read = items.map((item) => (masked ? maskedItem(readItem(item, keys)) : readItem(item, keys)));
  const unreadable = read.filter((r) => r.decryptError !== undefined).length;
  if ('text' in job && job.asJson) {
    return { ok: true, count, items: [], json: jsonArrayElements(read), shown: read.length, unreadable };
  }
  return { ok: true, count, items: read, json: '', shown: read.length, unreadable };
}

function checkItems(values: readonly unknown[], first: number): QueueItem[] | { issues: Issue[] } {
  const items: QueueItem[] = [];
  for (const [index, value] of values.entries()) {
    const parsed = validate(QueueItem, value);
    if (!parsed.success) {
      return { issues: parsed.issues.map((i) => ({ path: i.path === '' ? String(first + index) : `${first + index}.${i.path}`, message: i.message })) };
    }
    items.push(parsed.data);
  }
  return items;
}

/** The item with its request's bank account details masked, as poll shows it. */
export function maskedItem(item: ReadItem): ReadItem {
  return item.returnRequest === undefined ? item : { ...item, returnRequest: maskedRequest(item.returnRequest) };
}

/** The parts of a queue item that `decryptWithKeyring` needs. */
export function encryptedPart(item: QueueItem): EncryptedItem {
  return {
    ciphertext: item.encryptedCreditNoteInitiationRequest,
    wrappedKey: item.encryptedSymmetricKey,
    publicKey: item.publicKey,
  };
}

/** One item decrypted and checked as a return request, or with the reason it cannot be read. */
function readItem(item: QueueItem, keys: readonly KeyringEntry[]): ReadItem {
  const outcome = decryptOutcome(encryptedPart(item), keys);
  if (!outcome.ok) return { ...item, decryptError: outcome.error };
  const parsed = validate(ReturnRequest, outcome.value);
  if (parsed.success) return { ...item, returnRequest: parsed.data };
  const first = parsed.issues
    .slice(0, 3)
    .map((i) => `${i.path || '(root)'} ${i.message}`)
    .join('; ');
  const more = parsed.issues.length > 3 ? ` (and ${parsed.issues.length - 3} more)` : '';
  return { ...item, decryptError: `decrypted, but not a valid return request: ${first}${more}` };
}
