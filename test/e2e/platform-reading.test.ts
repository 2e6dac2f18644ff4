// What a support engineer at a platform of 150 companies reads (tmux at 60, 80 and 120
// columns): count lines that keep every figure, a COMPANY column that gives way before
// STATUS and AGE, the queue oldest first across companies, lists that name what they left
// out, and companies found by part of their name.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { repoRoot, runSvc, svcEnv } from './helpers.js';
import { useMerchant, type Merchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant, dirs } = useMerchant(['--companies', '150']);
const MILK = '4001234567890:1';

/** A receipt bought 10 days ago (so requests can be aged), sent under `grant` (default: the profile's). */
async function sendOld(m: Merchant, documentNumber: string, grant?: string): Promise<string> {
  const groceries = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'receipts', 'groceries.json'), 'utf8')) as Record<string, unknown>;
  const file = join(await dirs.make('svc-receipt-'), `${documentNumber}.json`);
  await writeFile(file, JSON.stringify({ ...groceries, issueDate: new Date(Date.now() - 10 * 86_400_000).toISOString(), documentNumber }));
  const args = ['receipt', 'send', '--file', file, '--email', 'alice@example.com', ...(grant === undefined ? [] : ['--grant', grant])];
  return (await m.json<{ serviceReceiptId: string }>(args)).serviceReceiptId;
}

async function request(m: Merchant, receipt: string, age: string): Promise<string> {
  return (await m.svc(['sandbox', 'trigger', 'return-request', receipt, '--item', MILK, '--age', age, '--note', 'the milk was sour when we opened it at home'])).stdout.trim();
}

/** The request IDs, oldest first. */
let oldestFirst: string[] = [];

beforeAll(async () => {
  const m = merchant();
  // Example Retail Ltd (the default, company 1) has the newest and the oldest but one.
  const retail = await sendOld(m, 'R-RETAIL-1');
  const shop5 = await sendOld(m, 'R-SHOP5-1', 'EU900000005');
  const shop7 = await sendOld(m, 'R-SHOP7-1', 'EU900000007');
  const shop9 = await sendOld(m, 'R-SHOP9-1', 'EU900000009');
  const shop11 = await sendOld(m, 'R-SHOP11-1', 'EU900000011');
  const r5d = await request(m, retail, '5d');
  const r1d = await request(m, retail, '1d');
  const s6d = await request(m, shop5, '6d');
  const s3d = await request(m, shop7, '3d');
  const s2d = await request(m, shop9, '2d');
  const s4d = await request(m, shop11, '4d');
  oldestFirst = [s6d, r5d, s4d, s3d, s2d, r1d];
  await m.svc(['credit-note', 'poll', '--all-grants']);
  // 2 pending (r1d, s2d), 1 accepted (s3d), 2 partially accepted (s6d, r5d), 1 completed (s4d).
  await m.svc(['credit-note', 'accept', s3d]);
  for (const id of [s6d, r5d]) await m.svc(['credit-note', 'accept', id, '--item', MILK]);
  await m.svc(['credit-note', 'accept', s4d]);
  await m.svc(['credit-note', 'complete', s4d, '--yes', '--credited-elsewhere']);
}, 240_000);

/** `svc ARGS` at WIDTH columns, run to its end: its lines (wrapped lines joined back, -J), none wider than the terminal. */
async function printedAt(name: string, width: number, args: readonly string[]): Promise<string[]> {
  const m = merchant();
  const term = svcInTerminal(`${name}-${width}`, args, svcEnv(m.home, m.env), [width, 40]);
  try {
    await term.waitFor(/SVC-EXIT=\d+/, `the end of svc ${args.join(' ')}`, 60_000);
    const text = term.text();
    expect(text, text).toContain('SVC-EXIT=0');
    const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('SVC-EXIT='));
    for (const line of lines) expect(displayWidth(line), `${line}\n${text}`).toBeLessThanOrEqual(width);
    return lines;
  } finally {
    term.kill();
  }
}

/** The queue screen at WIDTH columns, once its count line is drawn: its lines. */
async function screenAt(name: string, width: number, args: readonly string[]): Promise<string[]> {
  const m = merchant();
  const term = svcInTerminal(`${name}-${width}`, ['credit-note', 'poll', '--watch', '--interval', '600', ...args], svcEnv(m.home, m.env), [width, 20]);
  try {
    await term.waitFor(/\d+ requests? · /, 'the count line', 60_000);
    await new Promise((r) => setTimeout(r, 300));
    const text = term.text();
    const lines = text.replace(/\n+$/, '').split('\n');
    for (const line of lines) expect(displayWidth(line), `${line}\n${text}`).toBeLessThanOrEqual(width);
    term.keys('q');
    await term.waitFor('SVC-EXIT=0', 'the end of the screen');
    return lines;
  } finally {
    term.kill();
  }
}

/** The lines of a printout or a screen that are not the table (its header and rows): the count line, notes, keys. */
function belowTable(lines: readonly string[]): string[] {
  return lines.filter((l) => !/^[> ][ *+] |^COMPANY|^GRANT|^ID |^SERVICE RECEIPT ID/.test(l) && !/(Example R|Sample F|Platf)/.test(l));
}

