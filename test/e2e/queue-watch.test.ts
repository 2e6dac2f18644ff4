// `credit-note poll --watch` on a real terminal (tmux): it re-fits to the terminal on every
// resize (60, 80 and 160 columns, with a long interval so only the resize can redraw it), no
// row wraps, typed keys are not echoed, q and Esc leave it (exit 0) with the normal screen
// (the queue screen's keys: test/e2e/queue-screen.test.ts)
// back; piped, a request that leaves the view is said (`deleted`).
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { svcBin, svcEnv } from './helpers.js';
import { milkRequests, useMerchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { shellAssignments, tmux } from './tmux.js';

const { merchant } = useMerchant();

async function until(what: () => boolean, label: string, screen: () => string, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !what(); ) {
    if (Date.now() > deadline) throw new Error(`${label} never showed:\n${screen()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('poll --watch on a terminal', () => {
  it('re-fits on every resize (160 → 60 → 80 → 160), echoes nothing, q leaves; Esc leaves too', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [first] = await milkRequests(m, 3);
    const receipt = (await m.json<{ requestId: string; serviceReceiptId: string }[]>(['credit-note', 'poll'])).find((i) => i.requestId === first)!.serviceReceiptId;
    const exports = shellAssignments(svcEnv(m.home, m.env), ['NO_COLOR']);
    for (const leaveWith of ['q', 'Escape']) {
      const session = `svc-watch-fit-${leaveWith}-${process.pid}`;
      tmux(['new-session', '-d', '-s', session, '-x', '160', '-y', '30', `env -i ${exports} TERM=xterm-256color node ${svcBin} credit-note poll --watch --interval 600 --receipt ${receipt}; echo WATCH-EXIT=$?; sleep 30`]);
      const screen = () => tmux(['capture-pane', '-p', '-J', '-t', session]);
      try {
        await until(() => screen().includes(first!.slice(0, 8)) && screen().includes('q leave'), 'the table', screen);
        for (const width of [60, 80, 160]) {
          tmux(['resize-window', '-t', session, '-x', String(width), '-y', '30']);
          // The footer and the keys line are fitted to the width they were drawn for: one line each
          // at 160, wrapped between their parts at 60 and 80 (no figure or key cut).
          const fitted = () => {
            const lines = screen().split('\n').filter((l) => l.trim() !== '');
            const footer = lines.find((l) => l.startsWith('3 requests'));
            const keys = lines.at(-1) ?? '';
            const whole = !lines.some((l) => l.endsWith('…')) && keys.endsWith('q leave');
            const drawnFor = width === 160 ? footer?.endsWith('every 600 s') === true && whole : whole && footer?.endsWith('every 600 s') === false && lines.some((l) => l.endsWith('every 600 s'));
            return lines[0]?.trimStart().startsWith('REQUEST ID') === true && footer !== undefined && drawnFor;
          };
          await until(fitted, `the table drawn again at ${width} columns`, screen);
          // -J joins a wrapped line: none is wider than the terminal.
          for (const line of screen().split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
          expect(screen().split('\n').filter((l) => l.includes('PENDING'))).toHaveLength(3);
        }
        // Keys that mean nothing here are neither echoed nor acted on.
        tmux(['send-keys', '-t', session, '-l', 'xyz']);
        await new Promise((r) => setTimeout(r, 300));
        expect(screen()).not.toContain('xyz');
        tmux(['send-keys', '-t', session, leaveWith]);
        await until(() => screen().includes('WATCH-EXIT='), 'the end of the watch', screen);
        expect(screen()).toContain('WATCH-EXIT=0');
        expect(screen()).not.toContain('REQUEST ID');
      } finally {
        tmux(['kill-session', '-t', session]);
      }
    }
  }, 90_000);
});

describe('poll --watch piped', () => {
  it('says when a request leaves the view: deleted, with its status now', async () => {
    const m = merchant();
    const [a, b] = await milkRequests(m, 2);
    const watch = execa('node', [svcBin, 'credit-note', 'poll', '--watch', '--interval', '1', '--json'], { env: { ...svcEnv(m.home, m.env) }, extendEnv: false, reject: false });
    const lines: { change: string; requestId: string; currentStatus?: string | null }[] = [];
    let buffer = '';
    watch.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
        lines.push(JSON.parse(buffer.slice(0, at)) as (typeof lines)[number]);
        buffer = buffer.slice(at + 1);
      }
    });
    try {
      const text = () => JSON.stringify(lines);
      await until(() => lines.some((l) => l.requestId === a && l.change === 'new'), 'a as new', text);
      await m.svc(['credit-note', 'reject', '--yes', a!]);
      await until(() => lines.some((l) => l.requestId === a && l.change === 'deleted'), 'a deleted', text);
      expect(lines.find((l) => l.requestId === a && l.change === 'deleted')?.currentStatus).toBe('REJECTED');
      expect(lines.filter((l) => l.requestId === b).map((l) => l.change)).toEqual(['new']);
    } finally {
      watch.kill('SIGINT');
      await watch;
    }
  }, 60_000);
});
