// RSA-OAEP unwraps on worker threads that do nothing else, and on this thread between its own
// work: a queue of thousands is unwrapped on every core while this thread reads the answer,
// checks it, opens the AES-GCM ciphertexts and writes the output. Each thread is a few lines
// evaluated in place (no bundle to load, a bare isolate), holds its own parsed copy of each
// key (one parsed key serializes its operations in OpenSSL) and unwraps in a tight loop with
// the same call as unwrapKey's, as a process that does nothing else would
// (bench/credit-note-poll.mjs's bare ceiling). Unwraps asked for in one turn of this thread's
// event loop go out together in slices; a thread holds at most two, and this thread takes
// one whenever they all have theirs (one thread fewer than cores: measured, less CPU and
// memory than a thread per core beside a busy main thread). A thread that dies, or holds a
// slice unanswered for STALL_MS, hands its slices back; with none left this thread does them all.
import { constants, privateDecrypt, type KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { DecryptError } from '../errors.js';
import { decodeBase64Strict } from './base64.js';
import { privateKeyFromPem } from './keys.js';

const KEY_BYTES = 32;
/** Unwraps per message: few messages, and every thread kept busy. */
const SLICE = 16;
/** A thread that answers nothing for this long is taken for hung (a slice takes milliseconds). */
const STALL_MS = 30_000;

// Answers each message { id, key, pem?, wrapped: Uint8Array[] } with { id, keys: (Uint8Array | string)[] }:
// a content key, or why it failed (never key material). A key's PEM comes with the first
// message that needs it on that thread, then only its number. Runs as CommonJS in the worker.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { constants, createPrivateKey, privateDecrypt } = require('node:crypto');
// On Linux the nice value is a thread's own: this one's, never the process's.
if (workerData && workerData.nice) { try { require('node:os').setPriority(workerData.nice); } catch {} }
const parsed = new Map();
const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' };
parentPort.on('message', ({ id, key: number, pem, wrapped }) => {
  if (pem !== undefined) {
    let parsedKey;
    try { parsedKey = createPrivateKey({ key: pem, format: 'pem' }); } catch { parsedKey = null; }
    parsed.set(number, parsedKey);
  }
  const key = parsed.get(number) ?? null;
  const keys = wrapped.map((w) => {
    if (key === null) return 'key';
    try { return privateDecrypt({ key, ...OAEP }, w); } catch { return 'open'; }
  });
  parentPort.postMessage({ id, keys }, keys.filter((k) => typeof k !== 'string').map((k) => k.buffer).filter((b, i, all) => all.indexOf(b) === i));
});
`;

export interface AsyncUnwrapper {
  /** The 32-byte content key inside a Base64 RSA-OAEP-SHA-256 wrapped key; the caller wipes it. */
  unwrap(wrappedKeyB64: string, privateKeyPem: string): Promise<Buffer>;
}

interface Asked {
  wrapped: Buffer;
  resolve: (key: Buffer) => void;
  reject: (error: unknown) => void;
}

interface Slice {
  pem: string;
  asked: Asked[];
}

interface Thread {
  worker: Worker;
  /** Slices sent and not yet answered, by message ID. */
  holding: Map<number, Slice>;
  /** The numbers of the keys whose PEM this thread has been sent. */
  knows: Set<number>;
  alive: boolean;
  /** Armed while the thread holds a slice: it fires when no answer came for stallMs. */
  stall: NodeJS.Timeout | undefined;
  /** Marks it dead and hands its slices back. */
  lose?: () => void;
}

export interface ThreadUnwrapper extends AsyncUnwrapper {
  /** Ends the threads; unwraps still waiting fail. */
  close(): Promise<void>;
}

export interface ThreadUnwrapperOptions {
  /** Threads to start; default one per core but this one, at most 3. 0: this thread alone. */
  threads?: number;
  /** This thread unwraps a slice too whenever every thread holds its two (default true). */
  shareThisThread?: boolean;
  /**
   * The threads' nice value (0 to 19; default 0): with 19, work that can wait (a listener's
   * processing) gets a core only where nothing else wants it, so it never slows what is
   * waited for (the acknowledgements), and all of an idle machine otherwise.
   */
  nice?: number;
  /** For tests: the threads' code instead of THREAD. */
  threadSource?: string;
  /** For tests: STALL_MS. */
  stallMs?: number;
}

const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' } as const;
const STOPPED = 'cannot decrypt: the unwrapping thread stopped';

/** An unwrapper on threads of its own, started at the first unwrap, with this thread sharing the work. */
export function threadUnwrapper(opts: ThreadUnwrapperOptions = {}): ThreadUnwrapper {
  const threads = opts.threads ?? Math.min(3, availableParallelism() - 1);
  const shareThisThread = opts.shareThisThread ?? true;
  const stallMs = opts.stallMs ?? STALL_MS;
  const pool: Thread[] = [];
  const asked = new Map<string, Asked[]>();
  // Slices not yet given to a thread; a thread holds at most two, so that it never waits for
  // its next one, and whichever frees up first takes the oldest.
  const waiting: Slice[] = [];
  let started = false;
  let flushing = false;
  let localScheduled = false;
  let closed = false;
  let nextId = 0;
  const keyNumbers = new Map<string, number>();

  const start = (): void => {
    started = true;
    for (let i = 0; i < threads; i++) {
      const thread: Thread = { worker: new Worker(opts.threadSource ?? THREAD, { eval: true, workerData: { nice: opts.nice ?? 0 } }), holding: new Map(), knows: new Set(), alive: true, stall: undefined };
      thread.worker.on('message', ({ id, keys }: { id: number; keys: (Uint8Array | string)[] }) => {
        const slice = thread.holding.get(id);
        if (slice === undefined) return;
        thread.holding.delete(id);
        watch(thread);
        slice.asked.forEach((a, k) => settle(a, keys[k]));
        dispatch();
      });
      const lose = (): void => {
        if (!thread.alive) return;
        thread.alive = false;
        clearTimeout(thread.stall);
        // Its slices go first, in their order, to another thread or to this one.
        waiting.unshift(...[...thread.holding.entries()].sort(([a], [b]) => a - b).map(([, slice]) => slice));
        thread.holding.clear();
        dispatch();
      };
      thread.worker.on('error', lose);
      thread.worker.on('exit', lose);
      thread.lose = lose;
      pool.push(thread);
    }
  };
  // A hung thread (alive, answering nothing) would hold its slices for ever: after stallMs
  // without an answer it is ended and its slices go to the others. An answer that comes
  // after all is ignored (its slice is no longer held), so nothing is settled twice.
  const watch = (thread: Thread): void => {
    clearTimeout(thread.stall);
    thread.stall = undefined;
    if (!thread.alive || thread.holding.size === 0) return;
    thread.stall = setTimeout(() => {
      thread.lose?.();
      void thread.worker.terminate();
    }, stallMs);
    thread.stall.unref();
  };
  const dispatch = (): void => {
    if (closed) {
      for (const slice of waiting.splice(0)) for (const a of slice.asked) a.reject(new DecryptError(STOPPED));
      return;
    }
    for (;;) {
      const free = pool.filter((t) => t.alive && t.holding.size < 2).sort((a, b) => a.holding.size - b.holding.size)[0];
      const slice = free === undefined ? undefined : waiting.shift();
      if (free === undefined || slice === undefined) break;
      const id = nextId++;
      free.holding.set(id, slice);
      let key = keyNumbers.get(slice.pem);
      if (key === undefined) keyNumbers.set(slice.pem, (key = keyNumbers.size));
      const pem = free.knows.has(key) ? undefined : slice.pem;
      free.knows.add(key);
      free.worker.postMessage({ id, key, pem, wrapped: slice.asked.map((a) => a.wrapped) });
      if (free.stall === undefined) watch(free);
    }
    if (waiting.length > 0 && !localScheduled && (shareThisThread || !pool.some((t) => t.alive))) {
      localScheduled = true;
      setImmediate(runLocally);
    }
  };
  // One slice per turn of the event loop: the caller's own work goes on between slices.
  const runLocally = (): void => {
    localScheduled = false;
    const slice = waiting.shift();
    if (slice === undefined) return;
    let key: KeyObject | undefined;
    try {
      key = privateKeyFromPem(slice.pem);
    } catch {
      key = undefined;
    }
    for (const a of slice.asked) {
      if (key === undefined) settle(a, 'key');
      else {
        let aesKey: Buffer;
        try {
          aesKey = privateDecrypt({ key, ...OAEP }, a.wrapped);
        } catch {
          settle(a, 'open');
          continue;
        }
        settle(a, aesKey);
      }
    }
    dispatch();
  };
  const flush = (): void => {
    flushing = false;
    for (const [pem, list] of asked) for (let i = 0; i < list.length; i += SLICE) waiting.push({ pem, asked: list.slice(i, i + SLICE) });
    asked.clear();
    dispatch();
  };

  return {
    unwrap(wrappedKeyB64, privateKeyPem) {
      let wrapped: Buffer;
      try {
        wrapped = decodeBase64Strict(wrappedKeyB64);
      } catch {
        return Promise.reject(new DecryptError('cannot decrypt: the wrapped key is not valid Base64'));
      }
      if (closed) return Promise.reject(new DecryptError(STOPPED));
      if (!started) start();
      return new Promise<Buffer>((resolve, reject) => {
        let list = asked.get(privateKeyPem);
        if (list === undefined) asked.set(privateKeyPem, (list = []));
        list.push({ wrapped, resolve, reject });
        if (!flushing) {
          flushing = true;
          setImmediate(flush);
        }
      });
    },
    async close() {
      closed = true;
      dispatch();
      for (const thread of pool) {
        thread.alive = false;
        clearTimeout(thread.stall);
      }
      await Promise.allSettled(pool.map((t) => t.worker.terminate()));
      for (const thread of pool) for (const slice of thread.holding.values()) for (const a of slice.asked) a.reject(new DecryptError(STOPPED));
    },
  };
}

function settle(asked: Asked, key: Uint8Array | string | undefined): void {
  if (typeof key !== 'object') {
    asked.reject(new DecryptError(key === 'key' ? 'cannot decrypt: the private key is not usable' : 'cannot decrypt: the wrapped key does not open with this private key'));
    return;
  }
  const aesKey = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  if (aesKey.length !== KEY_BYTES) {
    aesKey.fill(0);
    asked.reject(new DecryptError('cannot decrypt: the wrapped key is not an AES-256 key'));
    return;
  }
  asked.resolve(aesKey);
}
