// `svc receipt send --batch` as a CI script runs it, on the built binary against a sandbox:
// - into a reader that stops early (`| head -1`) with lines left: ending quietly with exit 0
//   (right for a command that only prints) would tell a `set -o pipefail` script the batch
//   was done; it stops, says how far it got, exits 3, and running it again finishes it;
// - the service's warnings on a line (a totalAmount that is not totalBeforeTax +
//   totalTaxAmount: the interface only says "should", so the receipt is issued) reach the log
//   named by line, and the line's result, instead of being dropped;
// - retried on a fresh runner after a first one issued some lines: nothing is issued twice,
//   and each `already_submitted` error carries the receipt the service holds.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv } from './helpers.js';
import { readLedgers } from './ledger.js';
import { useMerchant } from './merchant.js';
import { loginAutoApproved } from './oauth-fixture.js';

const { merchant, dirs } = useMerchant();

type Line = { line: number; serviceReceiptId?: string; warnings?: string[]; error?: { code: string; message: string; serviceReceiptId?: string } };
const byLine = (stdout: string) => new Map(stdout.trim().split('\n').map((l) => JSON.parse(l) as Line).map((r) => [r.line, r]));

async function serviceReceipts(): Promise<string[]> {
  const deliveries = await merchant().json<{ serviceReceiptId: string; kind: string }[]>(['sandbox', 'deliveries']);
  return [...new Set(deliveries.filter((d) => d.kind === 'RECEIPT').map((d) => d.serviceReceiptId))];
}

/** A batch file of `count` lines (documents PREFIX-1…), each changed by `change`. */
async function batchFile(prefix: string, count: number, change: (n: number) => Record<string, unknown> = () => ({})): Promise<string> {
  const template = JSON.parse(await readFile(merchant().receiptFile, 'utf8')) as Record<string, unknown>;
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ template: { ...template, documentNumber: `${prefix}-${i + 1}`, ...change(i + 1) }, email: 'alice@example.com' }));
  const file = join(await dirs.make('svc-batch-'), `${prefix}.jsonl`);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** `set -o pipefail; svc … | head -1` as a CI script writes it: svc's own exit code and stderr. */
async function throughHead(args: readonly string[], stderrToo = false): Promise<{ svcExit: number; first: string; stderr: string }> {
  const m = merchant();
  const dir = await dirs.make('svc-head-');
  const quoted = ['node', svcBin, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  await writeFile(join(dir, 'stderr'), '');
  const script = `set -o pipefail; ${quoted} ${stderrToo ? '2>&1' : `2>'${dir}/stderr'`} </dev/null | head -1; echo "svc-exit=\${PIPESTATUS[0]}"`;
  const run = await execa('bash', ['-c', script], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, timeout: 120_000 });
  const exit = /svc-exit=(\d+)/.exec(run.stdout);
  return { svcExit: Number(exit?.[1]), first: run.stdout.split('\n')[0] ?? '', stderr: await readFile(join(dir, 'stderr'), 'utf8') };
}

