// `svc receipt send --batch FILE.jsonl` on the built binary: 500 lines, 3 of them bad,
// killed (SIGKILL) half-way and run again — every good line issued exactly once on the
// service, the bad ones reported by line and field, the ledger equal to the service; and the
// progress bar as a person sees it, in a real terminal (tmux).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runSvc, svcBin, svcEnv, tempDirs } from './helpers.js';
import { shellAssignments, tmux } from './tmux.js';
import { readLedgers } from './ledger.js';
import { startMerchant, type Merchant } from './merchant.js';
import { requireTools } from './require-tools.js';

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

type Result = { line: number; serviceReceiptId?: string; error?: { code: string; message: string; details?: { path: string }[] } };
const parse = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Result);

describe('receipt send --batch', () => {
  it('500 lines, 3 bad, killed half-way and run again: 497 receipts, each once; the bad lines named by number and field', async () => {
    const BAD = new Map<number, string>([
      [7, '{"template": {"documentNumber": "B-7"}, "email": "alice@example.com"}'],
      [250, 'not json'],
      [420, JSON.stringify({ template: { ...template, documentNumber: 'B-420' }, email: 'alice@example.com', phone: '+4915100000001' })],
    ]);
    const lines = Array.from({ length: 500 }, (_, i) => BAD.get(i + 1) ?? JSON.stringify({ template: { ...template, documentNumber: `B-${i + 1}` }, email: 'alice@example.com' }));
    const file = join(await dirs.make('svc-batch-'), 'receipts.jsonl');
    await writeFile(file, `${lines.join('\n')}\n`);
    const before = new Set(await serviceReceipts());

    // Killed once half of the lines have their result.
    const child = execa('node', [svcBin, 'receipt', 'send', '--batch', file], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
    let seen = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString().split('\n').length - 1;
      if (seen >= 250) child.kill('SIGKILL');
    });
    const killed = await child;
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const issuedBeforeKill = (await serviceReceipts()).filter((id) => !before.has(id)).length;
    expect(issuedBeforeKill).toBeGreaterThan(100);
    expect(issuedBeforeKill).toBeLessThan(497);

    const rerun = await runSvc(['receipt', 'send', '--batch', file, '--concurrency', '8'], { home: m.home, env: m.env, timeout: 180_000 });
    expect(rerun.exitCode, rerun.stderr).toBe(9);
    expect(rerun.stderr).toContain('3 of 500 receipts failed (lines 7, 250, 420)');
    const results = parse(rerun.stdout);
    expect(results.map((r) => r.line).sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    const failed = results.filter((r) => r.error).sort((a, b) => a.line - b.line);
    expect(failed.map((r) => [r.line, r.error?.code])).toEqual([
      [7, 'validation_failed'],
      [250, 'invalid_json'],
      [420, 'validation_failed'],
    ]);
    expect(failed[0]?.error?.details?.map((d) => d.path)).toContain('template.currency');
    expect(failed[2]?.error?.details?.map((d) => d.path)).toEqual(['email, phone']);

    const issued = results.flatMap((r) => (r.serviceReceiptId ? [r.serviceReceiptId] : []));
    expect(new Set(issued).size).toBe(497);
    const added = (await serviceReceipts()).filter((id) => !before.has(id));
    expect(added.sort()).toEqual([...issued].sort());
    const ledger = await readLedgers(m.home.stateDir);
    expect(ledger.open).toEqual([]);
    expect(ledger.receipts.filter((r) => r.documentNumber.startsWith('B-')).map((r) => r.serviceReceiptId).sort()).toEqual([...issued].sort());
  }, 300_000);

  it('draws done/total, rate and ETA on a terminal, and leaves only the results: stdout to a file, on the terminal, through a pipe', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const env = svcEnv(m.home, m.env);
    const exports = shellAssignments(env, ['NO_COLOR']);
    for (const [mode, redirect] of [['file', '> OUT'], ['terminal', ''], ['pipe', '| cat']] as const) {
      const file = join(await dirs.make('svc-batch-tty-'), 'receipts.jsonl');
      await writeFile(file, Array.from({ length: 30 }, (_, i) => JSON.stringify({ template: { ...template, documentNumber: `T-${mode}-${i + 1}` }, email: 'alice@example.com' })).join('\n'));
      const out = join(await dirs.make('svc-batch-out-'), 'results.ndjson');
      const session = `svc-batch-${mode}-${process.pid}`;
      tmux(['new-session', '-d', '-s', session, '-x', '120', '-y', '50', `env -u CI ${exports} node ${svcBin} receipt send --batch ${file} --concurrency 2 ${redirect.replace('OUT', out)}; echo BATCH-EXIT=$?; sleep 30`]);
      try {
        const frames: string[] = [];
        for (let i = 0; i < 300; i++) {
          const screen = tmux(['capture-pane', '-p', '-t', session]);
          frames.push(screen);
          if (screen.includes('BATCH-EXIT=')) break;
          await new Promise((r) => setTimeout(r, 30));
        }
        const last = tmux(['capture-pane', '-p', '-S', '-', '-t', session]);
        expect(last, mode).toContain('BATCH-EXIT=0');
        if (mode === 'file') expect(frames.some((s) => /\[[#-]{24}\] \d+\/30 · \d+\.\d\/s · ETA (\d+s|\?)/.test(s)), frames.join('\n====\n')).toBe(true);
        // Nothing of the bar is left, and each result is a line of its own.
        expect(last, mode).not.toMatch(/\d+\/30 ·|\[[#-]{24}\]/);
        if (mode !== 'file') {
          const results = last.split('\n').filter((l) => l.includes('"line":'));
          expect(results, `${mode}:\n${last}`).toHaveLength(30);
          for (const line of results) expect(line, `${mode}:\n${last}`).toMatch(/^\{"line":\d+,"serviceReceiptId":"[^"]+"\}$/);
        }
      } finally {
        tmux(['kill-session', '-t', session]);
      }
      if (mode === 'file') expect(parse(await readFile(out, 'utf8')).filter((r) => r.serviceReceiptId)).toHaveLength(30);
    }
  }, 180_000);
});
