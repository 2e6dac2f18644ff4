// The queue screen as a support engineer uses it (issue 30, in tmux at 60 and 80 columns,
// keys typed ahead): `/` finds a request by its customer; the count line counts what is
// shown; space marks in place; a declined reject keeps the marks and the reason typed, and
// its question tells identical documents apart by request ID; Esc leaves the part prompt
// (named products) losing nothing; an error is shown whole; `?` and Enter fit 60 columns.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { svcEnv, makeSvcHome } from './helpers.js';
import { queueStatuses, useMerchant, type Merchant } from './merchant.js';
import { loginAutoApproved } from './oauth-fixture.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal, tmux, type Terminal } from './tmux.js';
import { cursorRow, MILK, requestsOn, rowOf, screenLines, untilShown } from './queue-screen-kit.js';

const { merchant, dirs } = useMerchant();

/** A request ACCEPTED on a receipt another machine issued: this one has no record of the receipt. */
async function acceptedOnAnotherMachinesReceipt(m: Merchant): Promise<{ receipt: string; x: string }> {
  const other = await makeSvcHome(dirs);
  const { result } = await loginAutoApproved(other, m.sandbox.url, m.fixture);
  expect(result.exitCode, result.stderr).toBe(0);
  const { receipt, ids } = await requestsOn(m, [MILK], { home: other });
  const [x] = ids as [string];
  await m.svc(['credit-note', 'accept', x]);
  return { receipt, x };
}

function screen(m: Merchant, name: string, args: readonly string[], size: [number, number]): Terminal {
  return svcInTerminal(name, ['credit-note', 'poll', '--watch', '--interval', '600', ...args], { ...svcEnv(m.home, m.env), NO_COLOR: '1' }, size);
}

const lines = screenLines;
const until = untilShown;

