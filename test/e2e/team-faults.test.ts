// The team's PostgreSQL misbehaving under svc: no password anywhere, the server killed
// (pg_ctl stop -m immediate) inside each statement of `credit-note issue` and `receipt send`
// and while one waits for a receipt's lock, a colleague's machine stopped while it holds that
// lock. Each ends at once with svc's own error (exit 4 or 8, the documented message), never
// a crash or a hang, and a re-run finishes with exactly one document. A proxy in front of the
// server (test/pg-hold-proxy.ts) holds the chosen statement, so "inside" is the same step every time.
import { execa, type ResultPromise } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSkipReason, type PgServer } from '../postgres-server.js';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv, tempDirs, type SvcHome, type SvcResult } from './helpers.js';
import type { Merchant } from './merchant.js';
import { startPgHoldProxy } from '../pg-hold-proxy.js';
import { startTeam, type Team } from './team.js';

const skip = postgresSkipReason();
const dirs = tempDirs();
let m: Merchant;
let server: PgServer;
let url: string;
let other: SvcHome;
const MILK = '4001234567890';

let team: Team | undefined;
beforeAll(async () => {
  if (skip) return;
  team = await startTeam(dirs, 'faults');
  ({ m, server, url, other } = team);
}, 120_000);
afterAll(async () => {
  await team?.stop();
  await dirs.cleanup();
});

const on = (home: SvcHome, args: string[], extra: Record<string, string | undefined> = {}) => (team as Team).on(home, args, extra);

