// Decrypts many items at once. RSA-OAEP unwrapping is most of the cost (about 0.3 ms per
// item), so a queue of thousands is spread over the cores: this thread and worker threads,
// each worker given the keyring once and then batches of items. Small lists stay in-process,
// where starting threads would cost more than it saves. Results always come back in the
// order of the items.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { packageFile } from '../package-root.js';
import { decryptOutcome, type BatchRequest, type BatchResult, type DecryptOutcome, type WorkerSetup } from './decrypt-batch.js';
import type { EncryptedItem, KeyringEntry } from './hybrid.js';

export type { DecryptOutcome } from './decrypt-batch.js';

/** Below this many items decryption stays in-process. */
export const IN_PROCESS_BELOW = 64;
/** More threads than this mostly add start-up time and memory for a CLI run. */
const MAX_THREADS = 4;

export interface PoolOptions {
  /** The worker entry (built JS); default: the one beside the bundle, if svc runs from dist/. */
  workerFile?: string | URL;
  /** Computing threads, this one included: default the available cores, at most 4; fewer than 2 means in-process. */
  threads?: number;
  /** Default: IN_PROCESS_BELOW. */
  threshold?: number;
}

/** One outcome per item, in order; a failed item is an outcome too, never a rejection. */
export async function decryptAll(
  items: readonly EncryptedItem[],
  keys: readonly KeyringEntry[],
  opts: PoolOptions = {},
): Promise<DecryptOutcome[]> {
  const workerFile = opts.workerFile ?? bundledWorkerFile();
  const threads = Math.min(opts.threads ?? Math.min(MAX_THREADS, availableParallelism()), items.length);
  if (items.length < (opts.threshold ?? IN_PROCESS_BELOW) || threads < 2 || workerFile === undefined || !existsSync(workerFile)) {
    return inProcess(items, keys);
  }
  return inWorkers(items, keys, workerFile, threads);
}

function inProcess(items: readonly EncryptedItem[], keys: readonly KeyringEntry[]): DecryptOutcome[] {
  return items.map((item) => decryptOutcome(item, keys));
}

/**
 * The built worker, only when this module is itself part of the bundle in dist/ (the chunk
 * sits in dist/chunks/, the worker in dist/crypto/). From sources (tsx, vitest) dist/ may be
 * absent or older than the code, so decryption stays in-process there.
 */
export function bundledWorkerFile(from: string | URL = import.meta.url): string | undefined {
  try {
    const dist = packageFile('dist', from);
    const worker = packageFile('dist/crypto/decrypt-worker.js', from);
    return fileURLToPath(from).startsWith(dist + sep) && existsSync(worker) ? worker : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `threads` computing threads: this one and `threads - 1` workers. This thread would only wait
 * otherwise, and one isolate fewer is memory saved; it takes one batch per turn of the event
 * loop, while each worker holds two batches, so that no worker waits for its next one.
 */
function inWorkers(
  items: readonly EncryptedItem[],
  keys: readonly KeyringEntry[],
  workerFile: string | URL,
  threads: number,
): Promise<DecryptOutcome[]> {
  // Several batches per thread, so that a thread that got slow items does not hold up the end.
  const size = Math.max(16, Math.min(256, Math.ceil(items.length / (threads * 8))));
  const batches: EncryptedItem[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  const results: (DecryptOutcome[] | undefined)[] = batches.map(() => undefined);
  const setup: WorkerSetup = { keys: [...keys] };

  return new Promise((resolve) => {
    const workers: Worker[] = [];
    let next = 0;
    let received = 0;
    let settled = false;
    // A worker that cannot start or dies leaves its batches to this thread: the list is still
    // complete, only slower.
    const finish = () => {
      if (settled) return;
      settled = true;
      void Promise.allSettled(workers.map((w) => w.terminate())).then(() =>
        resolve(batches.flatMap((batch, i) => results[i] ?? inProcess(batch, keys))),
      );
    };
    const done = (batch: number, outcomes: DecryptOutcome[]) => {
      results[batch] = outcomes;
      received += 1;
      if (received === batches.length) finish();
    };
    const feed = (worker: Worker) => {
      if (next >= batches.length) return;
      const batch = next++;
      const request: BatchRequest = { batch, items: batches[batch] ?? [] };
      worker.postMessage(request);
    };
    const ownTurn = () => {
      if (settled || next >= batches.length) return;
      const batch = next++;
      done(batch, inProcess(batches[batch] ?? [], keys));
      setImmediate(ownTurn);
    };
    for (let t = 1; t < threads; t++) {
      const worker = new Worker(workerFile, { workerData: setup });
      workers.push(worker);
      worker.on('message', (result: BatchResult) => {
        if (settled) return;
        done(result.batch, result.outcomes);
        feed(worker);
      });
      worker.on('error', finish);
      worker.on('exit', finish);
      feed(worker);
      feed(worker);
    }
    setImmediate(ownTurn);
  });
}
