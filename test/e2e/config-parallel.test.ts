// config.json under parallel processes: twelve `config set` on twelve profiles at once keep
// all twelve (each write is a read-modify-write under the file's OS lock).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('config.json written by 12 processes at once', () => {
  it('loses no profile', async () => {
    const home = await makeSvcHome(dirs);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => runSvc(['config', 'set', 'base-url', `https://p${i}.example.com`, '--profile', `p${i}`], { home })),
    );
    for (const r of results) expect(r.exitCode, r.stderr).toBe(0);
    const file = JSON.parse(await readFile(join(home.configDir, 'config.json'), 'utf8')) as { profiles: Record<string, { baseUrl?: string }> };
    for (let i = 0; i < 12; i++) expect(file.profiles[`p${i}`]?.baseUrl, `p${i}`).toBe(`https://p${i}.example.com`);
  });
});
