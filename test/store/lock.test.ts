// src/store/lock.ts across real processes: held means held (a stopped holder is never taken
// over), a killed holder's lock is free at once, and whoever waits is told by whom.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, tryLock, withLock, type LockHolder } from '../../src/store/lock.js';

let dir: string;
const children: ResultPromise[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-lock-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await child.catch(() => undefined);
  }
  await rm(dir, { recursive: true, force: true });
});

/** A process holding the lock, resolved once it says it holds it. */
async function holder(path: string, holdMs?: number): Promise<{ child: ResultPromise }> {
  const child = execa('node', ['--import', 'tsx', join(import.meta.dirname, 'lock-holder.mts'), path, ...(holdMs === undefined ? [] : [String(holdMs)])], { reject: false });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('held')) resolve();
    });
    void child.then((r) => reject(new Error(`the holder ended: ${r.stderr}`)));
  });
  // Wrapped: an execa child is a promise, and returning it from an async function would wait for its end.
  return { child };
}

describe('locks', () => {
  it('a lock held by another process is refused with its holder; free once that process is killed (-9)', async () => {
    const path = join(dir, 'locks', 'a.lock');
    const { child } = await holder(path);
    const refused = await tryLock(path);
    expect('heldBy' in refused && refused.heldBy).toMatchObject({ pid: child.pid, address: 'http://127.0.0.1:1' });
    child.kill('SIGKILL');
    await child;
    const taken = await tryLock(path);
    expect('heldBy' in taken).toBe(false);
    if (!('heldBy' in taken)) await taken.release();
  });

  it('a stopped holder (SIGSTOP) is never taken over, however long it is stopped; the waiter goes on once it releases', async () => {
    const path = join(dir, 'b.lock');
    const { child } = await holder(path, 1_500);
    child.kill('SIGSTOP');
    const waits: (LockHolder | undefined)[] = [];
    let got = false;
    const waiting = acquireLock(path, { onWait: (h) => waits.push(h), pollMs: 20 }).then((lock) => {
      got = true;
      return lock;
    });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(got).toBe(false);
    expect(waits).toEqual([expect.objectContaining({ pid: child.pid })]);
    child.kill('SIGCONT');
    const lock = await waiting;
    expect(got).toBe(true);
    await lock.release();
  });

  it('withLock releases on an error too, in the same process', async () => {
    const path = join(dir, 'c.lock');
    await expect(withLock(path, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const again = await tryLock(path);
    expect('heldBy' in again).toBe(false);
    if (!('heldBy' in again)) await again.release();
  });
  it('a released lock taken again in the same process is still exclusive, also when its file was removed and made again meanwhile', async () => {
    const path = join(dir, 'locks', 'c.lock');
    // Taken and released here: its connection is kept for the next take.
    await withLock(path, async () => undefined);
    const { child } = await holder(path, 60_000);
    const refused = await tryLock(path);
    expect('heldBy' in refused && refused.heldBy).toMatchObject({ pid: child.pid });
    child.kill('SIGKILL');
    await child;
    await withLock(path, async () => undefined);
    // The lock's directory removed (rm -r) and another process locking a new file there.
    await rm(join(dir, 'locks'), { recursive: true, force: true });
    const second = await holder(path, 60_000);
    const again = await tryLock(path);
    expect('heldBy' in again && again.heldBy).toMatchObject({ pid: second.child.pid });
  });
});
