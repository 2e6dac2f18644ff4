// Several `webhook subscribe --all-grants` at once in one profile (a deploy starting on
// several hosts of one machine, a retry loop that does not wait): one subscription per
// company in the end, as with runs one after the other. Before, a run that looked for a
// subscription to reuse before another run kept its new one, and asked for its key after
// that run had dropped it, created a second one: 3 runs over 200 companies left 236, each
// extra one delivering every event of its company twice.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot, svcBin, svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';

const COMPANIES = 40;

describe('webhook subscribe --all-grants run several times at once', () => {
  const { merchant } = useMerchant(['--companies', String(COMPANIES), '--latency', '5-40ms']);

  it('leaves exactly one subscription per company, each reported by every run', async () => {
    const m = merchant();
    const url = 'http://127.0.0.1:9/parallel';
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        execa('node', [svcBin, 'webhook', 'subscribe', '--all-grants', '--url', url, '--json'], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' }),
      ),
    );
    for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
    const listed = await m.json<{ id: string; grantId: string; notificationUrl: string; onService: boolean | null; secretStored: boolean }[]>(['webhook', 'list', '--all-grants']);
    const mine = listed.filter((s) => s.notificationUrl === url && s.onService === true);
    expect(mine.length).toBe(COMPANIES);
    expect(new Set(mine.map((s) => s.grantId)).size).toBe(COMPANIES);
    expect(mine.every((s) => s.secretStored)).toBe(true);
    // Every run names, for each company, that one subscription.
    const ids = new Set(mine.map((s) => s.id));
    for (const r of runs) {
      const rows = JSON.parse(r.stdout) as { id: string }[];
      expect(rows.filter((row) => !ids.has(row.id))).toEqual([]);
    }
  }, 120_000);
});
