import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTokenCache, fileShelf, secretStoreShelf, tokenKey, type CachedToken } from '../../src/auth/token-cache.js';
import { openTokenFile } from '../../src/store/token-file.js';
import { withLock } from '../../src/store/lock.js';
import { fixedClock } from '../../src/clock.js';
import { memorySecretStore } from '../../src/secrets/store.js';

const NOW = Date.UTC(2025, 0, 1);
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cache-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const clock = fixedClock(NOW);
  const secrets = memorySecretStore();
  const cache = createTokenCache({ shelf: secretStoreShelf(secrets), clock, lockDir: join(dir, 'locks'), namespace: 'local', pollMs: 5 });
  let requests = 0;
  // A token service that answers after a moment, so concurrent callers overlap.
  const fetch = async (): Promise<CachedToken> => {
    requests += 1;
    await new Promise((resolve) => setTimeout(resolve, 30));
    return { access_token: `tok-${requests}`, token_type: 'bearer', expires_at: new Date(clock.now() + 900_000).toISOString(), scope: 'write_receipts' };
  };
  return { clock, secrets, cache, fetch, requests: () => requests };
}

const WANT = { id: 'g-1', scope: 'write_receipts' };

describe('token cache', () => {
  it('reuses a token until 60 s before it expires', async () => {
    const { clock, cache, fetch, requests } = setup();
    expect((await cache.acquire({ ...WANT, fetch })).access_token).toBe('tok-1');
    expect((await cache.acquire({ ...WANT, fetch })).access_token).toBe('tok-1');
    clock.advance(900_000 - 61_000);
    expect((await cache.acquire({ ...WANT, fetch })).access_token).toBe('tok-1');
    clock.advance(2_000);
    expect((await cache.acquire({ ...WANT, fetch })).access_token).toBe('tok-2');
    expect(requests()).toBe(2);
  });

  it('keeps one token per Grant and scope under the key token/<grant>', async () => {
    const { secrets, cache, fetch } = setup();
    await cache.acquire({ ...WANT, fetch });
    await cache.acquire({ id: 'g-1', scope: 'read_stores', fetch });
    await cache.acquire({ id: 'g-2', scope: 'write_receipts', fetch });
    expect(Object.keys(secrets.dump()).sort()).toEqual([tokenKey('g-1'), tokenKey('g-2')]);
    expect(Object.keys(await cache.read('g-1')).sort()).toEqual(['read_stores', 'write_receipts']);
    expect((await cache.read('g-1')).write_receipts?.access_token).toBe('tok-1');
  });

  it('asks again with force, even when the cached token is good', async () => {
    const { cache, fetch, requests } = setup();
    await cache.acquire({ ...WANT, fetch });
    expect((await cache.acquire({ ...WANT, fetch, force: true })).access_token).toBe('tok-2');
    expect((await cache.acquire({ ...WANT, fetch })).access_token).toBe('tok-2');
    expect(requests()).toBe(2);
  });

  it('makes one token request for two concurrent acquisitions', async () => {
    const { cache, fetch, requests } = setup();
    const [a, b] = await Promise.all([cache.acquire({ ...WANT, fetch }), cache.acquire({ ...WANT, fetch })]);
    expect(requests()).toBe(1);
    expect(a.access_token).toBe('tok-1');
    expect(b.access_token).toBe('tok-1');
    // The lock file stays (the lock is the OS's lock on it); nobody is named as holding it.
    expect(readdirSync(join(dir, 'locks')).filter((name) => name.endsWith('.holder'))).toEqual([]);
  });

  it('makes one request for two caches over the same store (two processes)', async () => {
    const clock = fixedClock(NOW);
    const secrets = memorySecretStore();
    const options = { shelf: secretStoreShelf(secrets), clock, lockDir: join(dir, 'locks'), namespace: 'local', pollMs: 5 };
    let requests = 0;
    const fetch = async (): Promise<CachedToken> => {
      requests += 1;
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { access_token: 'shared', token_type: 'bearer', expires_at: new Date(NOW + 900_000).toISOString(), scope: 'write_receipts' };
    };
    await Promise.all([createTokenCache(options).acquire({ ...WANT, fetch }), createTokenCache(options).acquire({ ...WANT, fetch })]);
    expect(requests).toBe(1);
  });

  it("says nothing about waiting when the lock's holder is this process (a batch's own workers)", async () => {
    const clock = fixedClock(NOW);
    const told: string[] = [];
    const options = { shelf: secretStoreShelf(memorySecretStore()), clock, lockDir: join(dir, 'locks'), namespace: 'local', pollMs: 5, onWait: (text: string) => told.push(text) };
    const fetch = async (): Promise<CachedToken> => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { access_token: 'shared', token_type: 'bearer', expires_at: new Date(NOW + 900_000).toISOString(), scope: 'write_receipts' };
    };
    const caches = Array.from({ length: 7 }, () => createTokenCache(options));
    await Promise.all(caches.map((cache) => cache.acquire({ ...WANT, fetch })));
    expect(told).toEqual([]);
  });

  it('discards a token after a 401 only if it is still the cached one', async () => {
    const { cache, fetch } = setup();
    await cache.acquire({ ...WANT, fetch });
    await cache.discard('g-1', 'write_receipts', 'some-older-token');
    expect((await cache.read('g-1')).write_receipts?.access_token).toBe('tok-1');
    await cache.discard('g-1', 'write_receipts', 'tok-1');
    expect(await cache.read('g-1')).toEqual({});
    expect((await cache.acquire({ ...WANT, fetch })).access_token).toBe('tok-2');
  });

  it('treats a damaged entry as a miss', async () => {
    const { secrets, cache, fetch } = setup();
    await secrets.set(tokenKey('g-1'), '{not json');
    expect((await cache.acquire({ ...WANT, fetch })).access_token).toBe('tok-1');
  });

  it('forgets every token of a Grant', async () => {
    const { cache, fetch } = setup();
    await cache.acquire({ ...WANT, fetch });
    expect(await cache.forget('g-1')).toBe(true);
    expect(await cache.forget('g-1')).toBe(false);
  });
});

