// Decryption for webhook processing. Unwrapping a content key costs about a millisecond of
// RSA per event; on the thread that answers deliveries that would hold up acknowledgements
// under a burst, so a listener keeps one worker thread (the decryption pool's entry,
// src/crypto/decrypt-worker.ts) and feeds it batches of whatever is waiting. Where there is
// no built worker (sources under tsx or vitest), or it dies, events are decrypted in-process,
// one per event-loop turn so that requests are still answered in between.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { decryptOutcome, type BatchRequest, type BatchResult, type DecryptOutcome, type WorkerSetup } from '../crypto/decrypt-batch.js';
import { bundledWorkerFile } from '../crypto/decrypt-pool.js';
import type { EncryptedItem, KeyringEntry } from '../crypto/hybrid.js';

export type { DecryptOutcome } from '../crypto/decrypt-batch.js';

export type KeyringSource = () => Promise<readonly KeyringEntry[]>;

export interface Decryptor {
  /** Never rejects: a failure, the keyring's included, is an outcome. */
  decrypt(item: EncryptedItem): Promise<DecryptOutcome>;
  close(): Promise<void>;
}

/** In this thread, one item per event-loop turn, in the order asked. */
export function inProcessDecryptor(keyring: KeyringSource): Decryptor {
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
        return decryptOutcome(item, keys);
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
 * A worker thread when the built one is there and the keyring loads; otherwise in-process
 * (where a keyring that fails to load is reported per event).
 */
export async function createDecryptor(keyring: KeyringSource, workerFile: string | undefined = bundledWorkerFile()): Promise<Decryptor> {
  const fallback = inProcessDecryptor(keyring);
  if (workerFile === undefined) return fallback;
  let keys: readonly KeyringEntry[];
  try {
    keys = await keyring();
  } catch {
    return fallback;
  }
  return threadDecryptor(keys, workerFile, fallback);
}

interface Waiting {
  item: EncryptedItem;
  resolve(outcome: DecryptOutcome): void;
}

function threadDecryptor(keys: readonly KeyringEntry[], workerFile: string, fallback: Decryptor): Decryptor {
  const setup: WorkerSetup = { keys: [...keys] };
  let worker: Worker | undefined = new Worker(workerFile, { workerData: setup });
  // The listener must be able to end while the thread waits for work.
  worker.unref();
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
  worker.on('message', (result: BatchResult) => {
    const done = inFlight ?? [];
    inFlight = undefined;
    done.forEach((w, i) => w.resolve(result.outcomes[i] ?? { ok: false, error: 'cannot decrypt: the worker gave no answer' }));
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
