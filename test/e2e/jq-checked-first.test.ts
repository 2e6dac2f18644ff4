// `--jq` with a filter jq cannot compile, on a command that does something (`receipt send`):
// the filter is refused (exit 2) before the command runs. Found only once the command had
// finished, the receipt was issued and the command then exited 2, "usage or invalid input",
// which a CI script reads as nothing done. A filter only jq itself runs (not the JavaScript
// fast path) is checked the same way and still filters the output as `--json | jq -r` does.
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { useMerchant } from './merchant.js';

const { merchant } = useMerchant();

async function receiptsOnService(): Promise<number> {
  const deliveries = await merchant().json<{ serviceReceiptId: string; kind: string }[]>(['sandbox', 'deliveries']);
  return new Set(deliveries.filter((d) => d.kind === 'RECEIPT').map((d) => d.serviceReceiptId)).size;
}

describe('--jq is checked before the command runs', () => {
  it('a filter jq cannot compile: exit 2 naming --jq, and no receipt issued', async () => {
    const m = merchant();
    const before = await receiptsOnService();
    for (const filter of ['.[', '.serviceReceiptId | nosuchfunction']) {
      const run = await runSvc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--jq', filter], { home: m.home, env: m.env });
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('"message":"--jq: jq: error');
      expect(run.stderr).not.toContain('issued to');
    }
    expect(await receiptsOnService()).toBe(before);
    expect(JSON.parse((await m.svc(['receipt', 'list', '--json'])).stdout)).toEqual([]);
  });

  it('a filter only jq runs still works after the check', async () => {
    const m = merchant();
    const run = await runSvc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--jq', '.serviceReceiptId | test("^[0-9a-f-]{36}$")'], { home: m.home, env: m.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe('true\n');
  });
});
