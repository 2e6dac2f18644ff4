// The RSA unwraps of a long queue on threads of their own: the same content keys as
// unwrapKey on this thread, in the caller's order whatever thread answers, and each failure
// a DecryptError naming no key material.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrapKey, wrapKey } from '../../src/crypto/hybrid.js';
import { generateKeyPair, type GeneratedKeyPair } from '../../src/crypto/keys.js';
import { threadUnwrapper, type ThreadUnwrapper } from '../../src/crypto/unwrap-threads.js';
import { DecryptError } from '../../src/errors.js';

let mine: GeneratedKeyPair;
let other: GeneratedKeyPair;
let unwrapper: ThreadUnwrapper;

beforeAll(async () => {
  [mine, other] = await Promise.all([generateKeyPair(), generateKeyPair()]);
  unwrapper = threadUnwrapper({ threads: 2, shareThisThread: false });
});

afterAll(async () => {
  await unwrapper.close();
});

describe('threadUnwrapper', () => {
  it('gives the content key unwrapKey gives, for each of 300 asked at once, in order', async () => {
    const contentKeys = Array.from({ length: 300 }, () => randomBytes(32));
    const wrapped = contentKeys.map((k) => wrapKey(k, mine.publicKey));
    const got = await Promise.all(wrapped.map((w) => unwrapper.unwrap(w, mine.privateKeyPem)));
    expect(got.map((k) => k.toString('hex'))).toEqual(contentKeys.map((k) => k.toString('hex')));
    expect(unwrapKey(wrapped[7]!, mine.privateKeyPem).toString('hex')).toBe(contentKeys[7]!.toString('hex'));
  });

  it('a key wrapped for another key, a broken private key, bad Base64: DecryptErrors naming no key', async () => {
    const wrapped = wrapKey(randomBytes(32), other.publicKey);
    const outcomes = await Promise.allSettled([
      unwrapper.unwrap(wrapped, mine.privateKeyPem),
      unwrapper.unwrap(wrapped, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'),
      unwrapper.unwrap('not base64!', mine.privateKeyPem),
      unwrapper.unwrap(wrapped, other.privateKeyPem),
    ]);
    const reasons = outcomes.map((o) => (o.status === 'rejected' ? o.reason : undefined));
    for (const reason of reasons.slice(0, 3)) expect(reason).toBeInstanceOf(DecryptError);
    expect(reasons.map((r) => (r as Error | undefined)?.message)).toEqual([
      'cannot decrypt: the wrapped key does not open with this private key',
      'cannot decrypt: the private key is not usable',
      'cannot decrypt: the wrapped key is not valid Base64',
      undefined,
    ]);
    expect(outcomes[3]).toMatchObject({ status: 'fulfilled' });
  });

  it('on this thread alone (no thread to start), and sharing with one: the same keys', async () => {
    const contentKeys = Array.from({ length: 70 }, () => randomBytes(32));
    const wrapped = contentKeys.map((k) => wrapKey(k, mine.publicKey));
    for (const opts of [{ threads: 0 }, { threads: 1, shareThisThread: true }, { threads: 1, shareThisThread: false }]) {
      const u = threadUnwrapper(opts);
      try {
        const got = await Promise.all(wrapped.map((w) => u.unwrap(w, mine.privateKeyPem)));
        expect(got.map((k) => k.toString('hex'))).toEqual(contentKeys.map((k) => k.toString('hex')));
      } finally {
        await u.close();
      }
    }
  });

  it('a thread that hangs (alive, answering nothing): ended after its stall time, its unwraps done here', { timeout: 20_000 }, async () => {
    // Before the stall timer this waited for ever: the thread never answers, never dies.
    const hung = threadUnwrapper({ threads: 1, shareThisThread: false, stallMs: 300, threadSource: "require('node:worker_threads').parentPort.on('message', () => {});" });
    const contentKeys = Array.from({ length: 40 }, () => randomBytes(32));
    try {
      const got = await Promise.all(contentKeys.map((k) => hung.unwrap(wrapKey(k, mine.publicKey), mine.privateKeyPem)));
      expect(got.map((k) => k.toString('hex'))).toEqual(contentKeys.map((k) => k.toString('hex')));
    } finally {
      await hung.close();
    }
  });

  it('a slow thread that answers within its stall time keeps its work: nothing is unwrapped twice', async () => {
    // Answers each slice after 100 ms (stall time 2 s): its answers count, this thread does none.
    const slow = threadUnwrapper({
      threads: 1,
      shareThisThread: false,
      stallMs: 2_000,
      threadSource: `const { parentPort } = require('node:worker_threads');
        parentPort.on('message', ({ id, wrapped }) => setTimeout(() => parentPort.postMessage({ id, keys: wrapped.map(() => new Uint8Array(32).fill(7)) }), 100));`,
    });
    try {
      const got = await Promise.all(Array.from({ length: 40 }, () => slow.unwrap(wrapKey(randomBytes(32), mine.publicKey), mine.privateKeyPem)));
      // Every key is the slow thread's made-up one: none came from this thread.
      expect(new Set(got.map((k) => k.toString('hex')))).toEqual(new Set([Buffer.alloc(32, 7).toString('hex')]));
    } finally {
      await slow.close();
    }
  });

  it('after close, nothing is left waiting: an unwrap asked then fails', async () => {
    const closing = threadUnwrapper({ threads: 1 });
    const wrapped = wrapKey(randomBytes(32), mine.publicKey);
    expect((await closing.unwrap(wrapped, mine.privateKeyPem)).length).toBe(32);
    await closing.close();
    await expect(closing.unwrap(wrapped, mine.privateKeyPem)).rejects.toThrow('cannot decrypt: the unwrapping thread stopped');
  });
});
