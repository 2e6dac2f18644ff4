// The return request queue as the merchant sees it: each item with its decrypted return
// request, or the reason it could not be read. An item that fails never takes the others
// with it (docs/interface-decisions.md#json-output: `returnRequest` or `decryptError`, never both).
//
// RSA-OAEP unwrapping is most of the cost (about 0.3 ms an item), so a queue of thousands is
// unwrapped on threads that do nothing else (crypto/unwrap-threads.ts), while this thread
// reads the answer as it arrives, checks each batch against the contract, opens
// the AES-GCM ciphertexts and renders the --json text. Short lists are read here, where
// starting threads would cost more than it saves.
import { notJsonResponse, unexpectedResponse, type StreamedResponse } from '../api/client.js';
import type { QueueItem } from '../contract/returns.js';
import type { KeyringEntry } from '../crypto/hybrid.js';
import { threadUnwrapper, type AsyncUnwrapper } from '../crypto/unwrap-threads.js';
import { JsonArraySplitter, JsonArraySyntaxError } from '../io/json-array-splitter.js';
import { jsonArrayElements } from '../io/output.js';
import type { QueueFilter } from './filter.js';
import { checkBatch, maskedItem, readItem, readItemAsync, type ReadItem } from './queue-read.js';

export { encryptedPart, maskedItem, type ReadItem } from './queue-read.js';

/** Below this many items a fetched list is read on this thread. */
const IN_PROCESS_BELOW = 64;
/** Elements checked, unwrapped and rendered together. */
const BATCH = 64;
/** Batches being read before reading more of the answer waits: enough to keep every thread busy, few enough to die young. */
const AHEAD_BATCHES = 4;

export interface QueueReadOptions {
  /** Default: IN_PROCESS_BELOW (readQueue only; a streamed answer always uses the pool). */
  threshold?: number;
  /** Default: threads of their own, ended when the queue is read. */
  unwrapper?: AsyncUnwrapper;
}

/** Decrypts and checks items already fetched (--watch, `show`). */
export async function readQueue(items: readonly QueueItem[], keys: readonly KeyringEntry[], opts: QueueReadOptions = {}): Promise<ReadItem[]> {
  if (items.length < (opts.threshold ?? IN_PROCESS_BELOW)) return items.map((item) => readItem(item, keys));
  return withUnwrapper(opts.unwrapper, (unwrapper) => Promise.all(items.map((item) => readItemAsync(item, keys, unwrapper))));
}

/** Runs `read` with the given unwrapper, or with threads of its own that end with it. */
async function withUnwrapper<T>(given: AsyncUnwrapper | undefined, read: (unwrapper: AsyncUnwrapper) => Promise<T>): Promise<T> {
  if (given !== undefined) return read(given);
  const own = threadUnwrapper();
  try {
    return await read(own);
  } finally {
    await own.close();
  }
}

export interface StreamedQueueOptions {
  /** Only the items it lets through are read and returned. */
  filter?: QueueFilter | undefined;
  /** Return the items as --json texts (io/output.ts jsonArrayElement) rather than as data. */
  asJson?: boolean;
  /** Mask bank account details to their last 4, as every list of requests shows them. */
  masked?: boolean;
  /** Default: threads of their own, ended when the queue is read. */
  unwrapper?: AsyncUnwrapper;
}

export interface StreamedQueue {
  /** The shown items (none with asJson). */
  items: ReadItem[];
  /** With asJson: the shown items' --json texts as UTF-8, in order, several per buffer; for writeJsonArrayText. */
  json: Buffer[];
  /** The shown items' IDs. */
  requestIds: string[];
  shown: number;
  unreadable: number;
}

interface ReadBatch {
  /** The shown items, or none when they were rendered as `json`. */
  items: ReadItem[];
  json: Buffer | undefined;
  requestIds: string[];
  shown: number;
  unreadable: number;
}

/**
 * Reads the `GET /credit-note` answer as it arrives. The whole answer is checked before
 * anything is returned: one element that breaks the contract refuses it, as for any request.
 */
export function readQueueStream(response: StreamedResponse, keys: readonly KeyringEntry[], opts: StreamedQueueOptions = {}): Promise<StreamedQueue> {
  return withUnwrapper(opts.unwrapper, (unwrapper) => readStream(response, keys, unwrapper, opts));
}

async function readStream(response: StreamedResponse, keys: readonly KeyringEntry[], unwrapper: AsyncUnwrapper, opts: StreamedQueueOptions): Promise<StreamedQueue> {
  const what = { method: 'GET', path: '/credit-note' } as const;
  const splitter = new JsonArraySplitter();
  const batches: Promise<ReadBatch>[] = [];
  let pending: string[] = [];
  let first = 0;
  // What is not yet checked stays in the socket, so memory holds a few batches, not the answer.
  let unanswered = 0;
  let answered: (() => void) | undefined;
  const onAnswer = () => {
    unanswered -= 1;
    answered?.();
  };
  const send = (elements: string[]) => {
    const checked = checkBatch(elements.join(','), first, opts.filter);
    if (!checked.ok) {
      throw checked.notJson ? notJsonResponse(what.method, what.path, response.headers['content-type']) : unexpectedResponse(what.method, what.path, checked.issues);
    }
    first += elements.length;
    const batch = Promise.all(checked.items.map((item) => readItemAsync(item, keys, unwrapper))).then((read) => finished(read, opts));
    unanswered += 1;
    batch.then(onAnswer, onAnswer);
    batches.push(batch);
  };
  try {
    for await (const piece of response.text) {
      for (const element of splitter.push(piece)) pending.push(element);
      while (pending.length >= BATCH) send(pending.splice(0, BATCH));
      // Every batch settles: an unwrap that cannot be done is an outcome, and a closed or dead thread fails its unwraps.
      while (unanswered >= AHEAD_BATCHES) await new Promise<void>((resolve) => (answered = resolve));
    }
    splitter.end();
  } catch (error) {
    if (error instanceof JsonArraySyntaxError) throw notJsonResponse(what.method, what.path, response.headers['content-type']);
    throw error;
  }
  if (pending.length > 0) send(pending);
  pending = [];
  const queue: StreamedQueue = { items: [], json: [], requestIds: [], shown: 0, unreadable: 0 };
  for (const batch of await Promise.all(batches)) {
    for (const item of batch.items) queue.items.push(item);
    if (batch.json !== undefined) queue.json.push(batch.json);
    for (const id of batch.requestIds) queue.requestIds.push(id);
    queue.shown += batch.shown;
    queue.unreadable += batch.unreadable;
  }
  return queue;
}

/** A batch as the caller wants it: masked or not, as --json text or as data. */
function finished(read: ReadItem[], opts: StreamedQueueOptions): ReadBatch {
  const items = opts.masked ? read.map(maskedItem) : read;
  const unreadable = items.filter((i) => i.decryptError !== undefined).length;
  // Rendered at once, the items die young: a queue of thousands never reaches the old generation.
  const requestIds = items.map((i) => i.requestId);
  if (!opts.asJson) return { items, json: undefined, requestIds, shown: items.length, unreadable };
  return { items: [], json: items.length === 0 ? undefined : Buffer.from(jsonArrayElements(items)), requestIds, shown: items.length, unreadable };
}
