// SQLite's locks are POSIX locks, which a process loses on a file when it closes any
// descriptor of that file. Opening a second connection to a database this process already
// holds must therefore never open and close the file itself: the first connection's write
// lock would be gone, and another process could write beside it.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/embedded/sqlite.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-sqlite-locks-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a second connection in the same process', () => {
  it("keeps the first one's write lock: another process still finds the database busy", () => {
    const path = join(dir, 'ledger.db');
    const first = openDatabase(path, 100);
    first.exec('CREATE TABLE t (x INTEGER)'); // a rollback journal, as the lock files keep
    first.exec('BEGIN IMMEDIATE');
    first.exec('INSERT INTO t VALUES (1)');
    const second = openDatabase(path, 100);
    const libsql = createRequire(import.meta.url).resolve('libsql');
    const other = `const D = require(${JSON.stringify(libsql)}); const db = new D(${JSON.stringify(path)}, { timeout: 0 });
      try { db.exec('BEGIN IMMEDIATE'); console.log('got the lock'); } catch (e) { console.log(String(e.code ?? e.message)); }`;
    const answer = execFileSync(process.execPath, ['-e', other], { encoding: 'utf8' }).trim();
    first.exec('COMMIT');
    second.close();
    first.close();
    expect(answer).toMatch(/BUSY|locked/i);
  });
});
