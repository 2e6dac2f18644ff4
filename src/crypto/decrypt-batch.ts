// One unit of work of a decryption batch, shared by the in-process path and the worker
// threads: the outcome is plain data (structured-cloneable), and a failure is a message,
// never an exception, so one bad item cannot stop a batch.
import { MissingKeyError, SvcError } from '../errors.js';
import { decryptWithKeyring, decryptWithKeyringAsync, type EncryptedItem, type KeyringEntry } from './hybrid.js';
import type { AsyncUnwrapper } from './unwrap-threads.js';

export type DecryptOutcome =
  | { ok: true; value: unknown; keyId: string }
  /** `missingKeyId`: the item names a public key (this fingerprint) that no key held belongs to. */
  | { ok: false; error: string; missingKeyId?: string };

export function decryptOutcome(item: EncryptedItem, keys: readonly KeyringEntry[]): DecryptOutcome {
  try {
    const { value, keyId } = decryptWithKeyring(item, keys);
    return { ok: true, value, keyId };
  } catch (error) {
    return failedOutcome(error);
  }
}

/** decryptOutcome with the RSA unwrap on the thread pool (unwrap-async.ts). */
export async function decryptOutcomeAsync(item: EncryptedItem, keys: readonly KeyringEntry[], unwrapper: AsyncUnwrapper): Promise<DecryptOutcome> {
  try {
    const { value, keyId } = await decryptWithKeyringAsync(item, keys, unwrapper);
    return { ok: true, value, keyId };
  } catch (error) {
    return failedOutcome(error);
  }
}

function failedOutcome(error: unknown): DecryptOutcome & { ok: false } {
  if (error instanceof MissingKeyError) return { ok: false, error: error.message, missingKeyId: error.keyId };
  // DecryptError messages name no key material; anything else is a bug, reported without its text.
  return { ok: false, error: error instanceof SvcError ? error.message : 'cannot decrypt: unexpected failure' };
}

/** What the decryptor sends its worker: a batch of items, answered with outcomes in the same order. */
export interface BatchRequest {
  batch: number;
  items: EncryptedItem[];
}

export interface BatchResult {
  batch: number;
  outcomes: DecryptOutcome[];
}

/**
 * The worker's `workerData`: the keyring, given once per worker. A listener whose keyring
 * was reloaded posts it again as a message, which replaces it and is not answered.
 */
export interface WorkerSetup {
  keys: KeyringEntry[];
}

export type WorkerMessage = BatchRequest | WorkerSetup;
