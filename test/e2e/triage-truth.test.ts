// `credit-note triage` as a support engineer reads it later: keys typed ahead are never the
// answer of a prompt that was not on screen yet, the echo of a move and the summary say what
// the service answered (not the key pressed), the moves offered are those of the one table
// (no `i` on a PENDING request), and a final move's question says what it will do: a credit
// note or none, how much, for which company.
import { describe, expect, it } from 'vitest';
import { svcEnv } from './helpers.js';
import { readLedgers } from './ledger.js';
import { milkRequests, queueStatuses, statusChanges, useMerchant, type Merchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal, type Terminal } from './tmux.js';

const { merchant } = useMerchant();
// Every answer held 400 ms: keys sent while a move is on its way arrive between two prompts.
const slow = useMerchant(['--latency', '400ms']);

/** The terminal's text after `marker`'s last showing. */
const after = (term: Terminal, marker: string) => term.text().slice(term.text().lastIndexOf(marker));

/** A pattern whose spaces match a line break too: a question wider than the terminal is broken into lines. */
const spaced = (pattern: string) => new RegExp(pattern.replaceAll(' ', '\\s+'));

/** triage of only these requests' receipt (each test's requests have a receipt of their own). */
async function triageOf(m: Merchant, requestId: string): Promise<string[]> {
  const all = await m.json<{ requestId: string; serviceReceiptId: string }[]>(['credit-note', 'poll', '--all']);
  return ['credit-note', 'triage', '--receipt', all.find((r) => r.requestId === requestId)!.serviceReceiptId];
}

describe('triage: what is echoed is what happened', () => {
  it('a and r typed in one go: the request is ACCEPTED and nothing says reject; r is nobody\'s answer', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [a, b] = (await milkRequests(m, 2)) as [string, string];
    const before = await queueStatuses(m);
    const term = svcInTerminal('svc-triage-ahead', await triageOf(m, a), svcEnv(m.home, m.env), [120, 40]);
    try {
      await term.waitFor(`? ${a.slice(0, 8)} PENDING: a accept`);
      term.keys('a', 'r');
      await term.waitFor(`? ${a.slice(0, 8)} ACCEPTED:`);
      // The prompt's own line names the key it took; the echo is the service's answer.
      expect(term.text()).toContain(`✔ ${a.slice(0, 8)} PENDING: accept`);
      expect(term.text()).not.toMatch(/PENDING: reject/);
      expect(term.text()).not.toContain('Why reject');
      expect(term.text()).toMatch(new RegExp(`^${a.slice(0, 8)}.* is ACCEPTED now \\(read back from the service\\)`, 'm'));
      // Typed ahead while it moved: c and y are not taken by the next prompt, nothing completes.
      term.keys('s');
      await term.waitFor(`? ${b.slice(0, 8)} PENDING:`);
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain('SVC-EXIT=0');
      expect(term.text()).toMatch(new RegExp(`^accepted +1: ${a.slice(0, 8)}$`, 'm'));
      expect(term.text()).toMatch(/^rejected +0$/m);
    } finally {
      term.kill();
    }
    expect(statusChanges(before, await queueStatuses(m))).toEqual({ [a]: 'ACCEPTED' });
  }, 90_000);

  it('keys typed while a move runs are not the next prompt\'s answer (a, then c y Enter: accepted, nothing completed)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = slow.merchant();
    const [a] = (await milkRequests(m, 1)) as [string];
    const before = await queueStatuses(m);
    const term = svcInTerminal('svc-triage-ahead2', await triageOf(m, a), svcEnv(m.home, m.env), [80, 24]);
    try {
      await term.waitFor(`? ${a.slice(0, 8)} PENDING: a accept`);
      term.keys('a');
      await term.waitFor(`✔ ${a.slice(0, 8)} PENDING: accept`);
      // While the accept is on its way: typed for a prompt that is not there yet.
      term.keys('c', 'y', 'Enter');
      await term.waitFor(`? ${a.slice(0, 8)} ACCEPTED:`);
      // Given time to (wrongly) take them.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(term.text()).not.toContain('Complete request');
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).not.toMatch(/^completed, no credit note/m);
    } finally {
      term.kill();
    }
    expect(statusChanges(before, await queueStatuses(m))).toEqual({ [a]: 'ACCEPTED' });
  }, 90_000);

  it('the reject confirmation takes no key typed ahead of it: y Enter s typed with the reason do not reject, nor skip on', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [a, b] = (await milkRequests(m, 2)) as [string, string];
    const term = svcInTerminal('svc-triage-ahead3', await triageOf(m, a), svcEnv(m.home, m.env), [120, 40]);
    try {
      await term.waitFor(`? ${a.slice(0, 8)} PENDING: a accept`);
      term.keys('r');
      await term.waitFor('? Why reject it?');
      term.type('wrong size');
      // Enter, the confirmation's y and Enter, and s for the next prompt, all typed ahead.
      term.keys('Enter', 'y', 'Enter', 's');
      await term.waitFor(new RegExp(String.raw`Reject request ${a.slice(0, 8)} on R-2025-000871-\d+ .*\?`));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // The y typed before the question showed did not answer it: it still waits.
      expect(term.text()).not.toContain(`${a.slice(0, 8)}`.concat(' is REJECTED'));
      term.keys('y', 'Enter');
      await term.waitFor(`? ${b.slice(0, 8)} PENDING:`);
      expect(term.text()).toMatch(new RegExp(`^${a.slice(0, 8)}.* is REJECTED now \\(read back from the service\\)`, 'm'));
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toMatch(new RegExp(`^rejected +1: ${a.slice(0, 8)} \\("wrong size"\\)$`, 'm'));
    } finally {
      term.kill();
    }
  }, 90_000);
});

