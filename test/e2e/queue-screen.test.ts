// The queue screen (`credit-note poll --watch` on a terminal) in a real terminal (tmux), at
// 60, 80 and 160 columns with resizes in the middle, against a sandbox: the cursor keys, `/`,
// Enter, `?`, space marks, and the decisions (a, space+a, p, r, a refused i) do what `?`
// says, each checked on the sandbox afterwards with `poll --json`; no row wraps after a
// resize, nothing typed is echoed, and q gives the shell back its terminal.
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { readLedgers } from './ledger.js';
import { svcEnv } from './helpers.js';
import { queueStatuses, useMerchant, type Merchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { MILK, requestsOn } from './queue-screen-kit.js';
import { svcInTerminal, tmux, type Terminal } from './tmux.js';

const { merchant } = useMerchant();

/** The screen of one receipt's requests (the other tests' requests stay out of it). */
function screenOf(m: Merchant, name: string, receipt: string, size: [number, number]): Terminal {
  return svcInTerminal(name, ['credit-note', 'poll', '--watch', '--interval', '600', '--all', '--receipt', receipt], { ...svcEnv(m.home, m.env), NO_COLOR: '1' }, size);
}

/** The statuses of `ids` as `poll --all --json` says now. */
async function statusesOf(m: Merchant, ids: readonly string[]): Promise<Record<string, string>> {
  const all = await queueStatuses(m);
  return Object.fromEntries(ids.map((id) => [id, all.get(id) ?? 'missing']));
}

/** The lines of the screen as it is now, to the last one written. */
const lines = (term: Terminal) => term.text().replace(/\n+$/, '').split('\n');
/** The row the cursor is on. */
const cursorRow = (term: Terminal) => lines(term).find((l) => l.startsWith('>'));
const rowOf = (term: Terminal, id: string) => lines(term).find((l) => l.includes(id.slice(0, 8)));

async function until(what: () => boolean, label: string, term: Terminal, timeoutMs = 10_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !what(); ) {
    if (Date.now() > deadline) throw new Error(`${label} never showed; the terminal:\n${term.text()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resizes the window and waits for the list drawn again at that width: no line wider, the header fitted. */
async function resize(term: Terminal, session: string, width: number): Promise<void> {
  tmux(['resize-window', '-t', `${session}-${process.pid}`, '-x', String(width), '-y', '24']);
  const fitted = () => {
    const screen = lines(term).filter((l) => l.trim() !== '');
    const status = screen.at(-1);
    return (
      screen[0]?.trimStart().startsWith('REQUEST ID') === true &&
      // -J joins a wrapped line: none is wider than the terminal.
      screen.every((l) => displayWidth(l) <= width) &&
      // Drawn for this width: at 60 the count line wrapped between its parts (none cut), the status line whole at 160.
      (width !== 60 || (screen.some((l) => l.startsWith('updated ')) && !screen.slice(-4).some((l) => l.endsWith('…')))) &&
      (width !== 160 || status?.endsWith('…') === false)
    );
  };
  await until(fitted, `the list drawn again at ${width} columns`, term);
}

describe('the queue screen (poll --watch on a terminal)', () => {
  // First: the only PENDING requests of the sandbox are its own.
  it('--all-grants: a COMPANY column, each decision under the row\'s own Grant; marks across companies are refused', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [retail] = (await requestsOn(m, [MILK], { args: ['--grant', 'retail'] })).ids as [string];
    const [foods] = (await requestsOn(m, [MILK], { args: ['--grant', 'foods'] })).ids as [string];
    const args = ['credit-note', 'poll', '--watch', '--interval', '600', '--all-grants', '--sort', 'created', '--status', 'PENDING'];
    const term = svcInTerminal('svc-screen-grants', args, { ...svcEnv(m.home, m.env), NO_COLOR: '1' }, [160, 24]);
    try {
      await until(() => cursorRow(term)?.includes(retail.slice(0, 8)) === true && rowOf(term, foods) !== undefined, 'both companies\' requests', term);
      expect(lines(term)[0]).toMatch(/^ {3}COMPANY +REQUEST ID/);
      expect(rowOf(term, foods)).toContain('Sample Foods GmbH');
      term.keys('Space', 'j', 'Space', 'a');
      await until(() => lines(term).at(-1)?.startsWith('the 2 marked requests are of several companies') === true, 'a across companies refused', term);
      term.keys('Escape', 'End', 'a');
      await until(() => rowOf(term, foods)?.includes('ACCEPTED') === true, 'foods accepted', term);
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    const statuses = new Map((await m.json<{ requestId: string; status: string }[]>(['credit-note', 'poll', '--all-grants', '--all', '--no-decrypt'])).map((i) => [i.requestId, i.status]));
    expect([statuses.get(retail), statuses.get(foods)]).toEqual(['PENDING', 'ACCEPTED']);
  }, 15_000);

  it('moves a cursor (↓ ↑ j k End Home PgDn PgUp), keeps it over resizes 160 → 60 → 80 → 160 with no row wrapped, Esc gives the shell its terminal back', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, ids } = await requestsOn(m, [MILK, MILK, MILK]);
    const [a, b, c] = ids as [string, string, string];
    const term = screenOf(m, 'svc-screen-keys', receipt, [160, 24]);
    try {
      await until(() => cursorRow(term)?.includes(a.slice(0, 8)) === true && rowOf(term, c) !== undefined, 'the list, the cursor on the oldest', term);
      const at = async (id: string, label: string) => until(() => cursorRow(term)?.includes(id.slice(0, 8)) === true, label, term);
      term.keys('Down');
      await at(b, '↓ to the second');
      term.keys('j');
      await at(c, 'j to the third');
      term.keys('Up');
      await at(b, '↑ to the second');
      term.keys('k');
      await at(a, 'k to the first');
      term.keys('End');
      await at(c, 'End to the last');
      term.keys('Home');
      await at(a, 'Home to the first');
      term.keys('NPage');
      await at(c, 'PgDn a page down (to the last)');
      term.keys('PPage');
      await at(a, 'PgUp a page up (to the first)');
      for (const width of [60, 80, 160]) {
        await resize(term, 'svc-screen-keys', width);
        expect(lines(term).filter((l) => l.includes('PENDING'))).toHaveLength(3);
        expect(cursorRow(term)).toContain(a.slice(0, 8));
      }
      term.keys('Escape');
      await term.waitFor('SVC-EXIT=0');
      expect(term.text()).not.toContain('REQUEST ID');
      // The terminal is the shell's again: the cursor shown, typing echoed (raw mode off).
      expect(tmux(['display-message', '-p', '-t', `svc-screen-keys-${process.pid}`, '#{cursor_flag}']).trim()).toBe('1');
      term.type('echoed-again');
      await term.waitFor('echoed-again');
    } finally {
      term.kill();
    }
    expect(await statusesOf(m, ids)).toEqual({ [a]: 'PENDING', [b]: 'PENDING', [c]: 'PENDING' });
  }, 15_000);

  it('filters with / (Esc clears), shows with Enter (scrolled on a short terminal, q back), lists keys with ?, acts on no stray key and echoes none, q leaves', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, ids } = await requestsOn(m, [MILK, MILK, MILK]);
    const [a, b, c] = ids as [string, string, string];
    const term = screenOf(m, 'svc-screen-look', receipt, [160, 24]);
    try {
      await until(() => cursorRow(term)?.includes(a.slice(0, 8)) === true && rowOf(term, c) !== undefined, 'the list', term);
      // `/` narrows the rows to what is typed; Esc clears it.
      term.keys('/');
      term.type(c.slice(0, 8));
      await until(() => rowOf(term, a) === undefined && rowOf(term, c) !== undefined && cursorRow(term)?.includes(c.slice(0, 8)) === true, 'the rows narrowed to the filter', term);
      term.keys('Escape');
      await until(() => rowOf(term, a) !== undefined && rowOf(term, b) !== undefined, 'every row back', term);
      // Enter shows the request as `credit-note show` does; q goes back to the list.
      term.keys('Enter');
      await until(() => new RegExp(`^request +${c}`, 'm').test(term.text()) && /^line 1 +1 × Whole milk 3\.5% 1 l \(4001234567890\)/m.test(term.text()), 'the request shown', term);
      // On a short terminal it scrolls.
      tmux(['resize-window', '-t', `svc-screen-look-${process.pid}`, '-x', '160', '-y', '8']);
      await until(() => / · lines 1–7 of \d+ · ↑↓ PgUp PgDn scroll · q or Esc: back to the list$/.test(lines(term).at(-1) ?? ''), 'the first page of the request', term);
      term.keys('Down');
      await until(() => / · lines 2–8 of \d+ /.test(lines(term).at(-1) ?? '') && !new RegExp(`^request +${c}`, 'm').test(term.text()), 'the request scrolled a line', term);
      tmux(['resize-window', '-t', `svc-screen-look-${process.pid}`, '-x', '160', '-y', '24']);
      term.keys('q');
      await until(() => rowOf(term, a) !== undefined, 'the list again', term);
      term.keys('?');
      await until(() => term.text().includes('mark or unmark the request under the cursor'), 'the keys', term);
      term.keys('x');
      await until(() => rowOf(term, a) !== undefined, 'the list after the keys', term);
      // Keys that mean nothing here are neither echoed nor acted on.
      term.type('xyz');
      await new Promise((r) => setTimeout(r, 300));
      expect(term.text()).not.toContain('xyz');
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    // Filtering, showing and stray keys changed nothing.
    expect(await statusesOf(m, ids)).toEqual({ [a]: 'PENDING', [b]: 'PENDING', [c]: 'PENDING' });
  }, 15_000);

  it('a accepts the selected request; space marks two and a accepts both after one confirmation naming each (80 → 60 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, ids } = await requestsOn(m, [MILK, MILK, MILK, MILK]);
    const [a, b, c, d] = ids as [string, string, string, string];
    const term = screenOf(m, 'svc-screen-accept', receipt, [80, 24]);
    try {
      await until(() => cursorRow(term)?.includes(a.slice(0, 8)) === true && rowOf(term, d) !== undefined, 'the list', term);
      // The keys line, wrapped between its keys at 80 columns.
      expect(lines(term).join('\n')).toMatch(/^a accept · p accept part · r reject · space mark/m);
      term.keys('a');
      await until(() => rowOf(term, a)?.includes('ACCEPTED') === true, 'a accepted', term);
      expect(lines(term).at(-1)).toContain(`${a} ACCEPTED`);
      await resize(term, 'svc-screen-accept', 60);
      term.keys('j', 'Space', 'j', 'Space');
      await until(() => rowOf(term, b)?.startsWith(' *') === true && rowOf(term, c)?.startsWith('>*') === true, 'b and c marked', term);
      expect(lines(term).join('\n')).toMatch(/^2 marked · 4 requests · 3 pending · 1 accepted/m);
      term.keys('a');
      await term.waitFor('Accept these 2 requests?');
      // Each named by its document, company and request ID (wrapped at 60 columns).
      expect(term.text().replace(/\s+/g, ' ').match(/R-2025-000871-\d+ \(1 × Whole milk 3\.5% 1 l, 1\.28 EUR\) of Example Retail Ltd, request [0-9a-f]{8}/g)).toHaveLength(2);
      term.keys('y', 'Enter');
      await until(() => rowOf(term, b)?.includes('ACCEPTED') === true && rowOf(term, c)?.includes('ACCEPTED') === true, 'b and c accepted', term);
      expect(rowOf(term, d)).toContain('PENDING');
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    expect(await statusesOf(m, ids)).toEqual({ [a]: 'ACCEPTED', [b]: 'ACCEPTED', [c]: 'ACCEPTED', [d]: 'PENDING' });
  }, 15_000);

  it('i on a PENDING request is refused on the status line; p records the part asked; r rejects with a reason and a confirmation naming the document (60 → 160 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, ids } = await requestsOn(m, ['4001234567890:2', MILK]);
    const [x, y] = ids as [string, string];
    const term = screenOf(m, 'svc-screen-decide', receipt, [60, 24]);
    try {
      await until(() => cursorRow(term)?.includes(x.slice(0, 8)) === true && rowOf(term, y) !== undefined, 'the list', term);
      term.keys('i');
      // Said whole on the status area, wrapped at 60 columns.
      await until(() => lines(term).slice(-4).join(' ').replace(/ +/g, ' ').includes(`cannot issue ${x.slice(0, 8)}: it is PENDING`), 'i refused, with why', term);
      term.keys('p');
      await term.waitFor(`Which part of ${x.slice(0, 8)} is accepted?`);
      term.keys('BSpace');
      term.type('1');
      term.keys('Enter');
      await until(() => rowOf(term, x)?.includes('PARTI') === true, 'x accepted in part', term);
      await resize(term, 'svc-screen-decide', 160);
      expect(lines(term).at(-1)).toContain(`${x} PARTIALLY_ACCEPTED (accepted part: 4001234567890:1, recorded)`);
      term.keys('Down', 'r');
      await term.waitFor('Why reject it?');
      term.type('seal broken');
      term.keys('Enter');
      await term.waitFor(/Reject\s+request\s+[0-9a-f]{8}\s+on\s+R-2025-000871-\d+\s+\(1\s+×\s+Whole\s+milk\s+3\.5%\s+1\s+l,\s+1\.28\s+EUR\)\s+of\s+Example\s+Retail\s+Ltd\?\s+No\s+credit\s+note\s+is\s+issued\.\s+It\s+cannot\s+be\s+moved\s+again\./);
      term.keys('y', 'Enter');
      await until(() => rowOf(term, y)?.includes('REJECTED') === true, 'y rejected', term);
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    expect(await statusesOf(m, ids)).toEqual({ [x]: 'PARTIALLY_ACCEPTED', [y]: 'REJECTED' });
    expect((await m.svc(['credit-note', 'show', x])).stdout).toMatch(/^accepted part +4001234567890:1 \(recorded /m);
    expect((await m.svc(['credit-note', 'show', y])).stdout).toMatch(/^reason +seal broken \(rejected /m);
  }, 15_000);

  it('i issues the credit note of an accepted request after its preview and completes it; c completes another with no credit note (80 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, ids } = await requestsOn(m, [MILK, MILK]);
    const [a, b] = ids as [string, string];
    await m.svc(['credit-note', 'accept', a, b]);
    const term = screenOf(m, 'svc-screen-issue', receipt, [80, 24]);
    try {
      await until(() => cursorRow(term)?.includes(a.slice(0, 8)) === true && rowOf(term, b) !== undefined, 'the list', term);
      // An accepted request is issued or completed; accepting or rejecting it again is not offered.
      expect(lines(term).at(-1)).toMatch(/^i issue · c complete · space mark/);
      term.keys('r');
      await until(() => lines(term).at(-1)?.startsWith(`cannot reject ${a.slice(0, 8)}: it is ACCEPTED; reject moves PENDING`) === true, 'r refused, with why', term);
      term.keys('i');
      // What it will do, before it is done: the credit note, how much, from which company, and the request it closes.
      await term.waitFor(new RegExp(String.raw`Issue credit note CN-R-2025-000871-\d+-1 for 1\.28 EUR\s+\(1\s+×\s+Whole\s+milk\s+3\.5%\s+1\s+l\)\s+from\s+Example\s+Retail\s+Ltd\s+and\s+complete\s+request\s+${a.slice(0, 8)}\s+on\s+R-2025-000871-\d+\?`), 'the preview', 8000);
      term.keys('y', 'Enter');
      await until(() => rowOf(term, a)?.includes('COMPLETED') === true, 'a credited and completed', term);
      // The status line: the credit note's document number and the status read back, not a bare serviceReceiptId.
      await until(() => /^[0-9a-f]{8} COMPLETED · credit note CN-R-2025-000871-\d+-1 \(read back\)/.test(lines(term).at(-1) ?? ''), 'what i did, read back', term);
      term.keys('Down', 'c');
      // The prompt wraps its question at 80 columns; it says that nothing is credited.
      await term.waitFor(new RegExp(String.raw`Complete\s+request\s+${b.slice(0, 8)}\s+on\s+R-2025-000871-\d+\s+\(1\s+×\s+Whole\s+milk\s+3\.5%\s+1\s+l,\s+1\.28\s+EUR\)\s+of\s+Example\s+Retail\s+Ltd\s+with\s+NO\s+credit\s+note:\s+nothing\s+is\s+credited\?\s+It\s+cannot\s+be\s+moved\s+again\.`));
      term.keys('y', 'Enter');
      await until(() => rowOf(term, b)?.includes('COMPLETED') === true, 'b completed', term);
      await until(() => lines(term).at(-1)?.startsWith(`${b.slice(0, 8)} COMPLETED · no credit note (read back)`) === true, 'what c did, read back', term);
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    expect(await statusesOf(m, ids)).toEqual({ [a]: 'COMPLETED', [b]: 'COMPLETED' });
    const ledger = await readLedgers(m.home.stateDir);
    expect(ledger.creditNotes.filter((n) => [a, b].includes(n.requestId)).map((n) => n.requestId)).toEqual([a]);
  }, 15_000);

  it('space marks two and r rejects both: one reason, one confirmation naming each document (80 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, ids } = await requestsOn(m, [MILK, MILK, MILK]);
    const [a, b, c] = ids as [string, string, string];
    const term = screenOf(m, 'svc-screen-reject', receipt, [80, 24]);
    try {
      await until(() => cursorRow(term)?.includes(a.slice(0, 8)) === true && rowOf(term, c) !== undefined, 'the list', term);
      term.keys('Space', 'j', 'j', 'Space');
      await until(() => rowOf(term, a)?.startsWith(' *') === true && rowOf(term, c)?.startsWith('>*') === true && rowOf(term, b)?.startsWith('  ') === true, 'a and c marked', term);
      term.keys('r');
      await term.waitFor('Why reject these 2?');
      term.type('past the return window');
      term.keys('Enter');
      await term.waitFor(/Reject these 2 requests\?\s+No\s+credit\s+note\s+is\s+issued\s+for\s+any\s+of\s+them\.\s+They\s+cannot\s+be\s+moved\s+again\./);
      expect(term.text().replace(/\s+/g, ' ').match(/R-2025-000871-\d+ \(1 × Whole milk 3\.5% 1 l, 1\.28 EUR\) of Example Retail Ltd, request [0-9a-f]{8}/g)).toHaveLength(2);
      term.keys('y', 'Enter');
      await until(() => rowOf(term, a)?.includes('REJECTED') === true && rowOf(term, c)?.includes('REJECTED') === true, 'a and c rejected', term);
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    expect(await statusesOf(m, ids)).toEqual({ [a]: 'REJECTED', [b]: 'PENDING', [c]: 'REJECTED' });
    expect((await m.svc(['credit-note', 'show', c])).stdout).toMatch(/^reason +past the return window \(rejected /m);
  }, 15_000);
});
