// `--jq EXPR` on commands that print JSON: real jq semantics (jq 1.7 in WebAssembly), strings
// raw, every value of an NDJSON stream filtered, and a filter jq refuses exits 2.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';

const dirs = tempDirs();
let m: Merchant;
let serviceReceiptId: string;
beforeAll(async () => {
  m = await startMerchant(dirs);
  serviceReceiptId = (await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com'])).serviceReceiptId;
  await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});
const jq = (args: string[]) => runSvc(args, { home: m.home, env: m.env });

describe('--jq', () => {
  it('receipt list: strings come out raw, one per line', async () => {
    const r = await jq(['receipt', 'list', '--jq', '.[].serviceReceiptId']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toContain(serviceReceiptId);
  });

  it('credit-note poll: select and build objects, as jq does', async () => {
    const r = await jq(['credit-note', 'poll', '--jq', `[.[] | select(.serviceReceiptId == "${serviceReceiptId}") | {id: .requestId, items: (.returnRequest.lineItems | length)}]`]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ id: expect.any(String), items: 1 }]);
  });

  it('svc api and an NDJSON stream (receipt send --batch): every value filtered', async () => {
    const api = await jq(['api', 'GET', '/credit-note', '--jq', 'length']);
    expect(api.exitCode, api.stderr).toBe(0);
    expect(Number(api.stdout.trim())).toBeGreaterThan(0);
    const template = JSON.parse(await readFile(m.receiptFile, 'utf8')) as Record<string, unknown>;
    const file = join(await dirs.make('svc-jq-'), 'b.jsonl');
    await writeFile(file, [1, 2].map((n) => JSON.stringify({ template: { ...template, documentNumber: `JQ-${n}` }, email: 'alice@example.com' })).join('\n'));
    const batch = await jq(['receipt', 'send', '--batch', file, '--jq', '.line']);
    expect(batch.exitCode, batch.stderr).toBe(0);
    expect(batch.stdout.trim().split('\n').sort()).toEqual(['1', '2']);
  });

  it('a filter jq refuses: exit 2 with jq\'s message, as a JSON error', async () => {
    const r = await jq(['receipt', 'list', '--jq', '.[']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { code: 'usage', message: expect.stringContaining('--jq: jq: error: syntax error') } });
  });

  it('a command that runs until stopped refuses --jq at once (exit 2) instead of never printing', async () => {
    for (const args of [['webhook', 'listen', '--port', '0'], ['credit-note', 'poll', '--watch']]) {
      const r = await runSvc([...args, '--jq', '.'], { home: m.home, env: { ...m.env, SVC_WEBHOOK_SECRET: 'whsec_test' }, timeout: 15_000 });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('runs until stopped');
    }
  });
});
