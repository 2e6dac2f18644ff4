// One item's decryption as an outcome: plain data, and a failure is a message, never an
// exception, so one bad item cannot stop a queue or a listener.
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
