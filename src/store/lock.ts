// Locks that are locks: a lock is an exclusive transaction on a small SQLite file, so the
// lock itself is the operating system's (a byte-range lock on that file). It is released
// when its holder releases it or dies however it dies (kill -9, a closed pipe, a crash), and
// never taken over from a holder that is alive, even one stopped for an hour (SIGSTOP):
// there is no staleness to guess. Beside the lock file, `<file>.holder` says who holds it
// (pid, since when, and what the holder chose to add, such as a listener's address), for
// the message of whoever waits or is refused.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isBusy, openDatabase, retryIo, type Database } from './embedded/database.js';

export interface LockHolder {
  pid: number;
  /** ISO 8601. */
  since: string;
  [detail: string]: unknown;
}

export interface HeldLock {
  readonly path: string;
  /** Adds to what the holder file says (an address known only once bound). */
  describe(details: Record<string, unknown>): Promise<void>;
  release(): Promise<void>;
}

export interface LockOptions {
  /** Called once, with who holds it (when known), if the lock is held by another process. */
  onWait?: (holder: LockHolder | undefined) => void;
  /** Added to the holder file for others to read. */
  details?: Record<string, unknown>;
  pollMs?: number;
}

/** Takes the lock now, or returns undefined with its holder (when known) if another process has it. */
export async function tryLock(path: string, details: Record<string, unknown> = {}): Promise<HeldLock | { heldBy: LockHolder | undefined }> {
  await lockDir(dirname(path));
  let db = reusable(path);
  if (db === undefined) {
    try {
      db = openDatabase(path, 0);
    } catch (error) {
      // The directory went away since (a test's, a user's rm -r): made again, tried once more.
      if (!madeDirs.delete(dirname(path))) throw error;
      await lockDir(dirname(path));
      db = openDatabase(path, 0);
    }
  }
  try {
    const opened = db;
    retryIo(() => opened.exec('BEGIN EXCLUSIVE'), 3);
  } catch (error) {
    db.close();
    if (!isBusy(error)) throw error;
    return { heldBy: readHolder(path) };
  }
  return hold(db, path, details);
}

// A released lock's connection, kept for the next take of the same lock in this process: a
// run over 2,000 Grants takes some 10,000 locks, and opening SQLite was most of each. An idle
// connection holds no lock. Kept with the file's identity: a lock file removed and made again
// (rm -r of the directory) is another file, which the old connection would not lock.
// At most a few, each an open file: a Grant's token lock is taken once per run, the profile's
// files' locks over and over.
const idle = new Map<string, { db: Database; identity: string }>();
const MAX_IDLE = 16;

function fileIdentity(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

function reusable(path: string): Database | undefined {
  const kept = idle.get(path);
  if (kept === undefined) return undefined;
  idle.delete(path);
  if (fileIdentity(path) === kept.identity) return kept.db;
  kept.db.close();
  return undefined;
}

function putAside(path: string, db: Database): void {
  const identity = fileIdentity(path);
  if (identity === undefined || idle.has(path) || idle.size >= MAX_IDLE) db.close();
  else idle.set(path, { db, identity });
}

// The lock directories this process has made: a run over 2,000 Grants takes 2,000 locks in one.
const madeDirs = new Set<string>();

async function lockDir(dir: string): Promise<void> {
  if (madeDirs.has(dir)) return;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  madeDirs.add(dir);
}

/** Waits (without blocking the event loop) until the lock is free, then takes it. */
export async function acquireLock(path: string, opts: LockOptions = {}): Promise<HeldLock> {
  let told = false;
  for (;;) {
    const attempt = await tryLock(path, opts.details);
    if (!('heldBy' in attempt)) return attempt;
    if (!told) {
      told = true;
      opts.onWait?.(attempt.heldBy);
    }
    await new Promise((resolve) => setTimeout(resolve, opts.pollMs ?? 50));
  }
}

/** Runs `work` holding the lock; released however `work` ends. */
export async function withLock<T>(path: string, work: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const lock = await acquireLock(path, opts);
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

/** Who holds (or last held) the lock, as its holder file says; undefined when unreadable. */
export function readHolder(path: string): LockHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(holderPath(path), 'utf8')) as LockHolder;
    return typeof value.pid === 'number' && typeof value.since === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** "pid 4242 since 2026-11-24T10:00:00.000Z": for the messages of those who wait. */
export function describeHolder(holder: LockHolder | undefined): string {
  return holder ? `pid ${holder.pid} since ${holder.since}` : 'another svc process';
}

async function hold(db: Database, path: string, details: Record<string, unknown>): Promise<HeldLock> {
  let holder: LockHolder = { pid: process.pid, since: new Date().toISOString(), ...details };
  // Only the holder writes the holder file, so it is never another holder's.
  const write = () => writeHolder(holderPath(path), `${JSON.stringify(holder)}\n`);
  write();
  let released = false;
  return {
    path,
    async describe(more) {
      holder = { ...holder, ...more };
      if (!released) write();
    },
    async release() {
      if (released) return;
      released = true;
      try {
        unlinkSync(holderPath(path));
      } catch {
        // Gone already: nothing to say.
      }
      try {
        db.exec('ROLLBACK');
      } catch (error) {
        db.close();
        throw error;
      }
      putAside(path, db);
    },
  };
}

/**
 * The holder file, replaced whole (a reader sees the old one or the new one), private, and
 * written with plain synchronous calls: it is only informative, so it has no fsync, and a run
 * over 2,000 Grants takes 2,000 locks, where a round of the thread pool per call cost more
 * than the calls. A failure only leaves the waiters' message vaguer.
 */
function writeHolder(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Never made.
    }
  }
}

function holderPath(path: string): string {
  return `${path}.holder`;
}
