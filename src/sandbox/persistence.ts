// `svc sandbox start --state DIR`: the sandbox's state kept across restarts. Grants, tokens,
// receipts, the return queue, subscriptions, the clock's advance: every seeded map and
// every persisted slice (state.ts), as one v8 serialization in DIR/state.v8.
//
// Crash safety: an answer leaves only after the state it produced is on disk (the router
// awaits `save()` before replying), written to a temporary file, fsync'd, renamed over the
// old one and the directory fsync'd; so kill -9 loses at most what was not yet answered.
// Saves are group commits: requests that finish while one is being written share the next.
// A save that would write the same bytes as the last one writes nothing. Background changes
// (webhook delivery attempts) are saved within a second, and at close.
//
// One sandbox per DIR: an OS lock (src/store/lock.ts) held while it runs; a second one is
// refused naming the first. A DIR made from another fixture is refused rather than mixed.
import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { ConflictError, SvcError, UsageError } from '../errors.js';
import { fsErrorCode, privateDir, replacePrivateFile } from '../store/private-file.js';
import { describeHolder, tryLock, type HeldLock } from '../store/lock.js';
import type { SandboxClock } from './clock.js';
import type { Fixture } from './fixture.js';
import type { SandboxState, StateData } from './state.js';

const STATE_FILE = 'state.v8';
const LOCK_FILE = 'sandbox.lock';
const FORMAT = 'svc-sandbox-state';
const VERSION = 1;
/** How often background changes are looked for. */
const BACKGROUND_SAVE_MS = 1000;

interface Saved {
  format: typeof FORMAT;
  version: number;
  /** SHA-256 of the fixture the state was seeded from. */
  fixture: string;
  /** When this state began (a new DIR, or its last reset): what `/sandbox/health` reports as `stateSince`. */
  since: string;
  clockOffsetMs: number;
  /** How many companies the fixture approved for (sandbox start --companies N): said when a start with another fixture is refused. */
  companies?: number;
  data: StateData;
}

export interface Persistence {
  readonly dir: string;
  /** When this state began; older than the process when it was restored. */
  readonly since: string;
  /** True when DIR held a state that was loaded. */
  readonly restored: boolean;
  /** Resolves once everything changed before the call is on disk. */
  save(): Promise<void>;
  /** A reset begins a new state. */
  markReset(since: string): void;
  /** A last save, then the lock is let go. */
  close(): Promise<void>;
}

export function fixtureDigest(fixture: Fixture): string {
  return createHash('sha256').update(JSON.stringify(fixture)).digest('hex');
}

export async function openPersistence(
  dir: string,
  parts: { state: SandboxState; clock: SandboxClock; fixture: Fixture; log: (line: string) => void },
): Promise<Persistence> {
  await privateDir(dir);
  const lock = await tryLock(join(dir, LOCK_FILE), { purpose: 'sandbox state' });
  if ('heldBy' in lock) {
    throw new ConflictError(`another sandbox keeps its state in ${dir} (${describeHolder(lock.heldBy)})`, {
      hint: 'stop it, or start this one with --state OTHER_DIR or --ephemeral',
    });
  }
  try {
    return await openLocked(dir, lock, parts);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function openLocked(
  dir: string,
  lock: HeldLock,
  { state, clock, fixture, log }: { state: SandboxState; clock: SandboxClock; fixture: Fixture; log: (line: string) => void },
): Promise<Persistence> {
  const path = join(dir, STATE_FILE);
  const digest = fixtureDigest(fixture);
  const saved = await readSaved(path);
  if (saved !== undefined && saved.fixture !== digest) {
    const afresh = `to start afresh: --ephemeral (nothing kept), --state OTHER_DIR, or remove ${dir}`;
    if (typeof saved.companies === 'number' && saved.companies !== fixture.companies.length) {
      throw new UsageError(`${dir} holds a sandbox state seeded with ${saved.companies} companies (sandbox start --companies ${saved.companies}), not ${fixture.companies.length}`, {
        hint: `start it as it was made: \`svc sandbox start --companies ${saved.companies}\` (with the same flags otherwise); ${afresh}`,
      });
    }
    throw new UsageError(`${dir} holds a sandbox state seeded from another fixture`, {
      hint: `start with the fixture (and --companies N) it was made from; ${afresh}`,
    });
  }
  let since = saved?.since ?? clock.iso();
  if (saved !== undefined) {
    state.importData(saved.data);
    clock.restoreOffset(saved.clockOffsetMs);
  }

  let last: Buffer | undefined;
  let writing: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let failed: unknown;

  const snapshot = (): Buffer =>
    serialize({ format: FORMAT, version: VERSION, fixture: digest, since, clockOffsetMs: clock.offsetMs(), companies: fixture.companies.length, data: state.exportData() } satisfies Saved);

  const writeNow = async (): Promise<void> => {
    const bytes = snapshot();
    if (last !== undefined && bytes.equals(last)) return;
    await replacePrivateFile(path, bytes);
    await syncDir(dir);
    last = bytes;
  };

  // Group commit: one write at a time; callers arriving meanwhile share the one after it,
  // whose snapshot is taken when it starts, so it holds every change they made.
  const save = (): Promise<void> => {
    if (writing === undefined) {
      writing = writeNow().finally(() => {
        writing = undefined;
      });
      return writing;
    }
    queued ??= writing.catch(() => undefined).then(() => {
      queued = undefined;
      return save();
    });
    return queued;
  };

  const guarded = () =>
    save().catch((error: unknown) => {
      if (failed === undefined) log(`cannot save the sandbox state in ${dir}: ${error instanceof Error ? error.message : String(error)}`);
      failed = error;
      throw error;
    });

  if (saved === undefined) await guarded();
  else last = snapshot();
  const timer = setInterval(() => void guarded().catch(() => undefined), BACKGROUND_SAVE_MS);
  timer.unref();

  return {
    dir,
    get since() {
      return since;
    },
    restored: saved !== undefined,
    save: guarded,
    markReset(at) {
      since = at;
    },
    async close() {
      clearInterval(timer);
      try {
        await guarded();
      } finally {
        await lock.release();
      }
    },
  };
}

async function readSaved(path: string): Promise<Saved | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') return undefined;
    throw new SvcError(`cannot read the sandbox state ${path} (${fsErrorCode(error)})`, { cause: error });
  }
  let value: unknown;
  try {
    value = deserialize(bytes);
  } catch (error) {
    throw new SvcError(`the sandbox state ${path} is damaged`, { hint: 'move it away to start afresh', cause: error });
  }
  const saved = value as Partial<Saved> | null;
  if (saved === null || typeof saved !== 'object' || saved.format !== FORMAT || typeof saved.fixture !== 'string' || typeof saved.since !== 'string' || saved.data === undefined) {
    throw new SvcError(`${path} is not a sandbox state`, { hint: 'move it away to start afresh' });
  }
  if (saved.version !== VERSION) {
    throw new SvcError(`the sandbox state ${path} has format version ${String(saved.version)}, this svc reads ${VERSION}`, {
      hint: 'use the svc that wrote it, or move it away to start afresh',
    });
  }
  return saved as Saved;
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
