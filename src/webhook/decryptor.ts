// Decryption for webhook processing. Unwrapping a content key costs about a millisecond of
// RSA per event; on the thread that answers deliveries that would hold up acknowledgements
// under a burst, so a listener keeps one worker thread (the decryption pool's entry,
// src/crypto/decrypt-worker.ts) and feeds it batches of whatever is waiting. Where there is
// no built worker (sources under tsx or vitest), or it dies, events are decrypted in-process,
// one per event-loop turn so that requests are still answered in between. An item encrypted
// for a key the ring lacks is decrypted once more if `reloadFor` brings a new ring
// (src/webhook/keyring.ts: a key rotated in another terminal).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { decryptOutcome, type BatchRequest, type BatchResult, type DecryptOutcome, type WorkerSetup } from '../crypto/decrypt-batch.js';
import type { EncryptedItem, KeyringEntry } from '../crypto/hybrid.js';
import { bundledWorker } from '../workers/bundled.js';

export type { DecryptOutcome } from '../crypto/decrypt-batch.js';

export type KeyringSource = () => Promise<readonly KeyringEntry[]>;

export interface DecryptorOptions {
  /**
   * Asked when an item names a key the ring lacks; resolves once the source gives whatever
   * ring it could find (a new array when the keys changed). Never rejects.
   */
  reloadFor?: ((keyId: string) => Promise<void>) | undefined;
  /** The worker entry; default: the built one beside the bundle, when there is one. */
  workerFile?: string | undefined;
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
 * A worker thread when the built one is there and the keyring loads; otherwise in-process
 * (where a keyring that fails to load is reported per event).
 */
export async function createDecryptor(keyring: KeyringSource, opts: DecryptorOptions = {}): Promise<Decryptor> {
  const fallback = inProcessDecryptor(keyring, opts);
  const workerFile = opts.workerFile ?? bundledWorker('crypto/decrypt-worker.cjs', import.meta.url);
  if (workerFile === undefined) return fallback;
  let keys: readonly KeyringEntry[];
  try {
    keys = await keyring();
  } catch {
    return fallback;
  }
  return threadDecryptor(keyring, keys, workerFile, fallback, opts.reloadFor);
}

interface Waiting {
  item: EncryptedItem;
  resolve(outcome: DecryptOutcome): void;
}

function threadDecryptor(
  keyring: KeyringSource,
  keys: readonly KeyringEntry[],
  workerFile: string,
  fallback: Decryptor,
  reloadFor: DecryptorOptions['reloadFor'],
): Decryptor {
  const setup: WorkerSetup = { keys: [...keys] };
  let worker: Worker | undefined = new Worker(workerFile, { workerData: setup });
  // The listener must be able to end while the thread waits for work.
  worker.unref();
  /** The ring the thread decrypts with. */
  let workerKeys = keys;
  let waiting: Waiting[] = [];
  let inFlight: Waiting[] | undefined;
  let batch = 0;

  const send = () => {
    if (inFlight || waiting.length === 0 || !worker) return;
    inFlight = waiting;
    waiting = [];
    const request: BatchRequest = { batch: ++batch, items: inFlight.map((w) => w.item) };
    worker.postMessage(request);
  };
  const abandon = () => {
    // Whatever the thread held or would have got is decrypted here instead.
    worker = undefined;
    for (const w of [...(inFlight ?? []), ...waiting]) void fallback.decrypt(w.item).then(w.resolve);
    inFlight = undefined;
    waiting = [];
  };
  // Items whose key the thread lacked stay in flight, so that nothing is sent meanwhile; once
  // the keyring was read again they go to the thread again with the new ring, or are answered.
  const retry = async (missing: { waiting: Waiting; outcome: DecryptOutcome }[]) => {
    const used = workerKeys;
    const rings = await Promise.all(missing.map((m) => reloadedRing(m.outcome, used, keyring, reloadFor)));
    const fresh = rings.find((ring) => ring !== undefined);
    // Abandoned meanwhile: the in-process fallback has these items now.
    if (!worker) return;
    inFlight = undefined;
    if (fresh) {
      const update: WorkerSetup = { keys: [...fresh] };
      worker.postMessage(update);
      workerKeys = fresh;
      waiting = [...missing.map((m) => m.waiting), ...waiting];
    } else {
      for (const m of missing) m.waiting.resolve(m.outcome);
    }
    send();
  };
  worker.on('message', (result: BatchResult) => {
    const done = inFlight ?? [];
    const missing: { waiting: Waiting; outcome: DecryptOutcome }[] = [];
    done.forEach((w, i) => {
      const outcome = result.outcomes[i] ?? { ok: false, error: 'cannot decrypt: the worker gave no answer' };
      if (reloadFor && !outcome.ok && outcome.missingKeyId !== undefined) missing.push({ waiting: w, outcome });
      else w.resolve(outcome);
    });
    if (missing.length > 0) {
      inFlight = missing.map((m) => m.waiting);
      void retry(missing);
      return;
    }
    inFlight = undefined;
    send();
  });
  worker.on('error', abandon);
  worker.on('exit', abandon);

  return {
    decrypt(item) {
      if (!worker) return fallback.decrypt(item);
      return new Promise((resolve) => {
        waiting.push({ item, resolve });
        send();
      });
    },
    async close() {
      const closing = worker;
      worker = undefined;
      // Decryptions still asked for belong to events left for the next start.
      closing?.removeAllListeners();
      await closing?.terminate();
      await fallback.close();
    },
  };
}