describe('the renewal lock (src/store/lock.ts)', () => {
  it('waits for a live lock', async () => {
    const path = join(dir, 'locks', 'live.lock');
    const order: string[] = [];
    let release!: () => void;
    const held = withLock(path, () =>
      new Promise<void>((resolve) => {
        order.push('first in');
        release = () => {
          order.push('first out');
          resolve();
        };
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = withLock(path, async () => void order.push('second in'), { pollMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual(['first in']);
    release();
    await Promise.all([held, second]);
    expect(order).toEqual(['first in', 'first out', 'second in']);
  });

  it('releases the lock when the work fails', async () => {
    const path = join(dir, 'locks', 'fail.lock');
    await expect(withLock(path, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await withLock(path, async () => 'ran')).toBe('ran');
  });
});

describe('token cache on the private token file', () => {
  it('keeps one row per Grant and scope, in a file only its owner can read', async () => {
    const path = join(dir, 'state', 'local', 'tokens.db');
    const cache = createTokenCache({ shelf: fileShelf(() => openTokenFile(path)), clock: fixedClock(NOW), lockDir: join(dir, 'locks'), namespace: 'local', pollMs: 5 });
    const token = (t: string): CachedToken => ({ access_token: t, token_type: 'bearer', expires_at: new Date(NOW + 900_000).toISOString(), scope: 's' });
    await cache.put('g-1', 'write_receipts', token('a'));
    await cache.put('g-1', 'read_stores', token('b'));
    await cache.put('g-2', 'write_receipts', token('c'));
    await cache.put('g-1', 'write_receipts', token('a2'));
    expect(Object.fromEntries(Object.entries(await cache.read('g-1')).map(([slot, t]) => [slot, t.access_token]))).toEqual({ write_receipts: 'a2', read_stores: 'b' });
    await cache.discard('g-1', 'read_stores', 'b');
    expect(Object.keys(await cache.read('g-1'))).toEqual(['write_receipts']);
    expect(await cache.forget('g-2')).toBe(true);
    expect(await cache.read('g-2')).toEqual({});
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'state', 'local')).mode & 0o777).toBe(0o700);
  });
});
