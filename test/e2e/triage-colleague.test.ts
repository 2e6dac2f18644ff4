// Triage on a team's database while a colleague on another machine credits or closes the same
// requests. What triage asks is true before it is answered (`r` on a request with a colleague's
// credit note is refused at once, naming it, with a hint that works as printed), and its
// summary counts what this walk did, not what the colleague did: a request completed on a
// colleague's credit note is "completed, already credited", never "issued" by this walk; one
// the colleague closed while `i`'s question was open is "changed elsewhere".
import { describe, expect, it } from 'vitest';
import { svcEnv, type SvcHome } from './helpers.js';
import { requireTools } from './require-tools.js';
import { useTeam } from './team.js';
import { svcInTerminal, type Terminal } from './tmux.js';

const { skip, team: t } = useTeam('triage_colleague');
const MILK = '4001234567890';

/** `svc ARGS` on a machine of the team, expected to exit 0. */
async function on(home: SvcHome, args: string[]): Promise<string> {
  const r = await t().on(home, args);
  expect(r.exitCode, `svc ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** A receipt (milk bought twice) sent on the team's database, and `count` requests of one milk each on it. */
async function milkRequests(count: number): Promise<{ receipt: string; ids: string[] }> {
  const { m } = t();
  const { serviceReceiptId } = JSON.parse(await on(m.home, ['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--json'])) as { serviceReceiptId: string };
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await on(m.home, ['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${MILK}:1`])).trim());
  return { receipt: serviceReceiptId, ids };
}

async function statusOf(requestId: string): Promise<string | undefined> {
  const all = JSON.parse(await on(t().m.home, ['credit-note', 'poll', '--all', '--json'])) as { requestId: string; status: string }[];
  return all.find((q) => q.requestId === requestId)?.status;
}

/** `svc ARGS` on a terminal of the machine `home`, on the team's database. */
function terminal(name: string, home: SvcHome, args: string[]): Terminal {
  return svcInTerminal(name, args, svcEnv(home, { ...t().m.env, SVC_DATABASE_URL: t().url }), [250, 60]);
}