describe('the queue screen at the support desk', () => {
  // First: every request of this sandbox is its own.
  it('/ finds a request by its customer (name, email) and document number; the count line counts what is shown (80 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const bobFile = join(await dirs.make('svc-bob-'), 'bob.json');
    await writeFile(bobFile, JSON.stringify({ name: 'Bob Builder', email: 'bob@example.com' }));
    const alice = await requestsOn(m, [MILK, MILK]);
    const bob = await requestsOn(m, [MILK], { args: ['--email', 'bob@example.com', '--customer', bobFile] });
    const [bobs] = bob.ids as [string];
    const term = screen(m, 'svc-desk-find', ['--status', 'PENDING'], [80, 24]);
    try {
      await until(() => rowOf(term, bobs) !== undefined && alice.ids.every((id) => rowOf(term, id) !== undefined), 'the list', term);
      expect(lines(term).find((l) => l.startsWith('3 requests'))).toBeDefined();
      term.keys('/');
      term.type('bob');
      term.keys('Enter');
      await until(() => rowOf(term, bobs) !== undefined && alice.ids.every((id) => rowOf(term, id) === undefined), 'bob\'s request alone', term);
      expect(lines(term).join('\n')).toMatch(/^1 of 3 requests \(filter: bob\)/m);
      term.keys('Escape', '/');
      term.type('builder');
      await until(() => rowOf(term, bobs) !== undefined && alice.ids.every((id) => rowOf(term, id) === undefined), 'bob by his name', term);
      term.keys('Escape');
      await until(() => lines(term).some((l) => l.startsWith('3 requests')), 'every row back, counted', term);
      // The document number of Bob's receipt (the last sent: R-2025-000871-2).
      term.keys('/');
      term.type('000871-2');
      term.keys('Enter');
      await until(() => rowOf(term, bobs) !== undefined && alice.ids.every((id) => rowOf(term, id) === undefined), 'bob by the document number', term);
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    // `show` names the customer.
    const shown = await m.svc(['credit-note', 'show', bobs]);
    expect(shown.stdout).toMatch(/^customer +Bob Builder <bob@example\.com>/m);
    const json = JSON.parse((await m.svc(['credit-note', 'show', bobs, '--json'])).stdout) as { customer?: unknown };
    expect(json.customer).toEqual({ name: 'Bob Builder', email: 'bob@example.com' });
  }, 30_000);

  it('space marks the row under the cursor and stays there (? says so); n to the bulk reject keeps the marks and the reason, and names each request by ID (80 → 60 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, ids } = await requestsOn(m, [MILK, MILK, MILK]);
    const [a, b, c] = ids as [string, string, string];
    const term = screen(m, 'svc-desk-marks', ['--all', '--receipt', receipt], [80, 24]);
    try {
      await until(() => cursorRow(term)?.includes(a.slice(0, 8)) === true && rowOf(term, c) !== undefined, 'the list', term);
      term.keys('Space');
      await until(() => rowOf(term, a)?.startsWith('>*') === true, 'a marked, the cursor still on it', term);
      term.keys('?');
      await until(() => /space +mark or unmark the request under the cursor \(the cursor stays\)/.test(term.text()), 'the help on space', term);
      term.keys('x', 'j', 'j', 'Space');
      await until(() => rowOf(term, c)?.startsWith('>*') === true && rowOf(term, b)?.startsWith('  ') === true, 'a and c marked', term);
      tmux(['resize-window', '-t', `svc-desk-marks-${process.pid}`, '-x', '60', '-y', '24']);
      // The reason typed ahead; the final question is answered once it is asked (a key typed
      // ahead never answers a final move's question: it is dropped).
      term.keys('r');
      // Typed once the prompt is up: keys that arrive while the screen still holds the terminal are the screen's.
      await term.waitFor('Why reject these 2?');
      term.type('seal broken');
      term.keys('Enter');
      await term.waitFor(/Reject these 2 requests\?[\s\S]*\(y\/N\)/);
      // Identical documents, told apart by request ID (the lines wrap at 60 columns).
      const question = term.text().replace(/\s+/g, ' ');
      for (const id of [a, c]) expect(question).toMatch(new RegExp(`R-2025-000871-\\d+ \\(1 × Whole milk 3\\.5% 1 l, 1\\.28 EUR\\) of Example Retail Ltd, request ${id.slice(0, 8)}`));
      expect(question).not.toContain(`request ${b.slice(0, 8)}`);
      term.keys('n', 'Enter');
      await until(() => lines(term).at(-1)?.startsWith('cancelled: nothing was rejected') === true, 'the reject declined', term);
      // The marks stay, and the count line says so.
      expect(rowOf(term, a)?.startsWith(' *')).toBe(true);
      expect(rowOf(term, c)?.startsWith('>*')).toBe(true);
      expect(lines(term).join('\n')).toMatch(/^2 marked · /m);
      // The reason typed is offered again.
      term.keys('r');
      await term.waitFor(/Why reject these 2\?[^?]*\(seal\s+broken\)/);
      term.keys('Enter');
      await term.waitFor(/Reject these 2 requests\?[\s\S]*\(y\/N\)/);
      term.keys('y', 'Enter');
      await until(() => rowOf(term, a)?.includes('REJECTED') === true && rowOf(term, c)?.includes('REJECTED') === true, 'a and c rejected', term);
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    const statuses = await queueStatuses(m);
    expect([a, b, c].map((id) => statuses.get(id))).toEqual(['REJECTED', 'PENDING', 'REJECTED']);
    expect((await m.svc(['credit-note', 'show', c])).stdout).toMatch(/^reason +seal broken \(rejected /m);
  }, 30_000);

  it('the part prompt names the products; Esc leaves it with nothing recorded and the part typed kept for the next p (80 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, ids } = await requestsOn(m, ['4001234567890:2']);
    const [x] = ids as [string];
    const term = screen(m, 'svc-desk-part', ['--all', '--receipt', receipt], [80, 24]);
    try {
      await until(() => cursorRow(term)?.includes(x.slice(0, 8)) === true, 'the list', term);
      term.keys('p');
      await term.waitFor(`Which part of ${x.slice(0, 8)} is accepted?`);
      expect(term.text()).toMatch(/^ {2}4001234567890 +Whole milk 3\.5% 1 l \(asked: 2\)$/m);
      term.keys('BSpace');
      term.type('1');
      term.keys('Escape');
      await until(() => lines(term).at(-1)?.startsWith('cancelled: nothing was accepted') === true && rowOf(term, x)?.includes('PENDING') === true, 'the part prompt left', term);
      term.keys('p');
      await term.waitFor(/is accepted\?[^?]*4001234567890:1\s*$/m);
      term.keys('Enter');
      await until(() => rowOf(term, x)?.includes('PARTI') === true, 'x accepted in part', term);
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    expect((await m.svc(['credit-note', 'show', x])).stdout).toMatch(/^accepted part +4001234567890:1 \(recorded /m);
  }, 30_000);

  it('an error is shown whole on the status area, its hint too (60 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, x } = await acceptedOnAnotherMachinesReceipt(m);
    // Tall enough for the status area (a third of the rows) to hold the error and its hint whole.
    const term = screen(m, 'svc-desk-error', ['--all', '--receipt', receipt], [60, 30]);
    try {
      await until(() => cursorRow(term)?.includes(x.slice(0, 8)) === true, 'the list', term);
      term.keys('i');
      await until(() => /--original FILE/.test(term.text()) && rowOf(term, x) !== undefined, 'the error with its hint', term);
      const text = lines(term).join(' ').replace(/ +/g, ' ');
      expect(text).toContain(`receipt ${receipt} is not known as one of this merchant's receipts`);
      // A whole command: the screen's `i` takes no --original, the shell does.
      expect(text).toContain(`issued by another machine or profile (records are kept per profile)? \`svc credit-note issue ${x} --original FILE\` with its receipt record`);
      for (const line of lines(term)) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
  }, 40_000);

  it('an error longer than a third of the screen ends with "e: the whole message"; e opens it whole, q goes back (60×12, then 120 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, x } = await acceptedOnAnotherMachinesReceipt(m);
    const term = screen(m, 'svc-desk-longerror', ['--all', '--receipt', receipt], [60, 12]);
    try {
      await until(() => cursorRow(term)?.includes(x.slice(0, 8)) === true, 'the list', term);
      term.keys('i');
      await until(() => lines(term).at(-1)?.includes('… e: the whole message') === true, 'the error cut, e offered', term);
      expect(term.text()).not.toContain('--original FILE');
      term.keys('e');
      await until(() => /--original FILE/.test(term.text()) && /the whole message · q or Esc: back to the list/.test(term.text()), 'the whole message', term);
      const text = lines(term).join(' ').replace(/ +/g, ' ');
      expect(text).toContain(`receipt ${receipt} is not known as one of this merchant's receipts`);
      // A whole command: the screen's `i` takes no --original, the shell does.
      expect(text).toContain(`issued by another machine or profile (records are kept per profile)? \`svc credit-note issue ${x} --original FILE\` with its receipt record`);
      for (const line of lines(term)) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
      term.keys('q');
      await until(() => rowOf(term, x) !== undefined, 'the list again', term);
      // Wider and taller, the same error fits the status area whole: no e needed.
      tmux(['resize-window', '-t', `svc-desk-longerror-${process.pid}`, '-x', '120', '-y', '30']);
      await until(() => /--original FILE/.test(term.text()) && rowOf(term, x) !== undefined, 'the error whole at 120 columns', term);
      expect(term.text()).not.toContain('e: the whole message');
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
  }, 40_000);

  it('? wraps its lines at words at 60 columns; Enter shows the credit note table aligned at 60, 80 and 120 columns', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, ids } = await requestsOn(m, [MILK]);
    const [x] = ids as [string];
    await m.svc(['credit-note', 'accept', x]);
    const term = screen(m, 'svc-desk-fit', ['--all', '--receipt', receipt], [60, 40]);
    try {
      await until(() => cursorRow(term)?.includes(x.slice(0, 8)) === true, 'the list', term);
      term.keys('?');
      await until(() => term.text().includes('any key: back to the list'), 'the keys', term);
      expect(term.text()).not.toContain('…');
      // A long line goes on, under its text.
      expect(term.text()).toMatch(/^ {2}r +reject, with a reason \(the marked, else the\n {4,}\S/m);
      term.keys('x');
      for (const width of [60, 80, 120]) {
        tmux(['resize-window', '-t', `svc-desk-fit-${process.pid}`, '-x', String(width), '-y', '40']);
        await until(() => lines(term)[0]?.trimStart().startsWith('REQUEST ID') === true && displayWidth(lines(term).at(-1) ?? '') <= width, `the list at ${width}`, term);
        term.keys('Enter');
        await until(() => /^ {2}#  PRODUCT/m.test(term.text()), `the credit note at ${width}`, term);
        const table = lines(term).filter((l) => /^ {2}(#|1) {2}/.test(l));
        expect(table).toHaveLength(2);
        // Aligned: every column starts where its header does.
        const header = table[0]!;
        for (const name of ['QTY', 'TOTAL']) expect(table[1]!.length).toBeGreaterThanOrEqual(header.indexOf(name));
        expect(displayWidth(table[1]!)).toBe(displayWidth(header));
        for (const line of lines(term)) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
        term.keys('q');
        await until(() => lines(term)[0]?.trimStart().startsWith('REQUEST ID') === true, 'the list again', term);
      }
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
  }, 40_000);
});
