// `credit-note triage --all-grants` when a company's Grant is revoked in the middle of the
// walk: each move for it fails with the service's refusal, the summary says which requests
// could not be moved and why, and the walk exits 9 (partly failed), as poll does.
import { describe, expect, it } from 'vitest';
import { svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant } = useMerchant();

describe('triage --all-grants with a Grant revoked during the walk', () => {
  it('names the requests that could not be moved and why, and exits 9', async (ctx) => {
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
    const term = svcInTerminal('svc-triage-revoked', ['credit-note', 'triage', '--all-grants'], svcEnv(m.home, m.env));
    try {
      await term.waitFor(`? ${retail.slice(0, 8)} PENDING:`);
      // Foods' Grant revoked while the walk is on retail's request.
      const grants = await m.json<Record<string, unknown>[]>(['grants', 'list']);
      await m.svc(['sandbox', 'revoke', String(grants.find((g) => JSON.stringify(g).includes('Sample Foods'))!.grant_id)]);
      term.keys('s');
      await term.waitFor(`? ${foods.slice(0, 8)} PENDING:`);
      term.keys('a');
      // The move refused (after show's own refusal on arrival), and the keys asked again.
      for (const deadline = Date.now() + 20_000; ; ) {
        const text = term.text();
        if ((text.match(/error: the service refused Grant/g) ?? []).length >= 2 && text.trimEnd().split('\n').at(-1)?.startsWith(`? ${foods.slice(0, 8)} PENDING:`)) break;
        if (Date.now() > deadline) throw new Error(`the refused move never showed:\n${text}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      const screen = term.text();
      expect(screen).toMatch(new RegExp(`^could not be moved +1: ${foods.slice(0, 8)} \\(.*revoked`, 'm'));
      expect(screen).toMatch(new RegExp(`^skipped +1: ${retail.slice(0, 8)}$`, 'm'));
      expect(screen).toContain('1 of 2 requests reached could not be moved');
      expect(screen).toContain('SVC-EXIT=9');
      // The refusal alone: no warning about keeping a copy before it.
      expect(screen).not.toContain('could not keep a copy');
      // A hint that works here, a local sandbox: its one-step login brings a new Grant.
      expect(screen).toContain('hint: log in again for a new Grant: `svc sandbox login`');
    } finally {
      term.kill();
    }
  }, 120_000);
});
