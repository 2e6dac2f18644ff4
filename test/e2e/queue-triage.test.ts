// `credit-note triage` in a real terminal (tmux), against a sandbox: through several
// requests (accept one, reject one with its reason and confirmation, issue one, quit), then
// the service and the ledger say that exactly those changed and exactly one credit note was
// issued. Without a terminal, or with --no-input on one, it is a usage error (exit 2).
import { describe, expect, it } from 'vitest';
import { readLedgers } from './ledger.js';
import { runSvc, svcEnv } from './helpers.js';
import { milkRequests, queueStatuses, statusChanges, useMerchant, type Merchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant } = useMerchant();



/** The credit notes the sandbox delivered (each to every device of its customer). */
async function creditNotesDelivered(m: Merchant): Promise<Set<string>> {
  const deliveries = (await (await fetch(`${m.sandbox.url}/sandbox/deliveries`)).json()) as { kind: string; serviceReceiptId: string }[];
  return new Set(deliveries.filter((d) => d.kind === 'CREDIT_NOTE').map((d) => d.serviceReceiptId));
}


describe('credit-note triage in a terminal', () => {
  it('accept one, reject one with a reason and its confirmation, issue one, quit: exactly those change, one credit note', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    // Two of milk on the receipt, and four requests for one each: only what triage issues is credited.
    const [a, b, c, d] = (await milkRequests(m, 4)) as [string, string, string, string];
    const before = await queueStatuses(m);
    const notesBefore = await creditNotesDelivered(m);

    const term = svcInTerminal('svc-triage', ['credit-note', 'triage'], svcEnv(m.home, m.env));
    try {
      await term.waitFor(`? ${a.slice(0, 8)} PENDING: a accept · p accept part · r reject · s skip · ? keys · q quit`);
      expect(term.text()).toContain('── 1 of 4 ──');
      expect(term.text()).toContain('checks: all passed');
      term.keys('a');
      await term.waitFor(`? ${a.slice(0, 8)} ACCEPTED: i issue & complete · c complete, no credit note · s next · ? keys · q quit`);
      term.keys('s');
      await term.waitFor(`? ${b.slice(0, 8)} PENDING:`);
      term.keys('r');
      await term.waitFor('? Why reject it?');
      term.type('box arrived opened');
      term.keys('Enter');
      await term.waitFor(/\? Reject request [0-9a-f]{8} on R-2025-000871-\d+ \(1 × Whole milk 3\.5% 1 l, 1\.28 EUR\) of Example Retail Ltd\? No credit note is issued\.\s+It cannot be moved again\./);
      term.keys('y', 'Enter');
      await term.waitFor(`? ${c.slice(0, 8)} PENDING:`);
      // No i on a PENDING request (the moves table): accepted first, then issued.
      term.keys('a');
      await term.waitFor(`? ${c.slice(0, 8)} ACCEPTED:`);
      term.keys('i');
      await term.waitFor(/\? Issue credit note CN-R-2025-000871-\d+-1 for 1\.28 EUR \(1 × Whole milk 3\.5% 1 l\) from Example Retail Ltd and complete request [0-9a-f]{8} on R-2025-000871-\d+\?/);
      term.keys('y', 'Enter');
      await term.waitFor(`? ${d.slice(0, 8)} PENDING:`);
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      const screen = term.text();
      expect(screen).toContain('SVC-EXIT=0');
      // Each request once, where it ended: c, accepted and then issued, is issued ("accepted first").
      expect(screen).toMatch(new RegExp(`^accepted +1: ${a.slice(0, 8)}$`, 'm'));
      expect(screen).toMatch(new RegExp(`^rejected +1: ${b.slice(0, 8)} \\("box arrived opened"\\)$`, 'm'));
      expect(screen).toMatch(new RegExp(`^issued +1: CN-R-2025-000871-\\d+-1 \\(request ${c.slice(0, 8)}, accepted first, credit note ID [0-9a-f-]{36}\\)$`, 'm'));
      // d was on screen at `q`: reached, nothing done to it.
      expect(screen).toMatch(new RegExp(`^skipped +1: ${d.slice(0, 8)}$`, 'm'));
    } finally {
      term.kill();
    }

    expect(statusChanges(before, await queueStatuses(m))).toEqual({ [a]: 'ACCEPTED', [b]: 'REJECTED', [c]: 'COMPLETED' });
    const notesAfter = await creditNotesDelivered(m);
    const issued = [...notesAfter].filter((id) => !notesBefore.has(id));
    expect(issued).toHaveLength(1);
    const ledger = await readLedgers(m.home.stateDir);
    expect(ledger.creditNotes.filter((n) => [a, b, c, d].includes(n.requestId)).map((n) => [n.requestId, n.serviceReceiptId])).toEqual([[c, issued[0]]]);
    expect(ledger.open).toEqual([]);
    // The reason stayed here: show prints it from the ledger.
    expect((await m.svc(['credit-note', 'show', b])).stdout).toMatch(/^reason +box arrived opened \(rejected .*; kept on this machine only\)$/m);
  }, 120_000);

  it('needs a terminal: without one, or with --no-input on one, exit 2 and nothing changed', async (ctx) => {
    const m = merchant();
    await milkRequests(m, 1);
    const before = await queueStatuses(m);
    const piped = await runSvc(['credit-note', 'triage'], { home: m.home, env: m.env });
    expect(piped.exitCode).toBe(2);
    expect(piped.stderr).toContain('triage needs a terminal; use poll/accept/reject/issue in scripts');
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const term = svcInTerminal('svc-triage-no-input', ['credit-note', 'triage', '--no-input'], svcEnv(m.home, m.env));
    try {
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain('SVC-EXIT=2');
      expect(term.text()).toContain('triage needs a terminal');
    } finally {
      term.kill();
    }
    expect(statusChanges(before, await queueStatuses(m))).toEqual({});
  }, 60_000);
});