describe('triage: keys typed ahead at the other prompts', () => {
  it('b, then s while the request before is read: back at it (its closed prompt), s is nobody\'s answer', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = slow.merchant();
    const [a, b] = (await milkRequests(m, 2)) as [string, string];
    const term = svcInTerminal('svc-triage-ahead4', await triageOf(m, a), svcEnv(m.home, m.env), [80, 24]);
    try {
      await term.waitFor(`? ${a.slice(0, 8)} PENDING: a accept`);
      term.keys('r');
      await term.waitFor('? Why reject it?');
      term.type('torn');
      term.keys('Enter');
      await term.waitFor(/\(y\/N\)/);
      term.keys('y', 'Enter');
      await term.waitFor(`? ${b.slice(0, 8)} PENDING:`);
      term.keys('b');
      await term.waitFor(`✔ ${b.slice(0, 8)} PENDING: back`);
      term.keys('s');
      await term.waitFor(`? ${a.slice(0, 8)} REJECTED:`);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // Still at the request gone back to: the s typed with b did not move on.
      expect(term.text().trimEnd().split('\n').at(-1)).toContain(`? ${a.slice(0, 8)} REJECTED:`);
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain('SVC-EXIT=0');
    } finally {
      term.kill();
    }
  }, 90_000);

  it('Ctrl-C while a move runs still stops the walk, the terminal given back', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = slow.merchant();
    const [a] = (await milkRequests(m, 1)) as [string];
    const term = svcInTerminal('svc-triage-ahead6', await triageOf(m, a), svcEnv(m.home, m.env), [80, 24]);
    try {
      await term.waitFor(`? ${a.slice(0, 8)} PENDING: a accept`);
      term.keys('a');
      await term.waitFor(`✔ ${a.slice(0, 8)} PENDING: accept`);
      term.keys('C-c');
      // Ctrl-C stops the walk as it stops every command: exit 3 (interrupted), the terminal given its modes back.
      await term.waitFor(/SVC-EXIT=3\b/, 'the walk stopped', 10_000);
    } finally {
      term.kill();
    }
  }, 60_000);

  it('the part asked with p: an Enter typed with p does not accept the default part unseen', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [a] = (await milkRequests(m, 1)) as [string];
    const before = await queueStatuses(m);
    const term = svcInTerminal('svc-triage-ahead5', await triageOf(m, a), svcEnv(m.home, m.env), [120, 40]);
    try {
      await term.waitFor(`? ${a.slice(0, 8)} PENDING: a accept`);
      term.keys('p', 'Enter');
      await term.waitFor(/\? .*part/i);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(term.text()).not.toContain(`${a} PARTIALLY_ACCEPTED`);
      term.keys('C-c');
      await term.waitFor(`? ${a.slice(0, 8)} PENDING:`);
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
    } finally {
      term.kill();
    }
    expect(statusChanges(before, await queueStatuses(m))).toEqual({});
  }, 90_000);
});

