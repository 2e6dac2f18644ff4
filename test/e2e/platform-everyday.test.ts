// The everyday commands of a platform acting for many companies: a hint names the company
// and the command that finds its requests; a document number (each company numbers its own)
// finds every receipt with it across companies and asks which company where one is needed;
// --sort receipt sorts by what the table shows.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runSvc, svcEnv } from './helpers.js';
import { useMerchant, type Merchant } from './merchant.js';
import { svcInTerminal } from './tmux.js';

interface Polled {
  requestId: string;
  serviceReceiptId: string;
  grantId: string;
  returnRequest?: { receiptId: string };
}

describe('a platform acting for several companies, day to day', () => {
  const { merchant, dirs } = useMerchant(['--companies', '6']);

  async function receiptNumbered(documentNumber: string): Promise<string> {
    const groceries = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'receipts', 'groceries.json'), 'utf8')) as Record<string, unknown>;
    const file = join(await dirs.make('svc-receipt-'), `${documentNumber}.json`);
    await writeFile(file, JSON.stringify({ ...groceries, issueDate: new Date().toISOString(), documentNumber }));
    return file;
  }
  async function send(m: Merchant, documentNumber: string, grant?: string): Promise<string> {
    const args = ['receipt', 'send', '--file', await receiptNumbered(documentNumber), '--email', 'alice@example.com', ...(grant === undefined ? [] : ['--grant', grant])];
    return (await m.json<{ serviceReceiptId: string }>(args)).serviceReceiptId;
  }

  it("trigger return-request for another company's receipt names that company and `poll --grant <its tax ID>`", async () => {
    const m = merchant();
    const receipt = await send(m, 'R-HINT-1', 'EU900000004');
    const triggered = await m.svc(['sandbox', 'trigger', 'return-request', receipt, '--item', '4001234567890:1']);
    expect(triggered.stderr).toContain('Platform Shop 00004 GmbH (EU900000004)');
    expect(triggered.stderr).toContain('`svc credit-note poll --grant EU900000004`');
    const found = await m.json<Polled[]>(['credit-note', 'poll', '--grant', 'EU900000004']);
    expect(found.map((q) => q.requestId)).toContain(triggered.stdout.trim());
  });

  it('a document number across companies: every receipt with it (--all-grants), and trigger asks which company (--grant)', async () => {
    const m = merchant();
    await send(m, 'R-2025-002311');
    const ofFour = await send(m, 'R-2025-002311', 'EU900000004');
    await send(m, 'R-2025-002311', 'EU900000005');
    const ambiguous = await runSvc(['sandbox', 'trigger', 'return-request', 'R-2025-002311', '--item', '4001234567890:1'], { home: m.home, env: m.env });
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toContain('Platform Shop 00004 GmbH (EU900000004)');
    expect(ambiguous.stderr).toContain('--grant');
    const chosen = await m.svc(['sandbox', 'trigger', 'return-request', 'R-2025-002311', '--grant', 'EU900000004', '--item', '4001234567890:1']);
    // The spread puts a request on the same document number in every company.
    await m.svc(['sandbox', 'trigger', 'return-request', ofFour, '--companies', '6', '--item', '4001234567890:1']);
    const all = await m.json<Polled[]>(['credit-note', 'poll', '--all-grants', '--all']);
    const withNumber = all.filter((q) => q.returnRequest?.receiptId === 'R-2025-002311');
    expect(withNumber.length).toBeGreaterThanOrEqual(7);
    const filtered = await m.json<Polled[]>(['credit-note', 'poll', '--all-grants', '--all', '--receipt', 'R-2025-002311']);
    expect(filtered.map((q) => q.requestId).sort()).toEqual(withNumber.map((q) => q.requestId).sort());
    expect(filtered.map((q) => q.requestId)).toContain(chosen.stdout.trim());
    // The table's count line counts what it shows, not what was read before the number matched.
    const other = await send(m, 'R-2025-OTHER-1', 'EU900000004');
    await m.svc(['sandbox', 'trigger', 'return-request', other, '--item', '4001234567890:1']);
    const term = svcInTerminal('everyday-count', ['credit-note', 'poll', '--all-grants', '--receipt', 'R-2025-002311'], svcEnv(m.home, m.env), [160, 40]);
    try {
      await term.waitFor(/SVC-EXIT=\d+/, 'the end of the poll');
      const table = term.text();
      expect(table).toContain('SVC-EXIT=0');
      expect(table, table).not.toMatch(/ of \d+ shown/);
      expect(table).toMatch(new RegExp(`^${filtered.length} requests · .*· in (\\d+ of )?\\d+ companies`, 'm'));
    } finally {
      term.kill();
    }
  });

  it('--all-grants --receipt by a prefix of a document number: the requests one Grant finds by it; a prefix of several numbers exits 2 naming them, as under one Grant', async () => {
    const m = merchant();
    const receipt = await send(m, 'R-2026-000220', 'EU900000003');
    await send(m, 'R-2026-000210', 'EU900000003');
    await send(m, 'R-2026-000211');
    const request = (await m.svc(['sandbox', 'trigger', 'return-request', receipt, '--item', '4001234567890:1'])).stdout.trim();
    const one = await m.json<Polled[]>(['credit-note', 'poll', '--grant', 'EU900000003', '--all', '--receipt', 'R-2026-00022']);
    expect(one.map((q) => q.requestId)).toEqual([request]);
    const all = await m.json<Polled[]>(['credit-note', 'poll', '--all-grants', '--all', '--receipt', 'R-2026-00022']);
    expect(all.map((q) => q.requestId)).toEqual([request]);
    for (const grants of [['--grant', 'EU900000003'], ['--all-grants']]) {
      const ambiguous = await runSvc(['credit-note', 'poll', ...grants, '--all', '--receipt', 'R-2026-0002'], { home: m.home, env: m.env });
      expect(ambiguous.exitCode, `${grants.join(' ')}\n${ambiguous.stdout}\n${ambiguous.stderr}`).toBe(2);
      expect(ambiguous.stderr).toContain('receipt document number "R-2026-0002" is ambiguous: it starts 3 IDs: R-2026-000210, R-2026-000211, R-2026-000220');
    }
  });

  it("issue --complete again of a request of a company that is not the default, issued here: \"issued here on …\", not \"elsewhere\"", async () => {
    const m = merchant();
    const receipt = await send(m, 'R-AGAIN-1', 'EU900000004');
    const request = (await m.svc(['sandbox', 'trigger', 'return-request', receipt, '--item', '4001234567890:1'])).stdout.trim();
    await m.svc(['credit-note', 'poll', '--all-grants']);
    const first = await m.svc(['credit-note', 'issue', request.slice(0, 8), '--complete', '--yes']);
    expect(first.stderr).toContain('for Platform Shop 00004 GmbH');
    const again = await m.svc(['credit-note', 'issue', request.slice(0, 8), '--complete', '--yes']);
    expect(again.stderr).toMatch(new RegExp(`request ${request}: already credited by CN-R-AGAIN-1-1 \\(issued here on \\d{4}-\\d{2}-\\d{2}T[^)]*\\); completed`));
    expect(again.stderr).not.toContain('elsewhere');
    expect(again.stdout.trim()).toBe(first.stdout.trim());
  });

  it("show, accept, reject, complete and issue of another company's request not polled under its Grant: name the company searched, and a hint that finds it when followed", async () => {
    const m = merchant();
    const receipt = await send(m, 'R-UNSEEN-1', 'EU900000005');
    const request = (await m.svc(['sandbox', 'trigger', 'return-request', receipt, '--item', '4001234567890:1'])).stdout.trim();
    const prefix = request.slice(0, 8);
    for (const verb of [['show'], ['accept'], ['reject', '--yes'], ['complete', '--yes', '--credited-elsewhere'], ['issue', '--yes']]) {
      const r = await runSvc(['credit-note', verb[0]!, prefix, ...verb.slice(1)], { home: m.home, env: m.env });
      const said = `${verb.join(' ')}: exit ${r.exitCode}\n${r.stdout}\n${r.stderr}`;
      expect(r.exitCode, said).toBe(6);
      expect(r.stderr, said).toMatch(new RegExp(`error: no return request ${prefix} in the queue of Example Retail Ltd \\(EU000000001\\)$`, 'm'));
      expect(r.stderr, said).toContain('`svc credit-note poll --all-grants`');
      expect(r.stderr, said).not.toMatch(/hint: see the outstanding requests with `svc credit-note poll`$/m);
    }
    // With --grant, the same command again would search the same queue: the hint says to leave it out.
    const granted = await runSvc(['credit-note', 'show', prefix, '--grant', 'EU000000001'], { home: m.home, env: m.env });
    expect(granted.exitCode).toBe(6);
    expect(granted.stderr).toContain('then run this again without --grant');
    // The hint, followed literally, finds it; the same command then acts for its company.
    const polled = await m.svc(['credit-note', 'poll', '--all-grants']);
    expect(polled.stdout).toContain('Platform Shop 00005 GmbH');
    const shown = await m.svc(['credit-note', 'show', prefix]);
    expect(shown.stdout).toContain('Platform Shop 00005 GmbH');
  });

  it('--all-grants --sort receipt: by company, then the document number in natural order', async () => {
    const m = merchant();
    for (const number of ['R-SORT-10', 'R-SORT-2', 'R-SORT-1']) {
      for (const grant of ['EU900000006', 'EU000000002']) {
        const id = await send(m, number, grant);
        await m.svc(['sandbox', 'trigger', 'return-request', id, '--item', '4001234567890:1']);
      }
    }
    const grants = await m.json<{ grant_id: string; company_legal_name: string }[]>(['grants', 'list']);
    const company = new Map(grants.map((g) => [g.grant_id, g.company_legal_name]));
    const sorted = await m.json<Polled[]>(['credit-note', 'poll', '--all-grants', '--all', '--sort', 'receipt']);
    const shown = sorted.filter((q) => q.returnRequest?.receiptId.startsWith('R-SORT-')).map((q) => `${company.get(q.grantId)} ${q.returnRequest?.receiptId}`);
    expect(shown).toEqual([
      'Platform Shop 00006 GmbH R-SORT-1',
      'Platform Shop 00006 GmbH R-SORT-2',
      'Platform Shop 00006 GmbH R-SORT-10',
      'Sample Foods GmbH R-SORT-1',
      'Sample Foods GmbH R-SORT-2',
      'Sample Foods GmbH R-SORT-10',
    ]);
  });
});
