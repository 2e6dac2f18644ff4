// A ledger file that is not svc's database (random bytes, or a damaged SQLite file): the error
// says what the file is, that it is damaged or not svc's, how to move it aside, and what is lost
// and what the service still holds. svc never deletes or replaces it.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('a ledger file that is not a database', () => {
  it.each([
    ['random bytes', () => randomBytes(8192)],
    ['a damaged SQLite file', () => Buffer.concat([Buffer.from('SQLite format 3\0'), randomBytes(4080)])],
  ])('%s: exit 1 with a hint to move it aside, naming what is lost; the file is left as it was', async (_name, bytes) => {
    const home = await makeSvcHome(dirs);
    const path = join(home.stateDir, 'local', 'ledger.db');
    await mkdir(join(home.stateDir, 'local'), { recursive: true });
    const content = bytes();
    await writeFile(path, content);
    const r = await runSvc(['receipt', 'list'], { home });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain(`cannot open the ledger ${path}`);
    const hint = r.stderr.slice(r.stderr.indexOf('hint:'));
    expect(hint).toMatch(/^hint: /);
    expect(hint).toContain('damaged or not svc');
    expect(hint).toContain(`mv ${path} ${path}.damaged`);
    expect(hint).toMatch(/lost/);
    expect(hint).toMatch(/the service still holds/);
    expect((await readFile(path)).equals(content)).toBe(true);
  });
});
