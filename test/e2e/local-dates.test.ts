// Dates as people read them (issue 20): on a terminal every command shows a time in the local
// zone of TZ, to the minute, with the zone's name ("2026-11-26 17:13 GMT+9"); piped rows and
// --json keep the ISO text. Read off a real 80-column terminal (tmux).
import { describe, expect, it } from 'vitest';
import { svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant } = useMerchant();
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d/;

describe('dates in the local time zone on a terminal', () => {
  it('keys list, keys show-remote, sandbox outbox, webhook list: local to the minute under TZ and never cut at 80 columns, ISO when piped', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    await m.svc(['receipt', 'email', '--file', m.receiptFile, '--to', 'alice@example.com']);
    await m.svc(['webhook', 'subscribe', '--url', 'https://shop.example/a-long-path/for/webhooks/that/goes/on']);
    for (const args of [['keys', 'list'], ['keys', 'show-remote'], ['sandbox', 'outbox'], ['webhook', 'list']]) {
      const term = svcInTerminal(`svc-dates-${args[1]}`, args, svcEnv(m.home, { ...m.env, TZ: 'Asia/Tokyo' }), [80, 30]);
      try {
        await term.waitFor('SVC-EXIT=0', args.join(' '));
        const screen = term.text();
        expect(screen, args.join(' ')).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d GMT\+9/);
        expect(screen, args.join(' ')).not.toMatch(ISO);
      } finally {
        term.kill();
      }
      const piped = await m.svc(args);
      expect(piped.stdout, `${args.join(' ')} piped`).toMatch(ISO);
    }
  }, 60_000);
});