describe('receipt send --batch in a CI script', () => {
  it('an empty batch file (a generator that wrote nothing): exit 0, nothing on stdout, and a note saying there was nothing to send', async () => {
    for (const text of ['', '\n\n', '\ufeff']) {
      const file = join(await dirs.make('svc-batch-'), 'empty.jsonl');
      await writeFile(file, text);
      const run = await runSvc(['receipt', 'send', '--batch', file], { home: merchant().home, env: merchant().env });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('has no lines: nothing was sent');
    }
  });

  it('| head -1 with lines left: exit 3 naming what happened; run again, every line issued once', async () => {
    const m = merchant();
    const file = await batchFile('HEAD', 30);
    const before = new Set(await serviceReceipts());

    const cut = await throughHead(['receipt', 'send', '--batch', file, '--concurrency', '1']);
    expect(JSON.parse(cut.first)).toMatchObject({ line: 1 });
    expect(cut.svcExit, cut.stderr).toBe(3);
    expect(cut.stderr).toMatch(/standard output was closed after \d+ of 30 lines/);
    expect(cut.stderr).toContain('run the same command again');
    const issuedBefore = (await serviceReceipts()).filter((id) => !before.has(id)).length;
    expect(issuedBefore).toBeGreaterThanOrEqual(1);
    expect(issuedBefore).toBeLessThan(30);

    const rerun = await runSvc(['receipt', 'send', '--batch', file], { home: m.home, env: m.env, timeout: 120_000 });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const issued = [...byLine(rerun.stdout).values()].map((r) => r.serviceReceiptId);
    expect(new Set(issued).size).toBe(30);
    const added = (await serviceReceipts()).filter((id) => !before.has(id));
    expect(added.sort()).toEqual([...issued].sort());
    expect((await readLedgers(m.home.stateDir)).open).toEqual([]);
  }, 180_000);

  it('2>&1 | head -1: the closed pipe takes the error message too, and the exit code stays 3', async () => {
    const m = merchant();
    const file = await batchFile('BOTH', 30);
    const cut = await throughHead(['receipt', 'send', '--batch', file, '--concurrency', '1'], true);
    expect(JSON.parse(cut.first)).toMatchObject({ line: 1 });
    expect(cut.svcExit).toBe(3);
    const rerun = await runSvc(['receipt', 'send', '--batch', file], { home: m.home, env: m.env, timeout: 120_000 });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
  }, 180_000);

  it('the service\'s warnings on a line: on stderr with the line number, and in that line\'s result; the other lines have none', async () => {
    const m = merchant();
    const file = await batchFile('WARN', 2, (n) => (n === 2 ? { totalAmount: 99 } : {}));
    const run = await runSvc(['receipt', 'send', '--batch', file], { home: m.home, env: m.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^warning: line 2: totalAmount 99\.00 EUR is not totalBeforeTax \+ totalTaxAmount/m);
    expect(run.stderr).not.toMatch(/line 1:/);
    const results = byLine(run.stdout);
    expect(results.get(1)?.warnings).toBeUndefined();
    expect(results.get(2)?.serviceReceiptId).toBeTruthy();
    expect(results.get(2)?.warnings).toEqual([expect.stringMatching(/^totalAmount 99\.00 EUR is not totalBeforeTax \+ totalTaxAmount/)]);
  }, 60_000);

  it('retried on a fresh runner: the issued lines fail as already_submitted with their serviceReceiptId; the rest are issued', async () => {
    const m = merchant();
    const firstTwo = await batchFile('FRESH', 2);
    const all = await batchFile('FRESH', 3);
    const first = await runSvc(['receipt', 'send', '--batch', firstTwo], { home: m.home, env: m.env });
    expect(first.exitCode, first.stderr).toBe(0);
    const issued = byLine(first.stdout);

    const runner = await makeSvcHome(dirs);
    const login = await loginAutoApproved(runner, m.sandbox.url, m.fixture);
    expect(login.result.exitCode, login.result.stderr).toBe(0);
    const retry = await runSvc(['receipt', 'send', '--batch', all], { home: runner, env: m.env });
    expect(retry.exitCode, retry.stderr).toBe(9);
    const results = byLine(retry.stdout);
    for (const n of [1, 2]) {
      expect(results.get(n)?.error?.code).toBe('already_submitted');
      expect(results.get(n)?.error?.serviceReceiptId).toBe(issued.get(n)?.serviceReceiptId);
    }
    expect(results.get(3)?.serviceReceiptId).toBeTruthy();
    // The hint is true of those lines: running the batch again changes nothing for them.
    expect(retry.stderr).toContain('every one already_submitted: its document number is a receipt issued before');
    expect(retry.stderr).not.toContain('fix those lines');
    const again = await runSvc(['receipt', 'send', '--batch', firstTwo], { home: runner, env: m.env });
    expect(again.exitCode, again.stderr).toBe(7);
    expect(again.stderr).toContain('every one already_submitted: its document number is a receipt issued before (its serviceReceiptId is on its line), so running the batch again changes nothing for it; give a new receipt its own documentNumber');
    expect(again.stderr).not.toContain('fix those lines');
  }, 90_000);
});
