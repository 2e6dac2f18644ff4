// The README's tour, run exactly as written: its first line (terminal 1) in the background,
// the rest (terminal 2) as one bash script, with `svc` on PATH, from the repository's
// directory, in a fresh home. A tour that fails for a newcomer fails here first.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, svcBin, svcEnv, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

async function tourBlock(): Promise<string[]> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A tour'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README has no tour block');
  // Continuation lines belong to the line before them.
  return block.replace(/\\\n\s*/g, ' ').split('\n').filter((l) => l.trim() !== '');
}

describe('the README tour', () => {
  it('runs as written on a fresh machine', async () => {
    const [first, ...rest] = await tourBlock();
    expect(first).toMatch(/^svc sandbox start/);
    const bin = await dirs.make('svc-tour-bin-');
    await writeFile(join(bin, 'svc'), `#!/bin/sh\nexec node ${svcBin} "$@"\n`);
    await chmod(join(bin, 'svc'), 0o755);
    const home = await makeSvcHome(dirs);
    const env = { ...svcEnv(home), PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: await dirs.make('svc-tour-home-') };

    const terminal1 = execa('bash', ['-c', first!], { env, extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
    let sandboxOut = '';
    terminal1.stdout?.on('data', (c: Buffer) => (sandboxOut += c.toString()));
    try {
      for (const deadline = Date.now() + 20_000; !sandboxOut.includes('listening on'); ) {
        if (Date.now() > deadline || terminal1.exitCode !== null) throw new Error(`terminal 1 did not start the sandbox (is port 8787 free?):\n${sandboxOut}${String((await terminal1).stderr)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const script = join(bin, 'tour.sh');
      await writeFile(script, `set -euo pipefail\n${rest.join('\n')}\n`);
      const terminal2 = await execa('bash', [script], { env, extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', timeout: 120_000 });
      expect(terminal2.exitCode, `${terminal2.stdout}\n${terminal2.stderr}`).toBe(0);
      // Every step did its part: devices got the receipt, the receiver heard both events, the credit note went out.
      expect(terminal2.stdout).toMatch(/DELIVERED/);
      expect(terminal2.stderr).toMatch(/issued to 3 devices of email alice@example.com/);
      expect(terminal2.stderr).toMatch(/credit note CN-R-2025-000871-1 issued to 3 devices/);
      expect(terminal2.stderr).toContain('--> CREDIT_NOTE_CREATED');
    } finally {
      terminal1.kill('SIGTERM');
      await terminal1;
    }
  }, 180_000);
});
