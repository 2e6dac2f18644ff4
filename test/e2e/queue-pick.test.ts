// A request ID left out, in a real terminal (tmux) against a sandbox: `credit-note accept`
// lists the open requests oldest first, the second is chosen with the arrow keys and only it
// is accepted; Esc backs out (exit 3, nothing changed). Without a terminal, or with
// --no-input on one, a missing ID is the usage error (exit 2) it always was.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runSvc, svcEnv } from './helpers.js';
import { milkRequests, queueStatuses, statusChanges, useMerchant } from './merchant.js';
import { displayWidth } from '../../src/io/width.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant } = useMerchant();

describe('a request ID left out', () => {
  it('on a terminal: the open requests oldest first; the second, chosen with the arrow keys, and only it, is accepted', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    await milkRequests(m, 3);
    const open = (await m.json<{ requestId: string; createdAt: string }[]>(['credit-note', 'poll', '--sort', 'created'])).map((q) => q.requestId);
    const before = await queueStatuses(m);

    const term = svcInTerminal('svc-pick', ['credit-note', 'accept'], svcEnv(m.home, m.env));
    try {
      await term.waitFor('? Which return request of Example Retail Ltd to accept?');
      await term.waitFor('↑↓ navigate');
      // The entries as drawn, in order: short IDs.
      const entries = term
        .text()
        .split('\n')
        .flatMap((line) => /^[❯ ] ([0-9a-f]{8}) {2}/.exec(line)?.[1] ?? []);
      expect(entries).toEqual(open.slice(0, 7).map((id) => id.slice(0, 8)));
      term.keys('Down');
      await term.waitFor(`❯ ${open[1]!.slice(0, 8)}`);
      term.keys('Enter');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain(`${open[1]} ACCEPTED`);
      expect(term.text()).toContain('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    expect(statusChanges(before, await queueStatuses(m))).toEqual({ [open[1]!]: 'ACCEPTED' });
  }, 60_000);

  it('on a terminal of 60 columns: each entry one line with its amount whole, what gave way named', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    await milkRequests(m, 1);
    const term = svcInTerminal('svc-pick-60', ['credit-note', 'accept'], svcEnv(m.home, m.env), [60, 20]);
    try {
      await term.waitFor('↑↓ navigate');
      const text = term.text();
      const entries = text.split('\n').filter((l) => /^[❯ ] [0-9a-f]{8} {2}/.test(l));
      expect(entries.length, text).toBeGreaterThan(0);
      for (const entry of entries) {
        expect(displayWidth(entry), text).toBeLessThanOrEqual(60);
        expect(entry, text).toMatch(/ \d+\.\d{2} EUR$/);
      }
      if (!entries.every((e) => / R-2025-/.test(e))) expect(text).toMatch(/not shown: RECEIPT/);
      term.keys('Escape');
      await term.waitFor('SVC-EXIT=');
    } finally {
      term.kill();
    }
  }, 60_000);

  it('on a terminal, Esc in the list: exit 3, nothing changed', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    await milkRequests(m, 1);
    const before = await queueStatuses(m);
    const term = svcInTerminal('svc-pick-esc', ['credit-note', 'reject'], svcEnv(m.home, m.env));
    try {
      await term.waitFor('↑↓ navigate');
      term.keys('Escape');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain('SVC-EXIT=3');
      expect(term.text()).toContain('cancelled: no request was chosen, nothing was changed');
    } finally {
      term.kill();
    }
    expect(statusChanges(before, await queueStatuses(m))).toEqual({});
  }, 60_000);

  it('on a terminal with --no-input: a missing ID is a usage error, exit 2', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    for (const args of [['credit-note', 'complete', '--no-input'], ['credit-note', 'issue', '--no-input']]) {
      const term = svcInTerminal('svc-no-input', args, svcEnv(m.home, m.env));
      try {
        await term.waitFor('SVC-EXIT=');
        expect(term.text(), args.join(' ')).toContain('SVC-EXIT=2');
        expect(term.text()).toContain('missing REQUEST-ID');
      } finally {
        term.kill();
      }
    }
  }, 60_000);

  it('without a terminal: a missing ID is a usage error naming it and where IDs come from, exit 2, nothing changed', async () => {
    const m = merchant();
    await milkRequests(m, 1);
    const before = await queueStatuses(m);
    for (const args of [['credit-note', 'accept'], ['credit-note', 'reject', '--yes'], ['credit-note', 'issue'], ['credit-note', 'status', 'ACCEPTED'], ['credit-note', 'show']]) {
      const r = await runSvc(args, { home: m.home, env: m.env });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain('missing REQUEST-ID: the return request; `svc credit-note poll` lists their IDs');
    }
    expect(statusChanges(before, await queueStatuses(m))).toEqual({});
  });
});

