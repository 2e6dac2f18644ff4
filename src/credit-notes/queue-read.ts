// The return request queue, read: each item checked against the contract, decrypted and
// checked as a return request, or with the reason it cannot be read. An item that cannot be
// decrypted is an outcome, never a failure; an answer that breaks the contract is (the whole
// answer is refused, as for any request). The RSA unwraps run on the thread pool when a list
// is long (queue.ts); everything else runs here.
import { QueueItem, ReturnRequest } from '../contract/returns.js';
import { DecryptError } from '../errors.js';
import { validate, type Issue } from '../contract/validate.js';
import { decryptOutcome, decryptOutcomeAsync, type DecryptOutcome } from '../crypto/decrypt-batch.js';
import type { EncryptedItem, KeyringEntry } from '../crypto/hybrid.js';
import type { AsyncUnwrapper } from '../crypto/unwrap-threads.js';
import { maskedRequest } from './display.js';
import { matchesFilter, type QueueFilter } from './filter.js';

export type ReadItem = QueueItem & ({ returnRequest: ReturnRequest; decryptError?: never } | { decryptError: string; returnRequest?: never });

/** One request asked for by ID that cannot be read (exit 4): the keys held are where to look. */
export function unreadableRequest(requestId: string, reason: string): DecryptError {
  return new DecryptError(`cannot read return request ${requestId}: ${reason}`, {
    hint: '`svc keys list` shows the keys this profile holds; a request encrypted for a key kept elsewhere opens with SVC_PRIVATE_KEY_FILE=key.pem (that key, PKCS#8 PEM)',
  });
}

export type CheckedBatch =
  | {
      ok: true;
      /** Elements in the batch, shown or not. */
      count: number;
      /** Those the filter lets through, checked against the contract. */
      items: QueueItem[];
    }
  | { ok: false; notJson: true }
  | { ok: false; notJson?: never; issues: Issue[] };

/**
 * Parses and checks consecutive elements of the `GET /credit-note` answer (their text,
 * comma-separated, without the brackets); `first` is the first one's index in the answer,
 * for the paths of contract failures.
 */
export function checkBatch(text: string, first: number, filter?: QueueFilter): CheckedBatch {
  let values: unknown;
  try {
    values = JSON.parse(`[${text}]`);
  } catch {
    return { ok: false, notJson: true };
  }
  const items: QueueItem[] = [];
  for (const [index, value] of (values as unknown[]).entries()) {
    const parsed = validate(QueueItem, value);
    if (!parsed.success) {
      return { ok: false, issues: parsed.issues.map((i) => ({ path: i.path === '' ? String(first + index) : `${first + index}.${i.path}`, message: i.message })) };
    }
    if (matchesFilter(parsed.data, filter)) items.push(parsed.data);
  }
  return { ok: true, count: (values as unknown[]).length, items };
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

/** One item decrypted here and checked as a return request, or with the reason it cannot be read. */
export function readItem(item: QueueItem, keys: readonly KeyringEntry[]): ReadItem {
  return readOutcome(item, decryptOutcome(encryptedPart(item), keys));
}

/** readItem with the RSA unwrap on the thread pool. */
export async function readItemAsync(item: QueueItem, keys: readonly KeyringEntry[], unwrapper: AsyncUnwrapper): Promise<ReadItem> {
  return readOutcome(item, await decryptOutcomeAsync(encryptedPart(item), keys, unwrapper));
}

function readOutcome(item: QueueItem, outcome: DecryptOutcome): ReadItem {
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
