// The return request queue as the merchant sees it: each item with its decrypted return
// request, or the reason it could not be read. An item that fails never takes the others
// with it (CLI.md: `returnRequest` or `decryptError`, never both).
import { ReturnRequest, type QueueItem } from '../contract/returns.js';
import { validate } from '../contract/validate.js';
import { decryptAll, type DecryptOutcome, type PoolOptions } from '../crypto/decrypt-pool.js';
import type { EncryptedItem, KeyringEntry } from '../crypto/hybrid.js';

export type ReadItem = QueueItem & ({ returnRequest: ReturnRequest; decryptError?: never } | { decryptError: string; returnRequest?: never });

/** Decrypts and parses every item; see decrypt-pool.ts for when worker threads are used. */
export async function readQueue(items: readonly QueueItem[], keys: readonly KeyringEntry[], pool: PoolOptions = {}): Promise<ReadItem[]> {
  const outcomes = await decryptAll(items.map(encryptedPart), keys, pool);
  return items.map((item, i) => readItem(item, outcomes[i]));
}

/** The parts of a queue item that `decryptWithKeyring` needs. */
export function encryptedPart(item: QueueItem): EncryptedItem {
  return {
    ciphertext: item.encryptedCreditNoteInitiationRequest,
    wrappedKey: item.encryptedSymmetricKey,
    publicKey: item.publicKey,
  };
}

function readItem(item: QueueItem, outcome: DecryptOutcome | undefined): ReadItem {
  if (outcome === undefined) return { ...item, decryptError: 'cannot decrypt: no result' };
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
