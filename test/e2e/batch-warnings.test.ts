// The service's warnings on a batch line (a totalAmount that is not totalBeforeTax +
// totalTaxAmount: the interface only says "should", so the receipt is issued) reach the CI
// log as `receipt send --file` shows them, named by line, and the line's result carries them
// for a script (`--jq 'select(.warnings)'`); a batch used to issue such a receipt in silence.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, tempDirs } from './helpers.js';
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

describe('receipt send --batch: the service\'s warnings on a line', () => {
  it('are on stderr with the line number, and in that line\'s result; the other lines have none', async () => {
    const lines = [
      { template: { ...template, documentNumber: 'W-1' }, email: 'alice@example.com' },
      { template: { ...template, documentNumber: 'W-2', totalAmount: 99 }, email: 'alice@example.com' },
    ];
    const file = join(await dirs.make('svc-batch-'), 'receipts.jsonl');
    await writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);

    const run = await runSvc(['receipt', 'send', '--batch', file], { home: m.home, env: m.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^warning: line 2: totalAmount 99\.00 EUR is not totalBeforeTax \+ totalTaxAmount/m);
    expect(run.stderr).not.toMatch(/line 1:/);
    const results = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { line: number; serviceReceiptId: string; warnings?: string[] });
    const byLine = new Map(results.map((r) => [r.line, r]));
    expect(byLine.get(1)?.warnings).toBeUndefined();
    expect(byLine.get(2)?.serviceReceiptId).toBeTruthy();
    expect(byLine.get(2)?.warnings).toEqual([expect.stringMatching(/^totalAmount 99\.00 EUR is not totalBeforeTax \+ totalTaxAmount/)]);

  }, 60_000);
});
