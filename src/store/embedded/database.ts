// How this engine opens a SQLite file, and the few rules every SQLite file of svc follows:
// owner-only files, libsql loaded lazily (commands that never open one do not load it), and
// SQLite's busy and I/O errors told apart. The ledger (sqlite.ts), the token cache, the
// subscriptions and Grants files and the lock table use it; it imports nothing of theirs, so
// the small stores do not load the ledger's schemas.
import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { libcOfThisProcess, type LibcFamily } from './libc.js';

/** The part of libsql's better-sqlite3 API this engine uses. */
export interface Statement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  close(): void;
}

export interface SqliteOptions {
  /** Called once when another process holds the write lock, before waiting for it. */
  onWait?: () => void;
  /** How long one attempt at the write lock blocks before this process yields and says it waits. */
  busyMs?: number;
}

/** Opens libsql lazily: commands that never touch the ledger do not load it. */
export function openDatabase(path: string, timeoutMs: number): Database {
  privateDatabaseFile(path);
  const Sqlite = loadLibsql() as new (path: string, opts: { timeout: number }) => Database;
  return new Sqlite(path, { timeout: timeoutMs });
}

/**
 * libsql picks its native build through @neon-rs/load, which on Linux tells glibc from musl
 * with process.report.getReport(): a whole diagnostic report, 10-30 ms of every command that
 * opens the ledger. So the C library is told from this process's ELF interpreter instead
 * (./libc.ts), for @neon-rs/load and for libsql's own question to detect-libc, which is
 * answered without loading detect-libc. Where the interpreter does not tell, detect-libc
 * answers as before.
 */
function loadLibsql(): unknown {
  const require = createRequire(import.meta.url);
  if (process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64') && !libsqlLoaded) {
    const fromLibsql = createRequire(require.resolve('libsql'));
    const neon = fromLibsql('@neon-rs/load') as { currentTarget: () => string };
    const family = libcOfThisProcess();
    if (family === undefined) {
      const { familySync, MUSL } = fromLibsql('detect-libc') as { familySync: () => string | null; MUSL: string };
      neon.currentTarget = () => `linux-${process.arch}-${familySync() === MUSL ? 'musl' : 'gnu'}`;
    } else {
      neon.currentTarget = () => `linux-${process.arch}-${family === 'musl' ? 'musl' : 'gnu'}`;
      answerForDetectLibc(fromLibsql, family);
    }
  }
  libsqlLoaded = true;
  return require('libsql');
}

/** Puts in require's cache, where libsql's `require("detect-libc")` finds it, a module giving `family`'s answers. */
function answerForDetectLibc(fromLibsql: NodeJS.Require, family: LibcFamily): void {
  let path: string;
  try {
    path = fromLibsql.resolve('detect-libc');
  } catch {
    return;
  }
  if (fromLibsql.cache[path] !== undefined) return;
  const answer = new Module(path);
  answer.filename = path;
  answer.loaded = true;
  answer.exports = {
    GLIBC: 'glibc',
    MUSL: 'musl',
    familySync: () => family,
    family: async () => family,
    isNonGlibcLinuxSync: () => family !== 'glibc',
    isNonGlibcLinux: async () => family !== 'glibc',
    versionSync: () => null,
    version: async () => null,
  };
  fromLibsql.cache[path] = answer;
}
let libsqlLoaded = false;


/**
 * The ledger and the lock files are their owner's alone, whatever the umask. SQLite creates
 * its -wal, -shm and -journal files with the database file's mode, so a new file is created
 * 0600 before libsql opens it; one an older svc left looser is tightened by path, companions
 * too. An existing file is never opened here: closing any descriptor of a database file drops
 * every POSIX lock this process holds on it (another connection's), and SQLite's locks are
 * exactly those ("How To Corrupt An SQLite Database File", 2.2).
 */
function privateDatabaseFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if ((statSync(path).mode & 0o077) === 0) return;
  for (const file of ['', '-wal', '-shm', '-journal']) {
    try {
      chmodSync(`${path}${file}`, 0o600);
    } catch {
      // Absent: SQLite makes it with the database file's mode when it needs it.
    }
  }
}

/** SQLite's answer when another connection holds the lock asked for. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || /database is locked/i.test(messageOf(error));
}

/**
 * SQLite's I/O errors (SQLITE_IOERR_*, "disk I/O error"). Seen once in CI among eight processes
 * opening, claiming in and closing one WAL token file and probing each other's lock files at
 * once; a moment later the same statement succeeds. Callers retry these a few times.
 */
export function isIoError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && code.startsWith('SQLITE_IOERR')) || /disk I\/O error/i.test(messageOf(error));
}

/** Runs `work`, again after a short pause when SQLite reports an I/O error (at most `tries` times). */
export function retryIo<T>(work: () => T, tries = 5): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return work();
    } catch (error) {
      if (attempt >= tries || !isIoError(error)) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 * attempt);
    }
  }
}

/**
 * `work` inside BEGIN IMMEDIATE … COMMIT on a database whose busy timeout does the waiting
 * (the token cache, the subscriptions file), the whole retried on SQLite's rare I/O errors
 * under many processes (retryIo); rolled back when `work` throws.
 */
export function immediateTransaction<T>(db: Database, work: () => T): T {
  return retryIo(() => {
    db.exec('BEGIN IMMEDIATE');
    return committed(db, work);
  });
}

/** Inside a transaction begun: `work`, then COMMIT; when either throws, ROLLBACK and the error. */
export function committed<T>(db: Database, work: () => T): T {
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // No transaction left to roll back (SQLite ended it on the error, or a failed COMMIT).
    }
    throw error;
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
