// RSA-OAEP unwraps on worker threads that do nothing else: a queue of thousands is unwrapped
// on every core while this thread reads the answer, checks it, opens the AES-GCM ciphertexts
// and writes the output. Each thread is a few lines evaluated in place (no bundle to load, a
// bare isolate), holds its own parsed copy of each key (one parsed key serializes its
// operations in OpenSSL) and unwraps in a tight loop with the same call as unwrapKey's, as
// fast as a process that does nothing else (bench/credit-note-poll.mjs's bare ceiling).
// Unwraps asked for in one turn of this thread's event loop go out together, in slices,
// to whichever threads have the fewest waiting.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { DecryptError } from '../errors.js';
import { decodeBase64Strict } from './base64.js';

const KEY_BYTES = 32;
/** Unwraps per message: few messages, and every thread kept busy. */
const SLICE = 16;

// Answers each message { id, pem, wrapped: Uint8Array[] } with { id, keys: (Uint8Array | string)[] }:
// a content key, or why it failed (never key material). Runs as CommonJS in the worker.
const THREAD = `
const { parentPort } = require('node:worker_threads');
const { constants, createPrivateKey, privateDecrypt } = require('node:crypto');
const parsed = new Map();
const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' };
parentPort.on('message', ({ id, pem, wrapped }) => {
  let key = parsed.get(pem);
  if (key === undefined) {
    try { key = createPrivateKey({ key: pem, format: 'pem' }); } catch { key = null; }
    parsed.set(pem, key);
  }
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

interface Thread {
  worker: Worker;
  waiting: Map<number, Asked[]>;
  count: number;
}

export interface ThreadUnwrapper extends AsyncUnwrapper {
  /** Ends the threads; unwraps still waiting fail. */
  close(): Promise<void>;
}

/** An unwrapper on `threads` worker threads (default: one per core, at most 4). */
export function threadUnwrapper(threads = Math.min(4, availableParallelism())): ThreadUnwrapper {
  const pool: Thread[] = [];
  const asked = new Map<string, Asked[]>();
  let flushing = false;
  let closed = false;
  let nextId = 0;
  const start = (): void => {
    for (let i = 0; i < Math.max(1, threads); i++) {
      const thread: Thread = { worker: new Worker(THREAD, { eval: true }), waiting: new Map(), count: 0 };
      thread.worker.unref();
      thread.worker.on('message', ({ id, keys }: { id: number; keys: (Uint8Array | string)[] }) => {
        const slice = thread.waiting.get(id) ?? [];
        thread.waiting.delete(id);
        thread.count -= slice.length;
        slice.forEach((a, k) => settle(a, keys[k]));
      });
      const lost = (): void => {
        for (const slice of thread.waiting.values()) for (const a of slice) a.reject(new DecryptError('cannot decrypt: the unwrapping thread stopped'));
        thread.waiting.clear();
        thread.count = Number.POSITIVE_INFINITY;
      };
      thread.worker.on('error', lost);
      thread.worker.on('exit', lost);
      pool.push(thread);
    }
  };
  const flush = (): void => {
    flushing = false;
    for (const [pem, list] of asked) {
      for (let i = 0; i < list.length; i += SLICE) {
        const slice = list.slice(i, i + SLICE);
        const thread = pool.reduce((a, b) => (b.count < a.count ? b : a));
        if (!Number.isFinite(thread.count)) {
          for (const a of slice) a.reject(new DecryptError('cannot decrypt: the unwrapping thread stopped'));
          continue;
        }
        const id = nextId++;
        thread.waiting.set(id, slice);
        thread.count += slice.length;
        thread.worker.postMessage({ id, pem, wrapped: slice.map((a) => a.wrapped) });
      }
    }
    asked.clear();
  };
  return {
    unwrap(wrappedKeyB64, privateKeyPem) {
      let wrapped: Buffer;
      try {
        wrapped = decodeBase64Strict(wrappedKeyB64);
      } catch {
        return Promise.reject(new DecryptError('cannot decrypt: the wrapped key is not valid Base64'));
      }
      if (closed) return Promise.reject(new DecryptError('cannot decrypt: the unwrapping thread stopped'));
      if (pool.length === 0) start();
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
      await Promise.allSettled(pool.map((t) => t.worker.terminate()));
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
