// A request ID left out, in a real terminal (tmux) against a sandbox: `credit-note accept`
// lists the open requests oldest first, the second is chosen with the arrow keys and only it
// is accepted; Esc backs out (exit 3, nothing changed). Without a terminal, or with
// --no-input on one, a missing ID is the usage error (exit 2) it always was.
import { describe, expect, it } from 'vitest';
import { runSvc, svcEnv } from './helpers.js';
import { milkRequests, queueStatuses, statusChanges, useMerchant } from './merchant.js';
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
      await term.waitFor('? Which return request to accept?');
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
