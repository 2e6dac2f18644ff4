// The partial-result contract (docs/interface-decisions.md#exit-codes, exit 9) for commands acting on
// several things: every element's result on stdout (failures as elements), the exit code 9
// when some succeeded, and under --json the last stderr line one JSON object, with no human
// `error:` line anywhere before it.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSvc, type SvcResult } from './helpers.js';
import { milkRequests, startMerchant, useMerchant } from './merchant.js';

const { merchant, dirs } = useMerchant();
const run = (args: string[]) => runSvc(args, { home: merchant().home, env: merchant().env });

/** Under --json: nothing human that says error, and the last stderr line is the JSON error. */
function expectJsonErrorLast(r: SvcResult, exitCode: number): void {
  const lines = r.stderr.trim().split('\n');
  expect(lines.filter((l) => /^(error|hint):/.test(l)), r.stderr).toEqual([]);
  expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ error: { code: exitCode === 9 ? 'partly_failed' : expect.any(String), exitCode } });
}

describe('accept / complete with several IDs, one of them failing', () => {
  it('--json: an array with every request, the failure as { requestId, error }; exit 9; the JSON error last', async () => {
    const [a] = await milkRequests(merchant(), 1);
    const r = await run(['credit-note', 'accept', a!, 'req-unknown-partial', '--json']);
    expect(r.exitCode, r.stderr).toBe(9);
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({ requestId: a, status: 'ACCEPTED' }),
      { requestId: 'req-unknown-partial', error: expect.objectContaining({ code: 'not_found', exitCode: 6 }) },
    ]);
    expectJsonErrorLast(r, 9);
  });

  it('human: one stdout line per request, the failure too (`ID error: …`); exit 9', async () => {
    const [a, b] = await milkRequests(merchant(), 2);
    await merchant().svc(['credit-note', 'accept', a!]);
    const r = await run(['credit-note', 'complete', a!, b!, '--yes', '--credited-elsewhere']);
    expect(r.exitCode, r.stderr).toBe(9);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe(`${a} COMPLETED`);
    expect(lines[1]).toMatch(new RegExp(`^${b} error: cannot move request ${b} to COMPLETED`));
    expect(lines).toHaveLength(2);
    expect(r.stderr.trim().split('\n').at(-1)).toBe('error: 1 of 2 requests were not moved to COMPLETED');
  });

  it('every one failing: their common code, each still an element', async () => {
    const r = await run(['credit-note', 'accept', 'req-unknown-p1', 'req-unknown-p2', '--json']);
    expect(r.exitCode).toBe(6);
    expect((JSON.parse(r.stdout) as { error: unknown }[]).map((e) => Object.keys(e))).toEqual([['requestId', 'error'], ['requestId', 'error']]);
    expectJsonErrorLast(r, 6);
  });
});

describe('receipt send --batch', () => {
  it('--json: every line on stdout, the failure as its element; exit 9; the JSON error last, no human line', async () => {
    const template = JSON.parse(await readFile(merchant().receiptFile, 'utf8')) as Record<string, unknown>;
    const file = join(await dirs.make('svc-partial-'), 'b.jsonl');
    await writeFile(file, [JSON.stringify({ template: { ...template, documentNumber: 'PARTIAL-1' }, email: 'alice@example.com' }), '{ not json'].join('\n'));
    const r = await run(['receipt', 'send', '--batch', file, '--json']);
    expect(r.exitCode, r.stderr).toBe(9);
    const results = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { line: number });
    expect(results.map((x) => x.line).sort()).toEqual([1, 2]);
    expectJsonErrorLast(r, 9);
  });
});

describe('grants list --details with every Grant revoked', () => {
  it('--json: each Grant still an element { grantId, companyId, error } on stdout, their common code, the JSON error last', async () => {
    const own = await startMerchant(dirs);
    try {
      const grants = await own.json<{ grant_id: string }[]>(['grants', 'list']);
      expect(grants.length).toBeGreaterThan(1);
      for (const g of grants) await own.svc(['sandbox', 'revoke', g.grant_id]);
      const r = await runSvc(['grants', 'list', '--details', '--json'], { home: own.home, env: own.env });
      expect(r.exitCode, r.stderr).toBe(4);
      const elements = JSON.parse(r.stdout) as { grantId: string; companyId: string; error: { exitCode: number } }[];
      expect(elements.map((e) => e.grantId).sort()).toEqual(grants.map((g) => g.grant_id).sort());
      expect(elements.every((e) => e.error.exitCode === 4 && e.companyId !== '')).toBe(true);
      expectJsonErrorLast(r, 4);
    } finally {
      await own.sandbox.stop();
    }
  }, 60_000);
});