function start(home: SvcHome, args: string[], extra: Record<string, string>): ResultPromise {
  return execa('node', [svcBin, ...args], { env: svcEnv(home, { ...m.env, ...extra }), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', timeout: 60_000 });
}

/** A new receipt with a return request of one milk; both IDs. */
async function newRequest(): Promise<{ receipt: string; requestId: string }> {
  const sent = await on(m.home, ['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
  expect(sent.exitCode, sent.stderr).toBe(0);
  const receipt = sent.stdout.trim();
  return { receipt, requestId: await returnRequest(receipt) };
}

async function returnRequest(receipt: string): Promise<string> {
  const triggered = await on(m.home, ['sandbox', 'trigger', 'return-request', receipt, '--item', `${MILK}:1`]);
  expect(triggered.exitCode, triggered.stderr).toBe(0);
  return triggered.stdout.trim();
}

async function serviceCreditNotes(): Promise<Set<string>> {
  const deliveries = await m.json<{ serviceReceiptId: string; kind: string }[]>(['sandbox', 'deliveries']);
  return new Set(deliveries.filter((d) => d.kind === 'CREDIT_NOTE').map((d) => d.serviceReceiptId));
}

function expectUnavailable(r: { exitCode?: number | undefined; stderr: string }, what: RegExp): void {
  expect(r.stderr).not.toMatch(/Unhandled|ERR_UNHANDLED_ERROR|at .*node_modules/);
  expect(r.stderr).not.toContain(server.password);
  expect(r.stderr).toMatch(what);
  expect(r.exitCode, r.stderr).toBe(8);
}

/** Runs ARGS through the proxy, kills PostgreSQL once `statement` is held, starts it again. */
async function killedInside(home: SvcHome, args: string[], statement: string): Promise<SvcResult> {
  const proxy = await startPgHoldProxy({ host: '127.0.0.1', port: server.port });
  try {
    proxy.arm(statement);
    const held = proxy.held();
    const child = start(home, args, { SVC_DATABASE_URL: proxy.via(url) });
    await Promise.race([held, child.then((r) => Promise.reject(new Error(`ended before ${statement} was sent:\n${String(r.stderr)}`)))]);
    server.kill();
    const r = await child;
    return { exitCode: r.exitCode, signal: r.signal, stdout: String(r.stdout), stderr: String(r.stderr), timedOut: r.timedOut };
  } finally {
    server.start();
    await proxy.close();
  }
}

describe.skipIf(skip !== undefined)(`a team's PostgreSQL misbehaving${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it.each([['db', 'status'], ['receipt', 'list'], ['db', 'migrate'], ['webhook', 'listen', '--port', '0']])(
    'no password anywhere: `svc %s %s` ends at once (exit 4) naming PGPASSWORD and ~/.pgpass',
    async (...args: string[]) => {
      const home = await dirs.make('svc-home-');
      const r = await runSvc(args, {
        home: await makeSvcHome(dirs),
        env: { SVC_DATABASE_URL: url.replace(`:${server.password}@`, '@'), PGPASSWORD: undefined, PGPASSFILE: undefined, HOME: home, SVC_WEBHOOK_SECRET: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ1Ng==' },
        timeout: 15_000,
      });
      expect(r.timedOut, r.stderr).toBe(false);
      expect(r.stderr).toContain('PGPASSWORD');
      expect(r.stderr).toContain('~/.pgpass');
      expect(r.stderr).not.toContain('must be a string');
      expect(r.exitCode, r.stderr).toBe(4);
    },
  );

  it.each([
    ['reserve', 'svc_receipt_locks', /the database postgres:\/\/svc:\*\*\*@\S+ is unreachable/],
    ['prepare', "state = 'prepared'", /the database postgres:\/\/svc:\*\*\*@\S+ is unreachable/],
    ['record', 'INSERT INTO svc_credit_notes', /issued as \S+, but it could not be recorded: the database \S+ is unreachable[\s\S]*run the same command again/],
  ])('credit-note issue with PostgreSQL killed inside %s: exit 8, and a re-run on the other machine issues exactly one', async (_step, statement, said) => {
    const { requestId } = await newRequest();
    const before = await serviceCreditNotes();
    const killed = await killedInside(m.home, ['credit-note', 'issue', requestId, '--yes'], statement);
    expectUnavailable(killed, said);
    const rerun = await on(other, ['credit-note', 'issue', requestId, '--yes']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect([...(await serviceCreditNotes())].filter((id) => !before.has(id))).toEqual([rerun.stdout.trim()]);
  });

  it('receipt send with PostgreSQL killed inside its record: exit 8 naming the receipt; the re-run records that one', async () => {
    const file = await m.newReceiptFile();
    const args = ['receipt', 'send', '--file', file, '--email', 'alice@example.com'];
    const killed = await killedInside(m.home, args, 'INSERT INTO svc_receipts');
    expectUnavailable(killed, /was issued as (\S+), but it could not be recorded[\s\S]*run the same command again/);
    const issued = /was issued as (\S+),/.exec(killed.stderr)?.[1];
    const rerun = await on(other, args);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(rerun.stdout.trim()).toBe(issued);
    const listed = JSON.parse((await on(other, ['receipt', 'list', '--json'])).stdout) as { serviceReceiptId: string }[];
    expect(listed.filter((r) => r.serviceReceiptId === issued)).toHaveLength(1);
  });

  it('PostgreSQL killed while an issue waits for the receipt\'s lock: told who holds it, then exit 8; a re-run issues exactly one', async () => {
    const { receipt, requestId } = await newRequest();
    const before = await serviceCreditNotes();
    // A colleague's session holding the receipt's row lock.
    const holder = new pg.Client({ connectionString: url, application_name: 'a colleague' });
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('INSERT INTO svc_receipt_locks (parent) VALUES ($1) ON CONFLICT DO NOTHING', [receipt]);
    await holder.query('SELECT parent FROM svc_receipt_locks WHERE parent = $1 FOR UPDATE', [receipt]);
    const child = start(m.home, ['credit-note', 'issue', requestId, '--yes'], { SVC_DATABASE_URL: url });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    for (const deadline = Date.now() + 20_000; !/waiting for a lock in the team's database held by a colleague/.test(stderr); ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`not told who holds the lock:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    server.kill();
    const r = await child;
    server.start();
    await holder.end().catch(() => undefined);
    expectUnavailable({ exitCode: r.exitCode, stderr: String(r.stderr) }, /the database postgres:\/\/svc:\*\*\*@\S+ is unreachable/);
    const rerun = await on(other, ['credit-note', 'issue', requestId, '--yes']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect([...(await serviceCreditNotes())].filter((id) => !before.has(id))).toEqual([rerun.stdout.trim()]);
  });

  it('its backend terminated (pg_terminate_backend, found by its application_name) while an issue waits for the lock: exit 8; a re-run issues exactly one', async () => {
    const { receipt, requestId } = await newRequest();
    const before = await serviceCreditNotes();
    const admin = new pg.Client({ connectionString: url, application_name: 'a colleague' });
    admin.on('error', () => undefined);
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query('INSERT INTO svc_receipt_locks (parent) VALUES ($1) ON CONFLICT DO NOTHING', [receipt]);
      await admin.query('SELECT parent FROM svc_receipt_locks WHERE parent = $1 FOR UPDATE', [receipt]);
      const child = start(m.home, ['credit-note', 'issue', requestId, '--yes'], { SVC_DATABASE_URL: url });
      const name = `svc % pid ${child.pid}`;
      const watcher = new pg.Client({ connectionString: url });
      await watcher.connect();
      try {
        for (const deadline = Date.now() + 20_000; ; ) {
          const { rows } = await watcher.query(`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name LIKE $1 AND wait_event_type = 'Lock'`, [name]);
          if (rows.length > 0) break;
          if (Date.now() > deadline || child.exitCode !== null) throw new Error('the issue never waited for the lock');
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        await watcher.end();
      }
      const r = await child;
      expectUnavailable({ exitCode: r.exitCode, stderr: String(r.stderr) }, /the database postgres:\/\/svc:\*\*\*@\S+ is unreachable/);
    } finally {
      await admin.query('ROLLBACK').catch(() => undefined);
      await admin.end().catch(() => undefined);
    }
    const rerun = await on(other, ['credit-note', 'issue', requestId, '--yes']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect([...(await serviceCreditNotes())].filter((id) => !before.has(id))).toEqual([rerun.stdout.trim()]);
  });

  it('a machine stopped (SIGSTOP) inside the receipt lock\'s transaction: a colleague\'s issue ends naming it (host, pid); once its session times out the colleague issues', async () => {
    const { receipt, requestId: receiptRequest } = await newRequest();
    const second = await returnRequest(receipt);
    const before = await serviceCreditNotes();
    const proxy = await startPgHoldProxy({ host: '127.0.0.1', port: server.port });
    // The stopped machine: inside its check-and-reserve, holding the lock, its next statement held, then frozen.
    proxy.arm('FOR UPDATE', { after: true });
    const held = proxy.held();
    const stopped = start(m.home, ['credit-note', 'issue', receiptRequest, '--yes'], {
      SVC_DATABASE_URL: proxy.via(url),
      PGOPTIONS: '-c idle_in_transaction_session_timeout=6s',
    });
    try {
      await held;
      stopped.kill('SIGSTOP');
      const started = Date.now();
      const waiter = await on(other, ['credit-note', 'issue', second, '--yes'], { PGOPTIONS: '-c lock_timeout=2s' });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(waiter.exitCode, waiter.stderr).toBe(8);
      expect(waiter.stderr).toMatch(new RegExp(`gave up waiting for a lock in the database \\S+ \\(lock_timeout\\): it is held by svc \\S+ pid ${stopped.pid}`));
      expect(waiter.stderr).toContain('doing nothing inside it');
      // The database ends the stopped machine's session after its idle_in_transaction_session_timeout.
      await new Promise((r) => setTimeout(r, 6_000));
      const rerun = await on(other, ['credit-note', 'issue', second, '--yes']);
      expect(rerun.exitCode, rerun.stderr).toBe(0);
      expect([...(await serviceCreditNotes())].filter((id) => !before.has(id))).toEqual([rerun.stdout.trim()]);
    } finally {
      stopped.kill('SIGCONT');
      const r = await stopped;
      await proxy.close();
      // Its session was ended: svc's error, not a crash.
      expect(String(r.stderr)).not.toMatch(/Unhandled|ERR_UNHANDLED_ERROR/);
      expect(r.exitCode, String(r.stderr)).toBe(8);
    }
  }, 90_000);
});