describe('a platform of 150 companies, as a person reads it', () => {
  it('count lines keep every figure at 60, 80 and 120 columns: wrapped at their " · ", never cut', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    for (const width of [60, 80, 120]) {
      const screen = await screenAt('counts-screen', width, ['--all-grants']);
      const told = belowTable(screen);
      const said = `${width} columns:\n${screen.join('\n')}`;
      for (const part of ['5 requests', '2 pending', '1 accepted', '2 partially accepted', 'oldest 6d', 'every 600 s', '? keys', 'q leave']) expect(told.join('\n'), said).toContain(part);
      for (const line of told) expect(line, said).not.toContain('…');
      const plain = await printedAt('counts-plain', width, ['credit-note', 'poll', '--all-grants', '--all', '--limit', '6', '--sort', 'status']);
      const count = belowTable(plain);
      const printed = `${width} columns:\n${plain.join('\n')}`;
      for (const part of ['6 requests', '2 pending', '1 accepted', '2 partially accepted', '1 completed', 'oldest 6d', 'in 5 of 150 companies']) expect(count.join('\n'), printed).toContain(part);
      for (const line of count) expect(line, printed).not.toContain('…');
    }
  }, 240_000);

  it('COMPANY gives way (cut with …) before STATUS and AGE are left out, and before NOTE at 80 columns', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    for (const width of [60, 80, 120]) {
      for (const [kind, lines] of [
        ['screen', await screenAt('company-screen', width, ['--all-grants'])],
        ['plain', await printedAt('company-plain', width, ['credit-note', 'poll', '--all-grants'])],
      ] as const) {
        const said = `${kind} at ${width} columns:\n${lines.join('\n')}`;
        const header = lines.find((l) => /^( {3})?COMPANY/.test(l)) ?? '';
        expect(header, said).toMatch(/ STATUS +AGE\b/);
        expect(lines.join('\n'), said).not.toMatch(/not shown: .*\b(STATUS|AGE)\b/);
        if (width >= 80) expect(header, said).toMatch(/ NOTE$/);
        // Every row still says its status whole.
        expect(lines.filter((l) => /PENDING|ACCEPTED/.test(l)).length, said).toBe(5);
        // And whose it is: a shop's name cut keeps its number ("Platf…00005 GmbH"), not "Platform …".
        const shops = lines.filter((l) => /PENDING|ACCEPTED/.test(l) && l.includes('Platf'));
        expect(shops.length, said).toBeGreaterThan(0);
        for (const row of shops) expect(row, said).toMatch(/\d{5} GmbH/);
      }
    }
  }, 240_000);

  it('across companies the queue is oldest first, so --limit takes the oldest; under one Grant too', async () => {
    const m = merchant();
    const open = oldestFirst.filter((_, i) => i !== 2); // the 4d one is COMPLETED
    const limited = await m.json<{ requestId: string }[]>(['credit-note', 'poll', '--all-grants', '--limit', '3']);
    expect(limited.map((r) => r.requestId)).toEqual(open.slice(0, 3));
    const all = await m.json<{ requestId: string }[]>(['credit-note', 'poll', '--all-grants', '--all']);
    expect(all.map((r) => r.requestId)).toEqual(oldestFirst);
    const retail = await m.json<{ requestId: string; createdAt: string }[]>(['credit-note', 'poll', '--all']);
    expect(retail.map((r) => r.createdAt)).toEqual(retail.map((r) => r.createdAt).sort());
    const reversed = await m.json<{ requestId: string }[]>(['credit-note', 'poll', '--all-grants', '--all', '--reverse']);
    expect(reversed.map((r) => r.requestId)).toEqual([...oldestFirst].reverse());
  }, 60_000);

  it('receipt list names the columns it left out, at 60, 80 and 120 columns', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    for (const width of [60, 80, 120]) {
      const lines = await printedAt('receipts', width, ['receipt', 'list']);
      const header = lines[0] ?? '';
      const left = ['ISSUED', 'RECIPIENTS'].filter((h) => !header.includes(h));
      const said = `${width} columns:\n${lines.join('\n')}`;
      if (left.length > 0) expect(lines.at(-1), said).toMatch(new RegExp(`^not shown: ${left.join(', ')}`));
      else expect(lines.join('\n'), said).not.toContain('not shown');
    }
  }, 120_000);

  it('grants list --filter TEXT: every company whose name, tax ID or Grant ID holds TEXT, counted; --grant points to it', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const found = await m.json<{ company_legal_name: string }[]>(['grants', 'list', '--filter', 'SHOP 0001']);
    expect(found.map((g) => g.company_legal_name)).toEqual(Array.from({ length: 10 }, (_, i) => `Platform Shop 0001${i} GmbH`));
    const byTax = await m.json<{ tax_id: string }[]>(['grants', 'list', '--filter', 'eu000000002']);
    expect(byTax.map((g) => g.tax_id)).toEqual(['EU000000002']);
    const [first] = await m.json<{ grant_id: string }[]>(['grants', 'list']);
    const byId = await m.json<{ grant_id: string }[]>(['grants', 'list', '--filter', first!.grant_id.slice(2, 12).toUpperCase()]);
    expect(byId.map((g) => g.grant_id)).toContain(first!.grant_id);
    for (const width of [60, 80, 120]) {
      const lines = await printedAt('grants-filter', width, ['grants', 'list', '--filter', 'shop 0001']);
      const said = `${width} columns:\n${lines.join('\n')}`;
      expect(lines.filter((l) => l.includes('Platform Shop 0001')).length, said).toBe(10);
      expect(lines.join('\n'), said).toMatch(/^10 of 150 Grants match "shop 0001"/m);
    }
    const none = await runSvc(['grants', 'list', '--filter', 'nowhere'], { home: m.home, env: m.env });
    expect(none.exitCode).toBe(0);
    expect(none.stderr).toContain('no Grant of 150 matches "nowhere"');
    const grant = await runSvc(['grants', 'list', '--grant', '123'], { home: m.home, env: m.env });
    expect(grant.exitCode, grant.stderr).toBe(2);
    expect(grant.stderr).toContain('svc grants list --filter 123');
  }, 120_000);
});