describe('a question wider than the terminal', () => {
  it('is broken at words to the width, no line of it starting with a space (60 and 80 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = slow.merchant();
    const [a] = (await milkRequests(m, 1)) as [string];
    for (const width of [60, 80]) {
      const term = svcInTerminal(`svc-reject-wrap-${width}`, ['credit-note', 'reject', a], svcEnv(m.home, m.env), [width, 30]);
      try {
        await term.waitFor(/\(y\/N\)/);
        const lines = term.text().split('\n');
        const first = lines.findIndex((line) => line.startsWith('? Reject request'));
        const last = lines.findIndex((line, i) => i >= first && line.includes('(y/N)'));
        expect(first, term.text()).toBeGreaterThanOrEqual(0);
        const question = lines.slice(first, last + 1);
        // It does not fit on one line, so it was broken; each line fits and starts with a word.
        expect(question.length, term.text()).toBeGreaterThan(1);
        for (const line of question) {
          expect(line.length, line).toBeLessThanOrEqual(width);
          expect(line, term.text()).not.toMatch(/^ /);
        }
        expect(question.join(' ')).toMatch(spaced(String.raw`\? Reject request ${a.slice(0, 8)} on R-2025-000871-\d+ \(1 × Whole milk 3\.5% 1 l, 1\.28 EUR\) of Example Retail Ltd\? No credit note is issued\. It cannot be moved again\. \(y/N\)`));
        term.keys('n', 'Enter');
        await term.waitFor('SVC-EXIT=');
        expect(term.text()).toContain('SVC-EXIT=3');
      } finally {
        term.kill();
      }
    }
  }, 90_000);
});

describe('triage: the legal moves are the table\'s, final questions say what they do', () => {
  it('PENDING offers no i; after a, i issues and the echo names the credit note and COMPLETED; c says no credit note, how much, for whom', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [a, b] = (await milkRequests(m, 2)) as [string, string];
    const term = svcInTerminal('svc-triage-table', await triageOf(m, a), svcEnv(m.home, m.env), [120, 40]);
    try {
      await term.waitFor(`? ${a.slice(0, 8)} PENDING: a accept · p accept part · r reject · s skip · ? keys · q quit`);
      term.keys('i');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(term.text()).not.toContain('Issue credit note');
      term.keys('a');
      await term.waitFor(`? ${a.slice(0, 8)} ACCEPTED: i issue & complete · c complete, no credit note`);
      term.keys('i');
      await term.waitFor(spaced(String.raw`\? Issue credit note CN-R-2025-000871-\d+-1 for 1\.28 EUR \(1 × Whole milk 3\.5% 1 l\) from Example Retail Ltd and complete request ${a.slice(0, 8)} on R-2025-000871-\d+\? It cannot be moved again\.`));
      term.keys('y', 'Enter');
      await term.waitFor(`? ${b.slice(0, 8)} PENDING:`);
      expect(term.text()).toMatch(spaced(String.raw`\nissued credit note CN-R-2025-000871-\d+-1 for 1\.28 EUR, credit note ID [0-9a-f-]{36}; request ${a} is COMPLETED now \(read back from the ledger and the service\)`));
      term.keys('a');
      await term.waitFor(`? ${b.slice(0, 8)} ACCEPTED:`);
      term.keys('c');
      await term.waitFor(spaced(String.raw`\? Complete request ${b.slice(0, 8)} on R-2025-000871-\d+ \(1 × Whole milk 3\.5% 1 l, 1\.28 EUR\) of Example Retail Ltd with NO credit note: nothing is credited\? It cannot be moved again\.`));
      term.keys('n', 'Enter');
      await term.waitFor('cancelled: nothing was completed');
      await term.waitFor(`? ${b.slice(0, 8)} ACCEPTED:`);
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      expect(after(term, 'SVC-EXIT')).toBeDefined();
    } finally {
      term.kill();
    }
  }, 90_000);
});

