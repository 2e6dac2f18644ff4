// Ctrl-C or SIGTERM in the middle of a command over many companies: the Grants under way are
// finished, none is started after the signal, and what was done is reported with the others
// as not run (exit 9, partly failed; one line for them all on stderr, an element each under
// --json). Before, the process died at once (exit 143) with nothing on stdout, so a platform
// could not tell which companies had been done.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot, svcBin, svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';

const COMPANIES = 30;

describe('a fan-out stopped by a signal', () => {
  const { merchant } = useMerchant(['--companies', String(COMPANIES), '--latency', '100ms']);

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: the companies done are listed, the rest are elements "cancelled", exit 9`, async () => {
      const m = merchant();
      const grants = await m.json<{ grant_id: string }[]>(['grants', 'list']);
      const details = () => (m.sandbox.stderr().match(/GET \/oauth2\/grants\/\S+ 200/g) ?? []).length;
      const before = details();
      const child = execa('node', [svcBin, 'grants', 'list', '--details', '--all-grants', '--concurrency', '2', '--json'], {
        env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', forceKillAfterDelay: 20_000,
      });
      for (const deadline = Date.now() + 30_000; details() - before < 3; ) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no Grant details fetched in time:\n${m.sandbox.stderr().slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      child.kill(signal);
      const result = await child;
      expect(result.signal, result.stderr).toBeUndefined();
      expect(result.exitCode, result.stderr).toBe(9);
      const elements = JSON.parse(result.stdout) as { grantId: string; stores?: unknown[]; error?: { code: string; exitCode: number } }[];
      expect(elements.map((e) => e.grantId).sort()).toEqual(grants.map((g) => g.grant_id).sort());
      const done = elements.filter((e) => e.stores !== undefined);
      const notRun = elements.filter((e) => e.error !== undefined);
      expect(done.length).toBeGreaterThanOrEqual(3);
      expect(notRun.length).toBeGreaterThan(0);
      expect(done.length + notRun.length).toBe(COMPANIES);
      expect(notRun.every((e) => e.error?.code === 'cancelled' && e.error.exitCode === 3)).toBe(true);
      // Nothing started after the signal: the Grants under way (2) at most were fetched after it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(details() - before).toBeLessThanOrEqual(done.length);
    }, 60_000);
  }

  it('a person sees one line for the companies not run, not one per company', async () => {
    const m = merchant();
    const details = () => (m.sandbox.stderr().match(/GET \/oauth2\/grants\/\S+ 200/g) ?? []).length;
    const before = details();
    const child = execa('node', [svcBin, 'grants', 'list', '--details', '--all-grants', '--concurrency', '2'], {
      env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', forceKillAfterDelay: 20_000,
    });
    for (const deadline = Date.now() + 30_000; details() - before < 3; ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('no Grant details fetched in time');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode, result.stderr).toBe(9);
    const lines = result.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(lines.filter((l) => /stopped by SIGTERM/.test(l))).toHaveLength(1);
    expect(lines.join('\n')).toMatch(/stopped by SIGTERM: \d+ of 30 Grants not run/);
    // The closing count says what happened to them: not run, never "could not be" done.
    const notRun = /stopped by SIGTERM: (\d+) of 30/.exec(lines.join('\n'))![1];
    expect(lines.at(-1)).toBe(`error: ${notRun} of 30 Grants not run (stopped)`);
    expect(result.stderr).not.toContain('could not be');
    expect(result.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
