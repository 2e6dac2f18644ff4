// Decryption for webhook processing. Unwrapping a content key costs about a millisecond of
// RSA per event; on the thread that answers deliveries that would hold up acknowledgements
// under a burst, so a listener unwraps on a thread of its own (src/crypto/unwrap-threads.ts,
// which this thread never shares; if the thread dies, unwraps go on here, one slice per
// event-loop turn) and only opens the AES-GCM ciphertext here. `replay` decrypts one event,
// in-process. An item encrypted for a key the ring lacks is decrypted once more if
// `reloadFor` brings a new ring (src/webhook/keyring.ts: a key rotated in another terminal).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { decryptOutcome, decryptOutcomeAsync, type DecryptOutcome } from '../crypto/decrypt-batch.js';
import type { EncryptedItem, KeyringEntry } from '../crypto/hybrid.js';
import { threadUnwrapper, type ThreadUnwrapper } from '../crypto/unwrap-threads.js';

export type { DecryptOutcome } from '../crypto/decrypt-batch.js';

export type KeyringSource = () => Promise<readonly KeyringEntry[]>;

export interface DecryptorOptions {
  /**
   * Asked when an item names a key the ring lacks; resolves once the source gives whatever
   * ring it could find (a new array when the keys changed). Never rejects.
   */
  reloadFor?: ((keyId: string) => Promise<void>) | undefined;
  /** Default: one thread of its own that this thread does not share. */
  unwrapper?: ThreadUnwrapper | undefined;
}

export interface Decryptor {
  /** Never rejects: a failure, the keyring's included, is an outcome. */
  decrypt(item: EncryptedItem): Promise<DecryptOutcome>;
  close(): Promise<void>;
}

/** In this thread, one item per event-loop turn, in the order asked. */
export function inProcessDecryptor(keyring: KeyringSource, opts: Pick<DecryptorOptions, 'reloadFor'> = {}): Decryptor {
  let last: Promise<unknown> = Promise.resolve();
  return {
    decrypt(item) {
      const outcome = last.then(async (): Promise<DecryptOutcome> => {
        await nextTurn();
        let keys: readonly KeyringEntry[];
        try {
          keys = await keyring();
        } catch (error) {
          return { ok: false, error: error instanceof Error ? error.message : String(error) };
        }
        const first = decryptOutcome(item, keys);
        const fresh = await reloadedRing(first, keys, keyring, opts.reloadFor);
        return fresh ? decryptOutcome(item, fresh) : first;
      });
      last = outcome;
      return outcome;
    },
    async close() {
      await last;
    },
  };
}

/**
 * The ring to decrypt `outcome`'s item with once more: when the item named a key that `keys`
 * lacks and a reload brought another ring. Undefined otherwise.
 */
async function reloadedRing(
  outcome: DecryptOutcome,
  keys: readonly KeyringEntry[],
  keyring: KeyringSource,
  reloadFor: DecryptorOptions['reloadFor'],
): Promise<readonly KeyringEntry[] | undefined> {
  if (outcome.ok || outcome.missingKeyId === undefined || !reloadFor) return undefined;
  await reloadFor(outcome.missingKeyId);
  const fresh = await keyring().catch(() => keys);
  return fresh === keys ? undefined : fresh;
}

/**
 * The listener's: RSA on a thread of its own, the rest here. A keyring that fails to load is
 * reported per event; after close, events still asked for are decrypted in-process.
 */
export async function createDecryptor(keyring: KeyringSource, opts: DecryptorOptions = {}): Promise<Decryptor> {
  // At the lowest priority: processing can wait, acknowledging cannot (the sender waits for it).
  const unwrapper = opts.unwrapper ?? threadUnwrapper({ threads: 1, shareThisThread: false, nice: 19 });
  const fallback = inProcessDecryptor(keyring, opts);
  let closed = false;
  return {
    async decrypt(item) {
      if (closed) return fallback.decrypt(item);
      let keys: readonly KeyringEntry[];
      try {
        keys = await keyring();
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
      const first = await decryptOutcomeAsync(item, keys, unwrapper);
      // Closed meanwhile, the thread's answer is lost: decrypted here instead, never reported failed.
      if (closed) return fallback.decrypt(item);
      const fresh = await reloadedRing(first, keys, keyring, opts.reloadFor);
      return fresh ? decryptOutcomeAsync(item, fresh, unwrapper) : first;
    },
    async close() {
      closed = true;
      await unwrapper.close();
      await fallback.close();
    },
  };
}
