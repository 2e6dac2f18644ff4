// The queue as a person reads it, in a real terminal (tmux) at 80×40 and 160×50: 150
// requests, no row wider than the terminal (nothing wraps), the header and the count footer
// there; and piped, every note whole with tabs and line breaks escaped.
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { svcEnv } from './helpers.js';
import { shellAssignments, tmux } from './tmux.js';
import { useMerchant } from './merchant.js';
import { requireTools } from './require-tools.js';

const { merchant } = useMerchant();
const NOTE = 'Der Deckel\tleckt 🍮 日本語 — a long note that goes on and on\nand has a second line';

describe('credit-note poll as a table', () => {
  it('150 requests: fits 80 and 160 columns, header and footer shown; piped rows keep the whole note', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const bulk = await fetch(`${m.sandbox.url}/sandbox/return-requests/bulk`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ serviceReceiptId, count: 150, customerNote: NOTE }),
    });
    expect(bulk.status).toBe(201);

    const env = svcEnv(m.home, m.env);
    const exports = shellAssignments(env);
    for (const [width, height] of [[80, 40], [160, 50]] as const) {
      const session = `svc-table-${width}-${process.pid}`;
      tmux(['new-session', '-d', '-s', session, '-x', String(width), '-y', String(height), `env -u CI ${exports} node ${process.cwd()}/bin/svc.js credit-note poll --receipt ${serviceReceiptId}; echo POLL-EXIT=$?; sleep 30`]);
      try {
        let screen = '';
        for (let i = 0; i < 200 && !screen.includes('POLL-EXIT='); i++) {
          await new Promise((r) => setTimeout(r, 100));
          screen = tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', session]);
        }
        expect(screen).toContain('POLL-EXIT=0');
        const lines = screen.split('\n');
        // -J joins wrapped lines: a row wider than the terminal would come back longer than it.
        for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
        expect(lines.some((l) => /^REQUEST ID +RECEIPT +STATUS +AGE/.test(l)), screen.slice(0, 1500)).toBe(true);
        expect(screen).toMatch(/150 requests · 150 pending · oldest \d+s/);
        expect(lines.filter((l) => l.includes('PENDING'))).toHaveLength(150);
      } finally {
        tmux(['kill-session', '-t', session]);
      }
    }

    const piped = await m.svc(['credit-note', 'poll', '--receipt', serviceReceiptId]);
    const rows = piped.stdout.trim().split('\n');
    expect(rows).toHaveLength(150);
    expect(rows[0]?.split('\t').at(-1)).toBe('Der Deckel\\tleckt 🍮 日本語 — a long note that goes on and on\\nand has a second line');
  }, 120_000);
});

describe('credit-note poll --watch on a terminal', () => {
  it('draws on the alternate screen, highlights a request that arrives, and leaves nothing in the scrollback', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const first = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
    const env = svcEnv(m.home, m.env);
    const exports = shellAssignments(env);
    const session = `svc-watch-${process.pid}`;
    tmux(['new-session', '-d', '-s', session, '-x', '150', '-y', '30', `echo BEFORE-WATCH; env -u CI ${exports} node ${process.cwd()}/bin/svc.js credit-note poll --watch --interval 1 --receipt ${serviceReceiptId}; echo WATCH-EXIT=$?; sleep 30`]);
    const screen = (escapes = false) => tmux(['capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', session]);
    const until = async (what: () => boolean, label: string) => {
      for (let i = 0; i < 150; i++) {
        if (what()) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${label} never showed:\n${screen()}`);
    };
    try {
      await until(() => screen().includes(first.slice(0, 8)), 'the first request');
      expect(screen()).toMatch(/^ {3}REQUEST ID/);
      expect(screen()).toMatch(/1 request · 1 pending · oldest \d+s · row 1 · updated \d\d:\d\d:\d\d \S+/);
      const second = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
      // The refresh that first shows it marks its row with +; the cursor's row is in reverse video.
      await until(() => screen().split('\n').some((l) => l.includes(second.slice(0, 8)) && l.startsWith(' + ')), 'the new request, marked');
      expect(screen(true).split('\n').some((l) => l.includes(first.slice(0, 8)) && l.includes('\u001b[7m'))).toBe(true);
      tmux(['send-keys', '-t', session, 'C-c']);
      await until(() => screen().includes('WATCH-EXIT='), 'the end of the watch');
      const all = tmux(['capture-pane', '-p', '-S', '-', '-t', session]);
      expect(all).toContain('BEFORE-WATCH');
      expect(all).not.toContain('REQUEST ID');
    } finally {
      tmux(['kill-session', '-t', session]);
    }
  }, 60_000);
});