describe('triage: what i prints is the walk\'s own line', () => {
  it('at 80 columns: the credit note issued, its amount and its ID labelled, read back; never issue\'s bare ID for scripts', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [a, b] = (await milkRequests(m, 2)) as [string, string];
    const term = svcInTerminal('svc-triage-issue-line', await triageOf(m, a), svcEnv(m.home, m.env), [80, 40]);
    let walk: string;
    try {
      await term.waitFor(`? ${a.slice(0, 8)} PENDING: a accept`);
      term.keys('a');
      await term.waitFor(`? ${a.slice(0, 8)} ACCEPTED:`);
      term.keys('i');
      await term.waitFor(/\(y\/N\)/);
      term.keys('y', 'Enter');
      await term.waitFor(`? ${b.slice(0, 8)} PENDING:`);
      // From the answered question to the next request's prompt: what the walk said about a.
      const text = term.text();
      walk = text.slice(text.lastIndexOf(' Issue credit note CN-'), text.lastIndexOf(`? ${b.slice(0, 8)} PENDING:`));
      expect(walk, text).toContain('(y/N) Yes');
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    const [note] = (await readLedgers(m.home.stateDir)).creditNotes.filter((n) => n.requestId === a);
    expect(note, walk).toBeDefined();
    const { serviceReceiptId: id, documentNumber } = note!;
    // issue's line for scripts, the bare ID alone on a line, is not in the walk.
    expect(walk, walk).not.toMatch(new RegExp(`^\\s*${id}\\s*$`, 'm'));
    // The walk's own: what was issued, for how much and the credit note's ID, named as such, read back.
    expect(walk.replace(/\s+/g, ' ')).toContain(`issued credit note ${documentNumber} for 1.28 EUR, credit note ID ${id}; request ${a} is COMPLETED now (read back from the ledger and the service)`);
    // The status is said once, in that line: not issue's own "request … is COMPLETED" before it.
    expect(walk.replace(/\s+/g, ' ').match(/ is COMPLETED/g), walk).toHaveLength(1);
    // Each line of it within the terminal's 80 columns.
    for (const line of walk.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  }, 90_000);
});

describe('triage after a partial accept: the final questions name the part accepted', () => {
  const [MILK, BREAD, BANANAS] = ['4001234567890', '4009876543210', 'PLU-4011'];
  /** The last question asked, from its first words to its (y/N), its lines joined. */
  const question = (term: Terminal, start: string) => after(term, start).slice(0, after(term, start).indexOf('(y/N)')).replace(/\s+/g, ' ');

  it('p of 1 milk of 3 lines: c names 1 milk at the amount --dry-run credits, not the lines left out; i credits exactly that part', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const lines = [`${MILK}:2`, `${BREAD}:1`, `${BANANAS}:1.25`].flatMap((item) => ['--item', item]);
    const a = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, ...lines])).stdout.trim();
    const term = svcInTerminal('svc-triage-part-c', ['credit-note', 'triage', '--receipt', serviceReceiptId], svcEnv(m.home, m.env), [120, 40]);
    try {
      await term.waitFor(`? ${a.slice(0, 8)} PENDING: a accept`);
      term.keys('p');
      await term.waitFor(/is accepted\?/);
      term.keys('C-u');
      term.type(`${MILK}:1`);
      term.keys('Enter');
      await term.waitFor(`? ${a.slice(0, 8)} PARTIALLY_ACCEPTED: i issue & complete · c complete, no credit note`);
      // What the final move would credit, as `issue --dry-run` says it, asked while the walk waits.
      const dry = await m.svc(['credit-note', 'issue', a, '--dry-run']);
      const total = /· total (\d+\.\d{2} EUR)/.exec(dry.stderr + dry.stdout)?.[1];
      expect(total, dry.stderr).toBe('1.28 EUR');

      term.keys('c');
      await term.waitFor(/\(y\/N\)/);
      const complete = question(term, '? Complete request');
      expect(complete).toContain(`Complete request ${a.slice(0, 8)} on R-2025-000871-`);
      expect(complete).toContain(`(accepted in part: 1 × Whole milk 3.5% 1 l, ${total}) of Example Retail Ltd with NO credit note: nothing is credited?`);
      // Not the request as the customer asked it: neither the lines left out nor their total.
      for (const left of ['2 × Whole milk', 'Sourdough bread', 'Bananas', '8.73 EUR']) expect(complete).not.toContain(left);
      term.keys('n', 'Enter');
      await term.waitFor('cancelled: nothing was completed');

      term.keys('i');
      await term.waitFor(/Issue credit note[^]*\(y\/N\)/);
      const issue = question(term, '? Issue credit note');
      expect(issue).toMatch(new RegExp(`^\\? Issue credit note CN-R-2025-000871-\\d+-1 for ${total!.replaceAll('.', '\\.')} \\(1 × Whole milk 3\\.5% 1 l\\) from Example Retail Ltd and complete request ${a.slice(0, 8)}`));
      for (const left of ['Sourdough bread', 'Bananas']) expect(issue).not.toContain(left);
      term.keys('y', 'Enter');
      await term.waitFor(spaced(`request ${a} is COMPLETED now \\(read back`));
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    // Yes credited exactly the part: one credit note, of 1 milk.
    const credited = (await readLedgers(m.home.stateDir)).creditNotes.filter((n) => n.parent === serviceReceiptId);
    expect(credited.map((n) => n.lines.map((l) => [l.productId, l.quantity]))).toEqual([[[MILK, 1]]]);
  }, 90_000);
});

