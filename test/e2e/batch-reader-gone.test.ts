// `svc receipt send --batch FILE | head -1`: the reader goes away after the first result
// while most lines are still to be issued. Ending quietly with exit 0 there (right for a
// command that only prints) would tell a `set -o pipefail` script that the batch was done;
// the batch stops instead, says so, and exits 3 (cancelled), and running it again finishes
// it with nothing issued twice.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runSvc, svcBin, svcEnv, tempDirs } from './helpers.js';
import { readLedgers } from './ledger.js';
import { startMerchant, type Merchant } from './merchant.js';

const dirs = tempDirs();
let m: Merchant;
let template: Record<string, unknown>;

beforeAll(async () => {
  m = await startMerchant(dirs);
  template = JSON.parse(await readFile(m.receiptFile, 'utf8')) as Record<string, unknown>;
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

async function serviceReceipts(): Promise<string[]> {
  const deliveries = await m.json<{ serviceReceiptId: string; kind: string }[]>(['sandbox', 'deliveries']);
  return [...new Set(deliveries.filter((d) => d.kind === 'RECEIPT').map((d) => d.serviceReceiptId))];
}

async function batchFile(prefix: string, count: number): Promise<string> {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ template: { ...template, documentNumber: `${prefix}-${i + 1}` }, email: 'alice@example.com' }));
  const file = join(await dirs.make('svc-batch-'), 'receipts.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** `set -o pipefail; svc … | head -1` as a CI script writes it: svc's own exit code and stderr. */
async function throughHead(args: readonly string[]): Promise<{ svcExit: number; first: string; stderr: string }> {
  const dir = await dirs.make('svc-head-');
  const quoted = ['node', svcBin, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = `set -o pipefail; ${quoted} 2>'${dir}/stderr' </dev/null | head -1; echo "svc-exit=\${PIPESTATUS[0]}"`;
  const run = await execa('bash', ['-c', script], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, timeout: 120_000 });
  const exit = /svc-exit=(\d+)/.exec(run.stdout);
  return { svcExit: Number(exit?.[1]), first: run.stdout.split('\n')[0] ?? '', stderr: await readFile(join(dir, 'stderr'), 'utf8') };
}

describe('receipt send --batch into a reader that stops early', () => {
  it('| head -1 with lines left: exit 3 naming what happened; run again, every line issued once', async () => {
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
    const issued = rerun.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { serviceReceiptId: string }).serviceReceiptId);
    expect(new Set(issued).size).toBe(30);
    const added = (await serviceReceipts()).filter((id) => !before.has(id));
    expect(added.sort()).toEqual([...issued].sort());
    expect((await readLedgers(m.home.stateDir)).open).toEqual([]);
  }, 180_000);
});