/** The `svc …` commands quoted in `text` that name `requestId`, as argv without the leading `svc`. */
function printedCommands(text: string, requestId: string): string[][] {
  return [...text.replace(/\s+/g, ' ').matchAll(/`svc ([^`]+)`/g)].map((m) => m[1]!.trim().split(' ')).filter((argv) => argv.includes(requestId));
}

const short = (id: string) => id.slice(0, 8);

describe.skipIf(skip !== undefined)(`triage beside a colleague's credit note${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('r on a PENDING request a colleague credited: refused at once, no reason asked and no "No credit note is issued"; the hint, run as printed, completes it', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const { m, other } = t();
    const { receipt, ids } = await milkRequests(1);
    const [a] = ids as [string];
    // The colleague (machine A) issues its credit note and leaves it PENDING.
    await on(m.home, ['credit-note', 'issue', a, '--yes']);

    let walked: string;
    const term = terminal('colleague-reject', other, ['credit-note', 'triage', '--receipt', receipt]);
    try {
      await term.waitFor(`? ${short(a)} PENDING: a accept`);
      term.keys('r');
      await term.waitFor(/it cannot be rejected[\s\S]*\? [0-9a-f]{8} PENDING:/);
      walked = term.text();
      expect(walked).not.toContain('Why reject');
      expect(walked).not.toContain('No credit note is issued');
      expect(walked).toMatch(new RegExp(`already has credit note CN-R-2025-000871-\\d+-1 \\(issued, or being submitted\\): it cannot be rejected`));
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain('SVC-EXIT=0');
      expect(term.text()).toMatch(/^rejected +0$/m);
    } finally {
      term.kill();
    }
    // The single command says the same before asking anything.
    const single = terminal('colleague-reject-single', other, ['credit-note', 'reject', a]);
    try {
      await single.waitFor('SVC-EXIT=');
      expect(single.text()).toContain('SVC-EXIT=7');
      expect(single.text()).not.toContain('No credit note is issued');
    } finally {
      single.kill();
    }
    expect(await statusOf(a)).toBe('PENDING');

    // Every command of the hint, run as printed on the machine that read it.
    const hinted = printedCommands(walked.slice(walked.indexOf('it cannot be rejected')), a);
    expect(hinted.length, walked).toBeGreaterThan(0);
    for (const argv of hinted) {
      const run = terminal(`colleague-hint-${argv[1]}`, other, argv);
      try {
        await run.waitFor(/\(y\/N\)|SVC-EXIT=/);
        if (!run.text().includes('SVC-EXIT=')) run.keys('y', 'Enter');
        await run.waitFor('SVC-EXIT=');
        expect(run.text(), `svc ${argv.join(' ')}`).toContain('SVC-EXIT=0');
      } finally {
        run.kill();
      }
    }
    expect(await statusOf(a)).toBe('COMPLETED');
  }, 180_000);

  it("i on requests a colleague credited, before the walk and while the question was open: completed, already credited; none counted issued", async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const { m, other } = t();
    const { receipt, ids } = await milkRequests(2);
    const [first, second] = ids as [string, string];
    await on(m.home, ['credit-note', 'accept', first, second]);
    await on(m.home, ['credit-note', 'issue', first, '--yes']);

    const term = terminal('colleague-issued', other, ['credit-note', 'triage', '--receipt', receipt]);
    try {
      await term.waitFor(`? ${short(first)} ACCEPTED: i issue`);
      term.keys('i');
      await term.waitFor(`Request ${first} of Example Retail Ltd was already credited by`);
      term.keys('y', 'Enter');
      await term.waitFor(`? ${short(second)} ACCEPTED: i issue`);
      term.keys('i');
      await term.waitFor(`and complete request ${short(second)} on`);
      // The colleague issues it while the question is open.
      await on(m.home, ['credit-note', 'issue', second, '--yes']);
      term.keys('y', 'Enter');
      await term.waitFor('SVC-EXIT=');
      const text = term.text();
      expect(text).toContain('SVC-EXIT=0');
      expect(text).toMatch(new RegExp(`request ${second}: already credited by CN-R-2025-000871-\\d+-2 \\(issued on [^)]*, recorded in the team's database\\); completed`));
      expect(text).toMatch(/^issued +0$/m);
      expect(text).toMatch(new RegExp(`^completed, already credited +2: ${short(first)} \\(by CN-R-2025-000871-\\d+-1\\), ${short(second)} \\(by CN-R-2025-000871-\\d+-2\\)$`, 'm'));
      expect(text).toMatch(/^skipped +0$/m);
    } finally {
      term.kill();
    }
    expect(await statusOf(first)).toBe('COMPLETED');
    expect(await statusOf(second)).toBe('COMPLETED');
  }, 180_000);

  it('i refused because a colleague issued and completed it, or completed it credited elsewhere, while the question was open: exit 7 in the walk, counted changed elsewhere', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const { m, other } = t();
    const { receipt, ids } = await milkRequests(2);
    const [issued, settled] = ids as [string, string];
    await on(m.home, ['credit-note', 'accept', issued, settled]);

    const term = terminal('colleague-closed', other, ['credit-note', 'triage', '--receipt', receipt]);
    try {
      for (const [id, colleague] of [
        [issued, ['credit-note', 'issue', issued, '--complete', '--yes']],
        [settled, ['credit-note', 'complete', settled, '--credited-elsewhere', '--yes']],
      ] as const) {
        await term.waitFor(`? ${short(id)} ACCEPTED: i issue`);
        term.keys('i');
        await term.waitFor(`and complete request ${short(id)} on`);
        await on(m.home, [...colleague]);
        term.keys('y', 'Enter');
        await term.waitFor(`request ${id} is COMPLETED now (moved elsewhere while the question was open): no credit note was issued`);
      }
      await term.waitFor('SVC-EXIT=');
      const text = term.text();
      expect(text).toContain('SVC-EXIT=0');
      expect(text).toMatch(/^issued +0$/m);
      expect(text).not.toMatch(/^completed/m);
      expect(text).toMatch(new RegExp(`^changed elsewhere +2: ${short(issued)}, ${short(settled)}$`, 'm'));
      expect(text).toMatch(/^skipped +0$/m);
    } finally {
      term.kill();
    }
  }, 180_000);
});
