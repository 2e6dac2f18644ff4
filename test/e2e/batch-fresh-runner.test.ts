// A CI batch retried on a fresh runner (the first runner died after issuing some lines): the
// service recognises each issued document by its derived Idempotency-Key and nothing is
// issued twice (exit 7, `already_submitted`). The line's error carries the receipt the
// service holds, `serviceReceiptId`, so that a script can collect every line's receipt
// (`--jq '.serviceReceiptId // .error.serviceReceiptId'`) without parsing the message.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';
import { loginAutoApproved } from './oauth-fixture.js';

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

type Line = { line: number; serviceReceiptId?: string; error?: { code: string; message: string; serviceReceiptId?: string } };
const parse = (stdout: string) => new Map(stdout.trim().split('\n').map((l) => JSON.parse(l) as Line).map((r) => [r.line, r]));

describe('receipt send --batch on a fresh runner after a first one issued some lines', () => {
  it('the issued lines fail as already_submitted with their serviceReceiptId; the rest are issued', async () => {
    const lines = [1, 2, 3].map((n) => JSON.stringify({ template: { ...template, documentNumber: `FR-${n}` }, email: 'alice@example.com' }));
    const dir = await dirs.make('svc-batch-');
    const firstTwo = join(dir, 'first.jsonl');
    const all = join(dir, 'all.jsonl');
    await writeFile(firstTwo, `${lines.slice(0, 2).join('\n')}\n`);
    await writeFile(all, `${lines.join('\n')}\n`);
    const first = await runSvc(['receipt', 'send', '--batch', firstTwo], { home: m.home, env: m.env });
    expect(first.exitCode, first.stderr).toBe(0);
    const issued = parse(first.stdout);

    const runner = await makeSvcHome(dirs);
    const login = await loginAutoApproved(runner, m.sandbox.url, m.fixture);
    expect(login.result.exitCode, login.result.stderr).toBe(0);
    const retry = await runSvc(['receipt', 'send', '--batch', all], { home: runner, env: m.env });
    expect(retry.exitCode, retry.stderr).toBe(9);
    const results = parse(retry.stdout);
    for (const n of [1, 2]) {
      expect(results.get(n)?.error?.code).toBe('already_submitted');
      expect(results.get(n)?.error?.serviceReceiptId).toBe(issued.get(n)?.serviceReceiptId);
    }
    expect(results.get(3)?.serviceReceiptId).toBeTruthy();
  }, 90_000);
});
