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

  // gh's layout: nouns grouped by job, a row only the noun's name, so a description starts
  // within the first third of an 80-column line instead of at column 48.
  it('svc --help at 80 columns: nouns grouped by job, descriptions in the first third, tokens where they live', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const home = await makeSvcHome(dirs);
    for (const args of [['--help'], ['token', '--help']]) {
      const term = svcInTerminal(`svc-help-groups-${args.length}`, args, svcEnv(home), [80, 200]);
      try {
        await term.waitFor('SVC-EXIT=0', args.join(' '));
        const text = term.text();
        for (const line of text.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
        expect(text).not.toMatch(/tokens? \(?cached in the keychain/);
        if (args[0] !== '--help') {
          expect(text).toContain('token file');
          continue;
        }
        expect(text).toMatch(/^Core commands:$/m);
        expect(text).toMatch(/^Access and keys:$/m);
        expect(text).toContain('token file');
        // Every noun's row: its description starts at or before column 27 (a third of 80).
        const nouns = ['receipt', 'credit-note', 'recipient', 'webhook', 'auth', 'grants', 'token', 'keys', 'sandbox', 'config', 'db', 'api', 'completion', 'demo', 'help'];
        for (const noun of nouns) {
          const row = new RegExp(`^  ${noun}( +)\\S`, 'm').exec(text);
          expect(row, noun).not.toBeNull();
          expect(2 + noun.length + row![1]!.length, noun).toBeLessThanOrEqual(27);
        }
      } finally {
        term.kill();
      }
    }
  }, 60_000);

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

  it('sandbox start at 60 columns: its login lines keep their column, a wrapped value continues under it', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const home = await makeSvcHome(dirs);
    const term = svcInTerminal('svc-sandbox-60', ['sandbox', 'start', '--port', '0', '--ephemeral'], svcEnv(home), [60, 30]);
    try {
      await term.waitFor('press Ctrl-C to stop', 'the sandbox');
      const text = term.text();
      const lines = text.split('\n');
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
      const column = (term: string) => /^\S.*? {2,}/.exec(lines.find((l) => l.startsWith(term)) ?? '')?.[0].length;
      for (const term of ['client secret ', 'redirect URI ', 'companies ']) expect(column(term), text).toBe(column('client id '));
      const secret = lines.findIndex((l) => l.startsWith('client secret '));
      expect(lines[secret + 1], text).toMatch(new RegExp(`^ {${column('client id ')}}\\S+sandbox\\.json$`));
      term.keys('C-c');
      await term.waitFor('SVC-EXIT=', 'the end of the sandbox');
    } finally {
      term.kill();
    }
  }, 30_000);
});
