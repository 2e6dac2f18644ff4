// The return request queue as the merchant sees it: each item with its decrypted return
// request, or the reason it could not be read. An item that fails never takes the others
// with it (CLI.md: `returnRequest` or `decryptError`, never both).
//
// RSA-OAEP unwrapping is most of the cost (about 0.3 ms an item), so a queue of thousands is
// read on every core: batches go out as the answer arrives, each checked against the
// contract, decrypted and (for --json) rendered on a worker thread, or on this one, which
// splits the text and takes a batch whenever the workers have theirs. Short lists stay on
// this thread, where starting threads would cost more than it saves.
import { availableParallelism } from 'node:os';
import { notJsonResponse, unexpectedResponse, type StreamedResponse } from '../api/client.js';
import type { QueueItem } from '../contract/returns.js';
import type { KeyringEntry } from '../crypto/hybrid.js';
import { JsonArraySplitter, JsonArraySyntaxError } from '../io/json-array-splitter.js';
import type { QueueFilter } from './filter.js';
import { bundledWorker } from '../workers/bundled.js';
import { createWorkerPool, type WorkerPool } from '../workers/pool.js';
import { readBatch, type ReadItem, type ReadJob, type ReadResult } from './queue-read.js';

export { encryptedPart, maskedItem, type ReadItem } from './queue-read.js';

/** Below this many items the queue is read on this thread. */
const IN_PROCESS_BELOW = 64;
/** Items per job: big enough that messages are few, small enough that all threads stay busy. */
const BATCH = 64;
/** More threads than this mostly add start-up time and memory for a CLI run. */
const MAX_THREADS = 4;
/** Jobs sent but not answered, per thread, before reading more of the answer waits. */
const AHEAD_PER_THREAD = 4;

export interface PoolOptions {
  /** The worker entry (built JS); default: the one beside the bundle, if svc runs from dist/. */
  workerFile?: string | URL | undefined;
  /** Threads reading, this one included; default one per core, at most 4. Fewer than 2: this thread alone. */
  threads?: number;
  /** Default: IN_PROCESS_BELOW. */
  threshold?: number;
}

/** Decrypts and checks items already fetched (--watch, `show`). */
export async function readQueue(items: readonly QueueItem[], keys: readonly KeyringEntry[], opts: PoolOptions = {}): Promise<ReadItem[]> {
  const pool = items.length < (opts.threshold ?? IN_PROCESS_BELOW) ? undefined : startPool(keys, opts);
  if (pool === undefined) return expectRead(readBatch({ items: [...items] }, keys)).items;
  try {
    const jobs: Promise<ReadResult>[] = [];
    for (let i = 0; i < items.length; i += BATCH) jobs.push(pool.run({ items: items.slice(i, i + BATCH) }));
    return (await Promise.all(jobs)).flatMap((r) => expectRead(r).items);
  } finally {
    await pool.close();
  }
}

export interface StreamedQueueOptions extends PoolOptions {
  /** Only the items it lets through are read and returned. */
  filter?: QueueFilter | undefined;
  /** Return the items as --json texts (io/output.ts jsonArrayElement) rather than as data. */
  asJson?: boolean;
  /** Mask bank account details to their last 4, as every list of requests shows them. */
  masked?: boolean;
}

export interface StreamedQueue {
  /** The shown items (none with asJson). */
  items: ReadItem[];
  /** With asJson: the shown items' texts, in order, several per string; for writeJsonArrayText. */
  json: string[];
  shown: number;
  unreadable: number;
}

/**
 * Reads the `GET /credit-note` answer as it arrives. The whole answer is checked before
 * anything is returned: one element that breaks the contract refuses it, as for any request.
 */
export async function readQueueStream(
  response: StreamedResponse,
  keys: readonly KeyringEntry[],
  opts: StreamedQueueOptions = {},
): Promise<StreamedQueue> {
  const what = { method: 'GET', path: '/credit-note' } as const;
  const splitter = new JsonArraySplitter();
  const threshold = opts.threshold ?? IN_PROCESS_BELOW;
  const jobs: Promise<ReadResult>[] = [];
  let pool: WorkerPool<ReadJob, ReadResult> | undefined;
  let poolTried = false;
  let pending: string[] = [];
  let first = 0;
  // What is not yet sent stays in the socket, so memory holds a few batches, not the answer.
  let unanswered = 0;
  let answered: (() => void) | undefined;
  const onAnswer = () => {
    unanswered -= 1;
    answered?.();
  };
  const send = (elements: string[]) => {
    const job: ReadJob = { text: elements.join(','), first, filter: opts.filter, asJson: opts.asJson ?? false, masked: opts.masked ?? false };
    first += elements.length;
    const result = pool ? pool.run(job) : Promise.resolve().then(() => readBatch(job, keys));
    unanswered += 1;
    result.then(onAnswer, onAnswer);
    jobs.push(result);
  };
  try {
    try {
      for await (const piece of response.text) {
        for (const element of splitter.push(piece)) pending.push(element);
        if (!poolTried && splitter.count >= threshold) {
          poolTried = true;
          pool = startPool(keys, opts);
        }
        if (pool === undefined) continue;
        while (pending.length >= BATCH) send(pending.splice(0, BATCH));
        while (unanswered >= (pool.size + 1) * AHEAD_PER_THREAD) await new Promise<void>((resolve) => (answered = resolve));
      }
      splitter.end();
    } catch (error) {
      if (error instanceof JsonArraySyntaxError) throw notJsonResponse(what.method, what.path, response.headers['content-type']);
      throw error;
    }
    if (pending.length > 0) send(pending);
    pending = [];
    const results = await Promise.all(jobs);
    const queue: StreamedQueue = { items: [], json: [], shown: 0, unreadable: 0 };
    for (const result of results) {
      if (!result.ok) {
        throw result.notJson
          ? notJsonResponse(what.method, what.path, response.headers['content-type'])
          : unexpectedResponse(what.method, what.path, result.issues);
      }
      for (const item of result.items) queue.items.push(item);
      if (result.json !== '') queue.json.push(result.json);
      queue.shown += result.shown;
      queue.unreadable += result.unreadable;
    }
    return queue;
  } finally {
    await pool?.close();
  }
}

function startPool(keys: readonly KeyringEntry[], opts: PoolOptions): WorkerPool<ReadJob, ReadResult> | undefined {
  const threads = opts.threads ?? Math.min(MAX_THREADS, availableParallelism());
  const workerFile = opts.workerFile ?? bundledWorker('credit-notes/queue-worker.cjs', import.meta.url);
  if (threads < 2 || workerFile === undefined) return undefined;
  // This thread only splits the text and collects answers, which leaves it idle most of the
  // time: it reads batches too, and a core's worth of isolate is memory saved.
  return createWorkerPool<ReadJob, ReadResult>({
    workerFile,
    workerData: { keys: [...keys] },
    size: threads - 1,
    local: (job) => readBatch(job, keys),
    shareThisThread: true,
  });
}

/** Batches of checked items cannot fail the contract; the narrowing says so. */
function expectRead(result: ReadResult): Extract<ReadResult, { ok: true }> {
  if (!result.ok) throw new Error('a batch of checked items was refused');
  return result;
}
