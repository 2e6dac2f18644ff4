// The ledger's files are 0600 whatever the umask, and a ledger an older svc left 0644 is
// tightened with its companions (test/e2e/private-files.test.ts walks a whole tour).
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteLedger } from '../../src/store/embedded/sqlite.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-private-db-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe('the embedded ledger file', () => {
  it('is created 0600 under umask 000, and SQLite gives -wal and -shm the same mode', async () => {
    const umask = process.umask(0);
    try {
      const path = join(dir, 'ledger.db');
      const ledger = await openSqliteLedger(path);
      try {
        expect([await mode(path), await mode(`${path}-wal`), await mode(`${path}-shm`)]).toEqual(['600', '600', '600']);
      } finally {
        await ledger.close();
      }
    } finally {
      process.umask(umask);
    }
  });

  it('is tightened, with a -wal left behind, when an older svc left them 0644', async () => {
    const path = join(dir, 'ledger.db');
    await (await openSqliteLedger(path)).close();
    await chmod(path, 0o644);
    await writeFile(`${path}-journal`, '', { mode: 0o644 });
    const ledger = await openSqliteLedger(path);
    await ledger.close();
    expect(await mode(path)).toBe('600');
    expect(await mode(`${path}-journal`)).toBe('600');
  });
});