describe('a single move: keys typed ahead while it starts are no answer', () => {
  it('`issue --complete` and `reject` with y Enter typed before their question: each waits for an answer; n cancels (exit 3), nothing moves', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = slow.merchant();
    const [a, b] = (await milkRequests(m, 2)) as [string, string];
    const before = await queueStatuses(m);
    for (const [name, args, question, cancelled] of [
      ['svc-issue-ahead', ['credit-note', 'issue', a, '--complete'], String.raw`\? Issue credit note CN-R-2025-000871-\d+-1 for 1\.28 EUR \(1 × Whole milk 3\.5% 1 l\) from Example Retail Ltd and complete request ${a.slice(0, 8)} on R-2025-000871-\d+\? It cannot be moved again\. \(y/N\)`, 'cancelled: no credit note was issued'],
      ['svc-reject-ahead', ['credit-note', 'reject', b], String.raw`\? Reject request ${b.slice(0, 8)} on R-2025-000871-\d+ \(1 × Whole milk 3\.5% 1 l, 1\.28 EUR\) of Example Retail Ltd\? No credit note is issued\. It cannot be moved again\. \(y/N\)`, 'cancelled'],
    ] as const) {
      const term = svcInTerminal(name, [...args], svcEnv(m.home, m.env), [120, 40]);
      try {
        // Typed at once: the command is still starting, and then waits 400 ms for each answer.
        term.keys('y', 'Enter');
        await term.waitFor(spaced(question));
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(term.text()).not.toContain('SVC-EXIT=');
        term.keys('n', 'Enter');
        await term.waitFor('SVC-EXIT=');
        expect(term.text()).toContain('SVC-EXIT=3');
        expect(term.text()).toContain(cancelled);
        // The answered question keeps the answer as it was taken.
        expect(term.text()).toMatch(/\(y\/N\) No$/m);
      } finally {
        term.kill();
      }
    }
    expect(statusChanges(before, await queueStatuses(m))).toEqual({});
  }, 90_000);
});
