// The built svc and its code cache (src/startup/): the compiled code of the bundle is kept
// under $XDG_CACHE_HOME/svc; twelve first runs at once all work and leave a cache that later
// runs use; damaged cache files are ignored.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSvc, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

/** Every cache file under `cacheHome`, by path. */
function cacheFiles(cacheHome: string): string[] {
  const root = join(cacheHome, 'svc', 'code-cache');
  try {
    return readdirSync(root, { recursive: true, encoding: 'utf8' })
      .map((name) => join(root, name))
      .filter((path) => statSync(path).isFile())
      .sort();
  } catch {
    return [];
  }
}

describe('the code cache of the built svc', () => {
  it('twelve first runs at once all succeed; the cache they leave is used as it is, a damaged one replaced', async () => {
    const cacheHome = await dirs.make('svc-cache-home-');
    const env = { XDG_CACHE_HOME: cacheHome };
    const runs = await Promise.all(Array.from({ length: 12 }, () => runSvc(['help', 'exit-codes'], { env })));
    for (const run of runs) {
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toContain('0  ok');
    }
    const files = cacheFiles(cacheHome);
    expect(files.some((f) => f.endsWith('main.cjs.v8cache'))).toBe(true);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const inodes = () => files.map((f) => statSync(f).ino);
    const before = inodes();
    expect((await runSvc(['help', 'exit-codes'], { env })).exitCode).toBe(0);
    expect(inodes()).toEqual(before);

    for (const file of files) {
      const bytes = readFileSync(file);
      bytes[bytes.length - 100] = (bytes[bytes.length - 100] ?? 0) ^ 0x10;
      writeFileSync(file, bytes);
    }
    const damaged = await runSvc(['help', 'exit-codes'], { env });
    expect(damaged.exitCode, damaged.stderr).toBe(0);
    expect(damaged.stdout).toContain('0  ok');
    expect(inodes().filter((ino, i) => ino === before[i])).toEqual([]);
  });
});
