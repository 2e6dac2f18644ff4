// `credit-note triage --all-grants` in a real terminal (tmux): the open requests of both
// companies of the merchant's login in one walk, oldest first, each under its company's name
// and decided for that company (the other company's Grant would be told "not found").
import { describe, expect, it } from 'vitest';
import { svcEnv } from './helpers.js';
import { useMerchant, type PolledItem } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant } = useMerchant();

describe('credit-note triage --all-grants', () => {
  it('walks both companies\' requests, oldest first, each named and accepted under its own Grant', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const request = async (grant: string) => {
      const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--grant', grant, '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      return (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
    };
    const retail = await request('retail');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const foods = await request('foods');

    const term = svcInTerminal('svc-triage-all', ['credit-note', 'triage', '--all-grants'], svcEnv(m.home, m.env));
    try {
      await term.waitFor(`? ${retail.slice(0, 8)} PENDING:`);
      expect(term.text()).toContain('Example Retail Ltd');
      expect(term.text()).toContain('── 1 of 2 ──');
      term.keys('a');
      await term.waitFor(`? ${retail.slice(0, 8)} ACCEPTED:`);
      term.keys('s');
      await term.waitFor(`? ${foods.slice(0, 8)} PENDING:`);
      expect(term.text()).toContain('Sample Foods GmbH');
      term.keys('a');
      await term.waitFor(`? ${foods.slice(0, 8)} ACCEPTED:`);
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    const statuses = new Map((await m.json<(PolledItem & { grantId: string })[]>(['credit-note', 'poll', '--all-grants', '--all', '--no-decrypt'])).map((i) => [i.requestId, i.status]));
    expect([statuses.get(retail), statuses.get(foods)]).toEqual(['ACCEPTED', 'ACCEPTED']);
  }, 120_000);

  it('a company whose queue cannot be read: said at the start, named again in the summary ("not read"), and the walk exits 9 as poll does', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--grant', 'retail', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
    const grants = await m.json<Record<string, unknown>[]>(['grants', 'list']);
    const foods = grants.find((g) => JSON.stringify(g).includes('Sample Foods'))!;
    await m.svc(['sandbox', 'revoke', String(foods.grant_id)]);

    const term = svcInTerminal('svc-triage-unread', ['credit-note', 'triage', '--all-grants'], svcEnv(m.home, m.env));
    try {
      // The first test's requests are open too (ACCEPTED): whichever comes first.
      await term.waitFor(/\? [0-9a-f]{8} (PENDING|ACCEPTED):/);
      expect(term.text()).toMatch(/error: Sample Foods GmbH .*revoked/);
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      const screen = term.text();
      expect(screen).toMatch(/^not read +1 of 2 companies, their requests not walked: Sample Foods GmbH$/m);
      expect(screen).toContain('1 of 2 Grants could not be read');
      expect(screen).toContain('SVC-EXIT=9');
    } finally {
      term.kill();
    }
  }, 120_000);

  it('the queue screen over many companies says which it could not poll, where it stays (stderr lines are drawn over)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    // Sample Foods' Grant was revoked by the test before.
    const term = svcInTerminal('svc-screen-unread', ['credit-note', 'poll', '--watch', '--interval', '600', '--all-grants'], { ...svcEnv(m.home, m.env), NO_COLOR: '1' }, [120, 24]);
    try {
      await term.waitFor('REQUEST ID');
      await term.waitFor('warning: 1 of 2 companies could not be polled, their requests not shown: Sample Foods GmbH');
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
    } finally {
      term.kill();
    }
  }, 60_000);
});
