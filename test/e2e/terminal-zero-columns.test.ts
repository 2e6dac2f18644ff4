// A terminal that reports 0 columns (`script -qc … /dev/null` without a terminal around it,
// `ssh -tt`, fresh containers) with a slow service: the spinner must not draw there, and
// nothing svc draws may keep it from finishing. Before, ora computed the lines to clear as
// width / 0 and wrote escapes forever at 100% CPU, deaf to SIGTERM.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, svcBin, svcEnv } from './helpers.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { useMerchant } from './merchant.js';
import { requireTools } from './require-tools.js';

const { merchant, dirs } = useMerchant();
let slow: FaultProxy;
let slower: FaultProxy;
beforeAll(async () => {
  slow = await startFaultProxy(merchant().sandbox.url, () => ({ kind: 'delay', ms: 600 }));
  slower = await startFaultProxy(merchant().sandbox.url, () => ({ kind: 'delay', ms: 15_000 }));
});
afterAll(() => Promise.all([slow.close(), slower.close()]));

/**
 * `svc ARGS` on a pseudo-terminal of `cols` columns (script's own), killed after 20 s: svc
 * stuck at 100% CPU ignores SIGTERM and outlives `script` (in a session of its own), so the
 * shell leaves its process ID, which `exec` hands on to svc.
 */
async function onTerminal(cols: number, args: string[], env: Record<string, string | undefined>, termAfterMs?: number) {
  const pidFile = join(await dirs.make('svc-pty-'), 'pid');
  const command = [`stty cols ${cols} rows ${cols === 0 ? 0 : 40};`, `echo $$ > ${pidFile};`, 'exec', 'node', svcBin, ...args].join(' ');
  const child = execa('script', ['-qec', command, '/dev/null'], {
    env: svcEnv(merchant().home, { TERM: 'xterm-256color', ...env }),
    extendEnv: false,
    cwd: repoRoot,
    reject: false,
    stdin: 'ignore',
    maxBuffer: 200_000_000,
  });
  const kill = async () => {
    const pid = Number(await readFile(pidFile, 'utf8').catch(() => ''));
    try {
      if (pid > 0) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  let timedOut = false;
  let termAt: number | undefined;
  const term = termAfterMs === undefined ? undefined : setTimeout(() => {
    void readFile(pidFile, 'utf8').then((pid) => {
      termAt = Date.now();
      process.kill(Number(pid), 'SIGTERM');
    });
  }, termAfterMs);
  const timer = setTimeout(() => {
    timedOut = true;
    void kill();
  }, 20_000);
  try {
    const run = await child;
    return { exitCode: run.exitCode, stdout: String(run.stdout), timedOut, endedAfterTermMs: termAt === undefined ? undefined : Date.now() - termAt };
  } finally {
    clearTimeout(timer);
    clearTimeout(term);
    await kill();
  }
}

describe('a terminal of 0 columns and a slow service', () => {
  it('receipt send finishes with its result and writes little besides', async (ctx) => {
    const missing = requireTools(['script']);
    if (missing) return ctx.skip(missing);
    const file = await merchant().newReceiptFile();
    const run = await onTerminal(0, ['receipt', 'send', '--file', file, '--email', 'alice@example.com'], { SVC_BASE_URL: slow.url });
    expect(run.timedOut, `${run.stdout.length} bytes written`).toBe(false);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    expect(run.stdout.length).toBeLessThan(2_000);
  }, 40_000);

  it('with CI set, a terminal of its width gets no spinner either', async (ctx) => {
    const missing = requireTools(['script']);
    if (missing) return ctx.skip(missing);
    const file = await merchant().newReceiptFile();
    const run = await onTerminal(100, ['receipt', 'send', '--file', file, '--email', 'alice@example.com'], { SVC_BASE_URL: slow.url, CI: 'true' });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    // No carriage-return redraws: a CI log keeps every frame.
    expect(run.stdout).not.toContain('\u001b[');
  }, 40_000);

  it('a terminal of its width gets a spinner, cleared before the result', async (ctx) => {
    const missing = requireTools(['script']);
    if (missing) return ctx.skip(missing);
    const file = await merchant().newReceiptFile();
    const run = await onTerminal(100, ['receipt', 'send', '--file', file, '--email', 'alice@example.com'], { SVC_BASE_URL: slow.url });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('\r\u001b[2K⠋ ');
    // The result starts a clean line: the spinner's line was cleared before it.
    expect(run.stdout).toMatch(/\r\u001b\[2K[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\r?\n/);
  }, 40_000);

  for (const cols of [0, 100]) {
    it(`SIGTERM while the answer is awaited (${cols} columns): svc ends at once, the spinner stands in no way`, async (ctx) => {
      const missing = requireTools(['script']);
      if (missing) return ctx.skip(missing);
      const file = await merchant().newReceiptFile();
      const run = await onTerminal(cols, ['receipt', 'send', '--file', file, '--email', 'alice@example.com'], { SVC_BASE_URL: slower.url }, 1_500);
      expect(run.timedOut, `${run.stdout.length} bytes written`).toBe(false);
      expect(run.endedAfterTermMs).toBeDefined();
      // Well before the answer (15 s) and the client's own timeout (30 s).
      expect(run.endedAfterTermMs).toBeLessThan(5_000);
      expect(run.exitCode).not.toBe(0);
      expect(run.stdout.length).toBeLessThan(cols === 0 ? 2_000 : 20_000);
    }, 40_000);
  }
});