describe('a request ID left out, with many companies', () => {
  const many = useMerchant(['--companies', '3']);

  it('the picker says whose queue it lists, lists it oldest first as poll does (equal times too), and names the products the receipt record knows; at 60, 80 and 120 columns', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = many.merchant();
    // Bought 10 days ago, so requests can be dated back.
    const groceries = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'receipts', 'groceries.json'), 'utf8')) as Record<string, unknown>;
    const file = join(await many.dirs.make('svc-pick-'), 'groceries.json');
    await writeFile(file, JSON.stringify({ ...groceries, documentNumber: 'R-PICK-1', issueDate: new Date(Date.now() - 10 * 86_400_000).toISOString() }));
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', file, '--email', 'alice@example.com']);
    const trigger = (...args: string[]) => m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1', '--item', 'PLU-4011:1', ...args]);
    // Five asked at the same moment (one bulk), then two dated back: the same age, in the service's order, after the older ones.
    await trigger('--count', '5');
    await trigger('--age', '3h');
    await trigger('--age', '2d');
    const open = (await m.json<{ requestId: string }[]>(['credit-note', 'poll'])).map((q) => q.requestId.slice(0, 8));
    expect(open).toHaveLength(7);
    const company = /^company +(.+)$/m.exec((await m.svc(['credit-note', 'show', open[0]!])).stdout)?.[1];
    expect(company).toBeTruthy();

    for (const columns of [60, 80, 120]) {
      const term = svcInTerminal(`svc-pick-many-${columns}`, ['credit-note', 'reject'], svcEnv(m.home, m.env), [columns, 30]);
      try {
        await term.waitFor('↑↓ navigate');
        const screen = term.text();
        const flat = screen.replace(/\s+/g, ' ');
        expect(flat, `${columns} columns:\n${screen}`).toContain(`? Which return request of ${company} to reject?`);
        const rows = screen.split('\n').filter((line) => /^[❯ ] [0-9a-f]{8} {2}/.test(line));
        expect(rows.map((row) => row.slice(2, 10)), `${columns} columns:\n${screen}`).toEqual(open);
        for (const row of rows) {
          // The product by name, as the confirmation names it; not the product ID. The amount is
          // whole at every width, so at 60 the name gives way ("1 × Whole mi…").
          expect(row, `${columns} columns`).toMatch(/R-PICK-1 {2}1 × Whole/);
          expect(row, `${columns} columns`).toMatch(/ \d+\.\d{2} EUR$/);
          expect(row).not.toContain('4001234567890');
          expect(row.length).toBeLessThanOrEqual(columns);
        }
        if (columns >= 120) expect(rows[0]).toContain('1 × Whole milk 3.5% 1 l, 1 × Bananas');
        term.keys('Escape');
        await term.waitFor('SVC-EXIT=3');
      } finally {
        term.kill();
      }
    }

    // The way to another company's queue, as the question says: --grant with its name.
    const other = (await m.json<{ company_legal_name: string }[]>(['grants', 'list'])).find((g) => g.company_legal_name !== company)!.company_legal_name;
    const theirs = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'bob@example.com', '--grant', other]);
    const asked = (await m.svc(['sandbox', 'trigger', 'return-request', theirs.serviceReceiptId, '--item', 'PLU-4011:1'])).stdout.trim();
    const term = svcInTerminal('svc-pick-other', ['credit-note', 'show', '--grant', other], svcEnv(m.home, m.env), [80, 30]);
    try {
      await term.waitFor(/SVC-EXIT=|navigate/);
      expect(term.text().replace(/\s+/g, ' ')).toContain(`? Which return request of ${other} to show?`);
      expect(term.text()).toMatch(new RegExp(`^❯ ${asked.slice(0, 8)} .* 1 × Bananas`, 'm'));
    } finally {
      term.kill();
    }
  }, 90_000);
});
