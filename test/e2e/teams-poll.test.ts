// `credit-note poll --all-grants` and `poll --watch` on a team database keep the requests they
// list in the shared ledger, as plain `poll` does (test/e2e/poll-team-down.test.ts): every
// company's, after the list is shown; each refresh's, in the background of the watch. With
// the real PostgreSQL stopped, the queue is shown all the same and svc says what was not kept
// and why: --all-grants exits 8; a watch warns on each refresh (piped on stderr, on the queue
// screen in its status line), keeps the lists once the database is back, and exits 8 only if
// something it listed was never kept.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSkipReason } from '../postgres-server.js';
import { svcBin, svcEnv, tempDirs } from './helpers.js';
import { requireTools } from './require-tools.js';
import { startTeam, type Team } from './team.js';
import { shellAssignments, tmux } from './tmux.js';

const skip = postgresSkipReason();
const dirs = tempDirs();
const MILK = '4001234567890';
let team: Team | undefined;

beforeAll(async () => {
  if (skip) return;
  team = await startTeam(dirs, 'poll_kept', ['--companies', '3']);
}, 120_000);
afterAll(async () => {
  await team?.stop();
  await dirs.cleanup();
});

const t = () => team as Team;
/** A return request of the company of Grant `grantId`. */
async function requestOf(grantId: string): Promise<string> {
  const { m } = t();
  const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--grant', grantId]);
  return (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${MILK}:1`])).stdout.trim();
}
async function grantIds(): Promise<string[]> {
  return (await t().m.json<{ grant_id: string }[]>(['grants', 'list'])).map((g) => g.grant_id);
}
/** The request IDs among `ids` the shared ledger keeps. */
function kept(ids: readonly string[]): string[] {
  const { server, url } = t();
  const out = server.psql(new URL(url).pathname.slice(1), `SELECT request_id FROM svc_queue_items WHERE request_id IN (${ids.map((id) => `'${id}'`).join(', ')}) ORDER BY request_id`);
  return ids.filter((id) => out.includes(id)).sort();
}
async function until(what: () => boolean, label: string, seen: () => string, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !what(); ) {
    if (Date.now() > deadline) throw new Error(`${label} never happened:\n${seen()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
function watchPiped(args: string[]) {
  const { m, url } = t();
  const child = execa('node', [svcBin, 'credit-note', 'poll', '--watch', '--interval', '1', '--no-decrypt', ...args], { env: svcEnv(m.home, { ...m.env, SVC_DATABASE_URL: url }), extendEnv: false, reject: false, stdin: 'ignore' });
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => void (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => void (err += c.toString()));
  return { child, out: () => out, err: () => err };
}

describe.skipIf(skip !== undefined)(`polled requests kept in the team ledger${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('poll --all-grants keeps every company\'s requests; with PostgreSQL stopped it shows them all the same, says they were not kept and why, exit 8', async () => {
    const grants = await grantIds();
    const ids = [await requestOf(grants[1]!), await requestOf(grants[2]!)];
    const polled = await t().on(t().m.home, ['credit-note', 'poll', '--all-grants', '--no-decrypt']);
    expect(polled.exitCode, polled.stderr).toBe(0);
    expect(kept(ids)).toEqual([...ids].sort());

    const later = [await requestOf(grants[0]!), await requestOf(grants[2]!)];
    t().server.stop();
    try {
      for (const flags of [[], ['--json']]) {
        const down = await t().on(t().m.home, ['credit-note', 'poll', '--all-grants', '--no-decrypt', ...flags]);
        expect(down.exitCode, down.stderr).toBe(8);
        for (const id of later) expect(down.stdout).toContain(id);
        // Every request listed is kept (not kept here), the open ones shown: the message counts both.
        expect(down.stderr).toMatch(/\d+ requests listed were (shown but not kept in the team ledger|not kept in the team ledger \((\d+|none) of them shown\)): the database postgres:\/\/svc:\*\*\*@127\.0\.0\.1:\d+\/poll_kept is unreachable/);
        if (flags.length > 0) {
          const shown = (JSON.parse(down.stdout) as { requestId?: string }[]).filter((e) => e.requestId !== undefined).length;
          const said = /\((\d+) of them shown\)/.exec(down.stderr)?.[1];
          if (said !== undefined) expect(Number(said)).toBe(shown);
        }
        expect(down.stderr).not.toContain(t().server.password);
      }
    } finally {
      t().server.start();
    }
    expect(kept(later)).toEqual([]);
  }, 60_000);

  it('poll --watch piped keeps each refresh\'s requests; with PostgreSQL stopped it warns on stderr each refresh, keeps them once it is back, exit 0', async () => {
    const grants = await grantIds();
    const first = await requestOf(grants[0]!);
    const watch = watchPiped(['--json']);
    try {
      await until(() => kept([first]).length === 1, `${first} kept`, watch.err);
      t().server.stop();
      let second: string;
      try {
        second = await requestOf(grants[0]!);
        await until(() => watch.out().includes(second), `${second} listed`, watch.out);
        await until(() => /warning: \d+ requests? listed (is|are) not kept in the team ledger( \((\d+ of them|none of them|not) shown\))?: the database postgres:\/\/svc:\*\*\*@[^ ]+ is unreachable .*; trying again at the next refresh/.test(watch.err()), 'the warning', watch.err);
      } finally {
        t().server.start();
      }
      await until(() => kept([second]).length === 1, `${second} kept once the database is back`, watch.err);
    } finally {
      watch.child.kill('SIGINT');
    }
    const ended = await watch.child;
    expect(ended.exitCode, watch.err()).toBe(0);
    expect(watch.err()).not.toContain(t().server.password);
  }, 90_000);

  it('poll --watch --all-grants ended while PostgreSQL is stopped: "never kept", exit 8', async () => {
    const grants = await grantIds();
    t().server.stop();
    const watch = watchPiped(['--all-grants']);
    try {
      const id = await requestOf(grants[1]!);
      await until(() => watch.out().includes(id), `${id} listed`, watch.out);
      await until(() => watch.err().includes('not kept in the team ledger'), 'the warning', watch.err);
    } finally {
      watch.child.kill('SIGINT');
      await watch.child;
      t().server.start();
    }
    expect(watch.child.exitCode, watch.err()).toBe(8);
    expect(watch.err()).toMatch(/error: \d+ requests? the watch listed (was|were) (shown but never kept in the team ledger|never kept in the team ledger \((\d+ of them|none of them|not) shown\)): the database postgres:\/\/svc:\*\*\*@/);
  }, 90_000);

  it('the queue screen (tmux, 80 columns) with PostgreSQL stopped: the status line says the requests are not kept; q leaves, exit 8 said on the normal screen', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const { m, url } = t();
    const grants = await grantIds();
    const id = await requestOf(grants[2]!);
    t().server.stop();
    const exports = shellAssignments(svcEnv(m.home, { ...m.env, SVC_DATABASE_URL: url }), ['NO_COLOR', 'SVC_DATABASE_URL']);
    const session = `svc-team-screen-${process.pid}`;
    tmux(['new-session', '-d', '-s', session, '-x', '80', '-y', '24', `env -i ${exports} TERM=xterm-256color node ${svcBin} credit-note poll --watch --all-grants --interval 1 --no-decrypt; echo WATCH-EXIT=$?; sleep 30`]);
    const screen = () => tmux(['capture-pane', '-p', '-J', '-t', session]);
    try {
      await until(() => screen().includes(id.slice(0, 8)), 'the request', screen);
      await until(() => /warning: \d+ requests? listed (is|are) not kept in the team/.test(screen()), 'the warning in the status line', screen);
      tmux(['send-keys', '-t', session, 'q']);
      await until(() => screen().includes('WATCH-EXIT='), 'the end of the watch', screen);
      expect(screen()).toContain('WATCH-EXIT=8');
      expect(screen()).toContain('never kept in the team ledger');
    } finally {
      tmux(['kill-session', '-t', session]);
      t().server.start();
    }
  }, 90_000);

  it("the queue screen holding a move's result: PostgreSQL stopped, the status line warns under the result, refresh after refresh; started again, the warning is gone", async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const { m, url } = t();
    const id = await requestOf((await grantIds())[0]!);
    const exports = shellAssignments(svcEnv(m.home, { ...m.env, SVC_DATABASE_URL: url }), ['NO_COLOR', 'SVC_DATABASE_URL']);
    const session = `svc-team-moved-${process.pid}`;
    tmux(['new-session', '-d', '-s', session, '-x', '100', '-y', '24', `env -i ${exports} TERM=xterm-256color node ${svcBin} credit-note poll --watch --interval 1 --no-decrypt; echo WATCH-EXIT=$?; sleep 30`]);
    const screen = () => tmux(['capture-pane', '-p', '-J', '-t', session]);
    // The status line wraps the warning at words: read as one text.
    const warned = () => /warning: \d+ requests? listed (is|are) not kept in the team ledger( \((\d+ of them|none of them|not) shown\))?: the database postgres:\/\/svc:\*\*\*@[^ ]+ is unreachable/.test(screen().replace(/\s+/g, ' '));
    try {
      await until(() => screen().includes(id.slice(0, 8)), 'the request', screen);
      // The request found with /, then accepted: its result holds the status line.
      tmux(['send-keys', '-t', session, '/']);
      tmux(['send-keys', '-t', session, '-l', id.slice(0, 8)]);
      tmux(['send-keys', '-t', session, 'Enter']);
      await until(() => /^> .*PENDING/m.test(screen()), 'the request selected', screen);
      tmux(['send-keys', '-t', session, 'a']);
      await until(() => screen().includes(`${id} ACCEPTED`), 'the move\'s result on the status line', screen);
      t().server.stop();
      try {
        await until(() => warned() && screen().includes(`${id} ACCEPTED`), 'the warning under the result', screen);
      } finally {
        t().server.start();
      }
      await until(() => !screen().includes('warning:') && !screen().includes('unreachable'), 'the warning gone once the database is back', screen);
      tmux(['send-keys', '-t', session, 'q']);
      await until(() => screen().includes('WATCH-EXIT='), 'the end of the watch', screen);
      expect(screen()).toContain('WATCH-EXIT=0');
    } finally {
      tmux(['kill-session', '-t', session]);
    }
  }, 120_000);
});
