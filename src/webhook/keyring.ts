// The private keys of a long-running receiver. `svc webhook listen` loads them once, but a
// `svc keys rotate` (or `keys generate --upload`) in another terminal stores a new key and
// the service encrypts for it from then on. Such a key is in the store before the service
// knows it (src/commands/keys/register.ts stores, then uploads), so an event naming a key
// the ring lacks is worth one more read of the store. Reads are rationed: every keychain
// read may be a round trip or a permission prompt, so a key that one read did not find is
// not looked for again, and reads are at least RELOAD_INTERVAL_MS apart (a read asked for
// sooner waits, rather than leaving an event undecrypted).
import { setTimeout as sleep } from 'node:timers/promises';
import type { KeyringEntry } from '../crypto/hybrid.js';
import { loadKeyring, reloadKeyring } from '../keys/keystore.js';
import type { Factory } from '../factory.js';
import { note } from '../io/streams.js';

export const RELOAD_INTERVAL_MS = 3_000;

export interface WatchedKeyring {
  /** The keys held: loaded on first use, replaced only when a read finds other keys. */
  current(): Promise<readonly KeyringEntry[]>;
  /**
   * Reads the store again for the key `keyId` the ring lacks, unless an earlier read did not
   * find it either; resolves once `current()` has whatever that read found. Never rejects.
   */
  reloadFor(keyId: string): Promise<void>;
}

export function watchKeyring(f: Factory, intervalMs = RELOAD_INTERVAL_MS): WatchedKeyring {
  let held: readonly KeyringEntry[] | undefined;
  let lastRead: number | undefined;
  let reading: Promise<void> | undefined;
  const notFound = new Set<string>();

  const current = async () => (held ??= await loadKeyring(f));
  const holds = (keyId: string) => held?.some((k) => k.keyId === keyId) ?? false;

  async function read(): Promise<void> {
    const wait = lastRead === undefined ? 0 : lastRead + intervalMs - f.clock.now();
    if (wait > 0) await sleep(wait);
    lastRead = f.clock.now();
    try {
      const fresh = await reloadKeyring(f);
      // The same array while nothing changed, so that a decryptor can tell a new ring by identity.
      if (!sameKeys(fresh, held)) held = fresh;
    } catch (error) {
      note(f.io, `warning: could not read the private keys again (${error instanceof Error ? error.message : String(error)}); the keys loaded before stay in use`);
    }
  }

  return {
    current,
    async reloadFor(keyId) {
      if (notFound.has(keyId) || holds(keyId)) return;
      // Items that lack keys at the same time share one read.
      reading ??= read().finally(() => {
        reading = undefined;
      });
      await reading;
      if (!holds(keyId)) notFound.add(keyId);
    },
  };
}

function sameKeys(a: readonly KeyringEntry[], b: readonly KeyringEntry[] | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((k, i) => k.keyId === b[i]?.keyId);
}
