// The token file's renewal claims (issue 25): in place of a lock file per Grant (~3 ms a
// renewal), a renewer claims a Grant in tokens.db and names itself by a lock of its own,
// held from its first claim to its end. A claim whose renewer lives is waited for; one
// whose renewer died (its lock free, or gone) is taken over.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { createTokenCache, fileShelf, type CachedToken } from '../../src/auth/token-cache.js';
import { openTokenFile } from '../../src/store/token-file.js';
import { acquireLock, tryLock } from '../../src/store/lock.js';

const NOW = Date.UTC(2026, 10, 26, 9, 0, 0);
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-claims-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A renewer's lock held as that renewer holds it: on a connection of its own (SQLite tells
 * connections apart as it tells processes apart); released as the OS releases a dead one's.
 */
async function liveRenewer(owner: string) {
  return acquireLock(join(dir, 'locks', `renewer-${owner}.lock`));
}

function setup() {
  const path = join(dir, 'state', 'local', 'tokens.db');
  const told: string[] = [];
  let requests = 0;
  const fetch = async (): Promise<CachedToken> => {
    requests += 1;
    return { access_token: `tok-${requests}`, token_type: 'bearer', expires_at: new Date(NOW + 900_000).toISOString(), scope: 'write_receipts' };
  };
  const cache = createTokenCache({ shelf: fileShelf(() => openTokenFile(path)), clock: fixedClock(NOW), lockDir: join(dir, 'locks'), namespace: 'local', pollMs: 10, onWait: (t) => told.push(t) });
  return { path, told, fetch, cache, requests: () => requests };
}

describe('renewal claims in the token file', () => {
  it("waits while another process's renewer holds the claim, then takes the token it wrote", async () => {
    const { path, told, fetch, cache, requests } = setup();
    const other = await openTokenFile(path);
    const claim = { owner: '999999-abcdef', pid: 999999, since: '2026-11-26T08:59:00.000Z' };
    const lock = await liveRenewer(claim.owner);
    expect(other.claim('g-1', claim)).toBeUndefined();
    const acquired = cache.acquire({ id: 'g-1', scope: 'write_receipts', fetch });
    await new Promise((r) => setTimeout(r, 300));
    expect(told).toEqual(['waiting for another svc process renewing the token (pid 999999 since 2026-11-26T08:59:00.000Z)']);
    // The other renewer writes its token and lets go.
    other.write('g-1', 'write_receipts', JSON.stringify({ access_token: 'theirs', token_type: 'bearer', expires_at: new Date(NOW + 900_000).toISOString(), scope: 'write_receipts' }));
    other.unclaim('g-1', claim);
    expect((await acquired).access_token).toBe('theirs');
    expect(requests()).toBe(0);
    await lock.release();
    other.close();
  });

  it("takes over the claim of a renewer that died (its lock free), and leaves no claim", async () => {
    const { path, fetch, cache, requests } = setup();
    const other = await openTokenFile(path);
    const claim = { owner: '999998-abcdef', pid: 999998, since: '2026-11-26T08:59:00.000Z' };
    const lock = await liveRenewer(claim.owner);
    expect(other.claim('g-1', claim)).toBeUndefined();
    await lock.release(); // as at its death
    expect((await cache.acquire({ id: 'g-1', scope: 'write_receipts', fetch })).access_token).toBe('tok-1');
    expect(requests()).toBe(1);
    // Claimable again at once: the taker dropped its claim.
    const next = { owner: 'someone', pid: 1, since: 'now' };
    expect(other.claim('g-1', next)).toBeUndefined();
    other.unclaim('g-1', next);
    // A claim whose renewer left no lock file at all is a dead one's too.
    expect(other.claim('g-2', claim)).toBeUndefined();
    expect((await cache.acquire({ id: 'g-2', scope: 'write_receipts', fetch })).access_token).toBe('tok-2');
    other.close();
  });

  it('keeps its own renewer lock through garbage collection (a collected lock is free, and another process takes over a live claim)', async () => {
    const { fetch, cache } = setup();
    await cache.acquire({ id: 'g-1', scope: 'write_receipts', fetch });
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((r) => setImmediate(r));
    }
    const mine = readdirSync(join(dir, 'locks')).find((name) => name.startsWith(`renewer-${process.pid}-`) && name.endsWith('.lock'));
    expect(mine).toBeDefined();
    const probe = await tryLock(join(dir, 'locks', mine!));
    const held = 'heldBy' in probe;
    if (!held) await probe.release();
    expect(held).toBe(true);
  });
});
