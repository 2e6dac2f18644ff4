// `svc --help` is kept as the last run printed it (src/startup/root-help.ts), per bundle,
// width and colour settings, and printed from there without loading the bundle: the text
// must be the one the command tree builds, byte for byte, at every width, piped or on a
// terminal, and a run at another width must not get another width's text.
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { makeSvcHome, runSvc, svcEnv, tempDirs } from './helpers.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('svc --help kept for the next run', () => {
  it('piped: the second run prints the same bytes as the first and as `svc help`, without loading the bundle', async () => {
    const cache = await dirs.make('svc-help-cache-');
    const home = await makeSvcHome(dirs);
    // Records whether the bundle was read (the kept help needs only dist/start.cjs).
    const hook = join(await dirs.make('svc-help-hook-'), 'hook.cjs');
    const out = `${hook}.json`;
    await writeFile(
      hook,
      `const fs = require('node:fs'); const read = fs.readFileSync; const files = [];
       fs.readFileSync = function (f, ...r) { if (typeof f === 'string' && f.endsWith('main.cjs')) files.push(f); return read.call(this, f, ...r); };
       process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify(files)));`,
    );
    const env = { XDG_CACHE_HOME: cache, NODE_OPTIONS: `--require "${hook}"` };
    const first = await runSvc(['--help'], { home, env });
    expect(first.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveLength(1);
    const kept = readdirSync(join(cache, 'svc', 'code-cache', readdirSync(join(cache, 'svc', 'code-cache'))[0]!)).filter((f) => f.startsWith('root-help-'));
    expect(kept).toHaveLength(1);
    const second = await runSvc(['--help'], { home, env });
    expect(second.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([]);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toBe('');
    const built = await runSvc(['help'], { home, env: { XDG_CACHE_HOME: cache } });
    expect(second.stdout).toBe(built.stdout);
    expect(await runSvc(['-h'], { home, env: { XDG_CACHE_HOME: cache } })).toMatchObject({ exitCode: 0, stdout: first.stdout });
  });

  it('on a terminal of 60, 120 and 80 columns: each run laid out for its own width, the kept one as the built one', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const home = await makeSvcHome(dirs);
    // HOME of its own: the kept help goes under $HOME/.cache, shared by every width.
    const env = svcEnv(home, { HOME: await dirs.make('svc-help-home-') });
    const screens: Record<number, string> = {};
    for (const width of [60, 120, 80]) {
      const runs: string[] = [];
      for (const args of [['--help'], ['--help'], ['help']]) {
        const term = svcInTerminal(`svc-help-kept-${width}-${runs.length}`, args, env, [width, 200]);
        try {
          await term.waitFor('SVC-EXIT=0', `${args.join(' ')} at ${width}`);
          runs.push(term.text().split('SVC-EXIT=0')[0]!.replace(/^.*svc\.js.*\n/m, ''));
        } finally {
          term.kill();
        }
      }
      expect(runs[1], `the kept help at ${width}`).toBe(runs[0]);
      expect(runs[2], `svc help at ${width}`).toBe(runs[0]);
      for (const line of runs[0]!.split('\n')) expect(displayWidth(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
      screens[width] = runs[0]!;
    }
    // Laid out for each width: a line at 120 longer than any at 80 allows, and more lines at 60.
    expect(Math.max(...screens[120]!.split('\n').map((l) => displayWidth(l)))).toBeGreaterThan(80);
    expect(screens[60]!.split('\n').length).toBeGreaterThan(screens[80]!.split('\n').length);
  }, 120_000);
});

