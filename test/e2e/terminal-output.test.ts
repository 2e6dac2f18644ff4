// Output tidy on a real terminal (tmux): colour is decided per stream, so `svc demo | cat`
// on a terminal writes no escape codes into the pipe while stderr (the terminal) may keep
// its colours; and no spinner leaves a "✔ …" line behind.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, svcBin, tempDirs } from './helpers.js';
import { tmux } from './tmux.js';
import { requireTools } from './require-tools.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('svc demo on a terminal, piped', () => {
  it('puts no colour codes into the pipe, and leaves no spinner lines on the screen', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const dir = await dirs.make('svc-demo-pipe-');
    const out = join(dir, 'demo.txt');
    const session = `svc-demo-${process.pid}`;
    // A terminal (TERM set, no NO_COLOR): stdout is a pipe into cat, stderr the terminal.
    tmux(['new-session', '-d', '-s', session, '-x', '160', '-y', '50', `cd ${repoRoot} && env -u NO_COLOR -u CI TERM=xterm-256color HOME=${dir} node ${svcBin} demo | cat > ${out}; echo DEMO-EXIT=$?; sleep 60`]);
    try {
      let screen = '';
      for (let i = 0; i < 1200 && !screen.includes('DEMO-EXIT='); i++) {
        await new Promise((r) => setTimeout(r, 100));
        screen = tmux(['capture-pane', '-p', '-S', '-2000', '-t', session]);
      }
      expect(screen).toContain('DEMO-EXIT=0');
      expect(screen).not.toMatch(/^[✔✖] /m);
    } finally {
      tmux(['kill-session', '-t', session]);
    }
    const text = await readFile(out, 'utf8');
    expect(text).toContain('== An embedded sandbox');
    expect(text).not.toContain('\u001b[');
  }, 150_000);
});
