// Help and long text on a real terminal (tmux) at 60 and 80 columns: `svc --help`, `svc help
// environment` and a command's help wrap at word boundaries, so no line is wider than the
// terminal (capture-pane -J joins a line the terminal wrapped, which would come back longer)
// and no word is cut in two.
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { makeSvcHome, svcEnv, tempDirs } from './helpers.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';
import { afterAll } from 'vitest';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

/** Words of each page that must stay whole (a path, a flag, a shell command). */
const EXPECTED: Record<string, string[]> = {
  'credit-note poll': ['serviceReceiptId', 'comma-separated'],
  'credit-note status': ['[request-id]', 'PARTIALLY_ACCEPTED'],
  'sandbox trigger return-request': ['/sandbox/receipts/{serviceReceiptId}/return-requests', 'ageSeconds=604800', 'ORIGINAL_PAYMENT_METHOD'],
  completion: ['~/.local/share/bash-completion/completions/svc', 'compinit'],
};

describe('help wraps at word boundaries to the terminal', () => {
  it('at 60 and 80 columns', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const home = await makeSvcHome(dirs);
    const pages = [['--help'], ['help', 'environment'], ['credit-note', 'poll', '--help'], ['credit-note', 'status', '--help'], ['sandbox', 'trigger', 'return-request', '--help'], ['completion', '--help']];
    for (const width of [60, 80]) for (const args of pages) {
      const term = svcInTerminal(`svc-help-${width}`, args, svcEnv(home), [width, 200]);
      try {
        await term.waitFor('SVC-EXIT=0', args.join(' '));
        const lines = term.text().split('\n');
        for (const line of lines) expect(displayWidth(line), `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(width);
        // Words the text has, whole on some line.
        const expected = args[0] === 'help' ? ['SVC_PRIVATE_KEY_FILE', 'decrypts', 'PostgreSQL'] : args[0] === '--help' ? ['integration', 'credentials'] : EXPECTED[args.slice(0, -1).join(' ')] ?? [];
        for (const word of expected) expect(term.text(), word).toContain(word);
      } finally {
        term.kill();
      }
    }
  }, 180_000);

  it('a long note on stderr wraps at words on a terminal of 60 columns', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const home = await makeSvcHome(dirs);
    const term = svcInTerminal('svc-note-60', ['webhook', 'events'], svcEnv(home), [60, 20]);
    try {
      await term.waitFor('SVC-EXIT=0', 'webhook events');
      const lines = term.text().split('\n');
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
      expect(term.text()).toContain('journal.ndjson');
      expect(term.text()).toMatch(/see `svc webhook listen`/);
    } finally {
      term.kill();
    }
    // An error and its hint alike.
    const failed = svcInTerminal('svc-error-60', ['db', 'status'], svcEnv(home), [60, 20]);
    try {
      await failed.waitFor(/SVC-EXIT=[1-9]/, 'db status');
      for (const line of failed.text().split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
      expect(failed.text()).toMatch(/^error: /m);
      expect(failed.text()).toMatch(/^hint: /m);
      expect(failed.text()).toContain('SVC_DATABASE_URL=postgres://USER@HOST:PORT/DATABASE');
    } finally {
      failed.kill();
    }
  }, 30_000);
});
