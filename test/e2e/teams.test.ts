// "Teams share one truth": two machines (separate config and state directories, the same
// login and keys) pointed at one real PostgreSQL server with SVC_DATABASE_URL. The last egg
// of a receipt credited from both at once is credited once; an issue killed after the
// service accepted it is finished from the other machine; what one issued the other lists;
// `svc db` says where it works without ever showing the password.
import { cp, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSkipReason, type PgServer } from '../postgres-server.js';
import { execa } from 'execa';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv, tempDirs, type SvcHome } from './helpers.js';
import { startHoldProxy } from './hold-proxy.js';
import { startTeam, type Team } from './team.js';
import type { Merchant } from './merchant.js';

const skip = postgresSkipReason();
const dirs = tempDirs();
let m: Merchant;
let pg: PgServer;
let url: string;
let other: SvcHome;
const EGGS = '4005555000104';

let team: Team | undefined;
beforeAll(async () => {
  if (skip) return;
  team = await startTeam(dirs, 'team');
  ({ m, server: pg, url, other } = team);
}, 120_000);
afterAll(async () => {
  await team?.stop();
  await dirs.cleanup();
});

const on = (home: SvcHome, args: string[], extra: Record<string, string | undefined> = {}) => (team as Team).on(home, args, extra);
async function json<T>(home: SvcHome, args: string[]): Promise<T> {
  const r = await on(home, [...args, '--json']);
  expect(r.exitCode, `svc ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}
async function serviceCreditNotes(): Promise<Set<string>> {
  const deliveries = await m.json<{ serviceReceiptId: string; kind: string }[]>(['sandbox', 'deliveries']);
  return new Set(deliveries.filter((d) => d.kind === 'CREDIT_NOTE').map((d) => d.serviceReceiptId));
}

describe.skipIf(skip !== undefined)(`two machines, one PostgreSQL ledger${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('the last egg credited from both machines at the same moment: one credit note; the other exits 2 naming it', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(m.home, ['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const requests = [];
    for (let i = 0; i < 2; i++) requests.push((await json<{ requestId: string }>(m.home, ['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${EGGS}:1`])).requestId);
    const before = await serviceCreditNotes();
    const [a, b] = await Promise.all([on(m.home, ['credit-note', 'issue', requests[0] as string, '--yes']), on(other, ['credit-note', 'issue', requests[1] as string, '--yes'])]);
    const outcomes = `A: exit ${a.exitCode}\n${a.stderr}\nB: exit ${b.exitCode}\n${b.stderr}`;
    expect([a.exitCode, b.exitCode].sort(), outcomes).toEqual([0, 2]);
    const refused = a.exitCode === 2 ? a : b;
    expect(refused.stderr).toMatch(/quantity 1 is more than the 0 that can still be returned \(bought 1; 1 already credited by CN-R-2025-000871-\d+-1/);
    const issued = (a.exitCode === 0 ? a : b).stdout.trim();
    expect([...(await serviceCreditNotes())].filter((id) => !before.has(id))).toEqual([issued]);
  });

  it('an issue killed (-9) after the service accepted it, run again on the other machine: exactly one credit note', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(m.home, ['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const { requestId } = await json<{ requestId: string }>(m.home, ['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${EGGS}:1`]);
    const before = await serviceCreditNotes();
    const proxy = await startHoldProxy(m.sandbox.url, { hold: (method, path) => method === 'POST' && path === '/credit-note/encrypted', when: 'after' });
    const child = execa('node', [svcBin, 'credit-note', 'issue', requestId, '--yes'], {
      env: svcEnv(m.home, { SVC_BASE_URL: proxy.url, SVC_DATABASE_URL: url }),
      extendEnv: false,
      cwd: repoRoot,
      reject: false,
      stdin: 'ignore',
    });
    await proxy.held;
    child.kill('SIGKILL');
    await child;
    await proxy.close();

    // The killed run's submission names its machine in the shared database, beside its pid.
    const open = `SELECT pid, host FROM svc_intents WHERE subject = '${requestId}' AND state IN ('reserved', 'prepared')`;
    expect(pg.psql('team', open)).toMatch(new RegExp(`^\\s*${child.pid}\\s*\\|\\s*${hostname().replaceAll('.', '\\.')}\\s*$`, 'm'));
    // Both "machines" of this test run on one host: the killed one is played by a colleague's laptop.
    pg.psql('team', `UPDATE svc_intents SET host = 'laptop-7' WHERE subject = '${requestId}' AND state IN ('reserved', 'prepared')`);
    const rerun = await on(other, ['credit-note', 'issue', requestId, '--yes']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain('resuming the submission of credit note');
    expect(rerun.stderr).toContain(`(pid ${child.pid} on laptop-7): the same request under the same Idempotency-Key`);
    expect([...(await serviceCreditNotes())].filter((id) => !before.has(id))).toEqual([rerun.stdout.trim()]);
    const status = await json<{ counts: { openIntents: number } }>(other, ['db', 'status']);
    expect(status.counts.openIntents).toBe(0);
  });

  it('a part accepted on one machine is the part the other credits: more exits 2 with nothing sent, no --item credits exactly it', async () => {
    const MILK = '4001234567890';
    const WATER = '4001111222333';
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(m.home, ['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const { requestId } = await json<{ requestId: string }>(m.home, ['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${MILK}:2`, '--item', `${WATER}:3`, '--item', `${EGGS}:1`]);
    await json(m.home, ['credit-note', 'accept', requestId, '--item', `${MILK}:1`, '--item', `${WATER}:3`]);
    const before = await serviceCreditNotes();
    const more = await on(other, ['credit-note', 'issue', requestId, '--yes', '--item', `${MILK}:2`, '--item', `${WATER}:3`, '--item', `${EGGS}:1`]);
    expect(more.exitCode, more.stderr).toBe(2);
    expect(more.stderr).toContain(`was accepted in part (${MILK}:1 ${WATER}:3, recorded `);
    expect(await serviceCreditNotes()).toEqual(before);
    const issued = await json<{ lines: { productId: string; quantity: number }[] }>(other, ['credit-note', 'issue', requestId, '--yes']);
    expect(issued.lines.map((l) => [l.productId, l.quantity])).toEqual([
      [MILK, 1],
      [WATER, 3],
    ]);
  });

  it('once a request in part has its credit note, a colleague cannot widen its part: exit 7 naming the credit note, the part and the status as they were', async () => {
    const BREAD = '4009876543210';
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(m.home, ['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const { requestId } = await json<{ requestId: string }>(m.home, ['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${BREAD}:1`, '--item', `${EGGS}:1`]);
    await json(m.home, ['credit-note', 'accept', requestId, '--item', `${BREAD}:1`]);
    const issued = await json<{ documentNumber: string }>(m.home, ['credit-note', 'issue', requestId, '--yes']);
    const wider = await on(other, ['credit-note', 'accept', requestId, '--item', `${BREAD}:1`, '--item', `${EGGS}:1`]);
    expect(wider.exitCode, wider.stderr).toBe(7);
    expect(wider.stderr).toContain(`already has credit note ${issued.documentNumber}`);
    expect(wider.stdout).toBe('');
    const shown = await json<{ status: string; acceptedPart: { items: unknown[] } }>(other, ['credit-note', 'show', requestId]);
    expect(shown.status).toBe('PARTIALLY_ACCEPTED');
    expect(shown.acceptedPart.items).toEqual([{ productId: BREAD, quantity: 1 }]);
  });

  it('five machines sending one receipt at once: all exit 0, one receipt on the service (the others say it was already issued)', async () => {
    const homes = [m.home, other];
    for (let i = homes.length; i < 5; i++) {
      const home = await makeSvcHome(dirs);
      await cp(m.home.configDir, home.configDir, { recursive: true });
      homes.push(home);
    }
    const file = await m.newReceiptFile();
    const runs = await Promise.all(homes.map((home) => on(home, ['receipt', 'send', '--file', file, '--email', 'alice@example.com'])));
    const outcomes = runs.map((r, k) => `machine ${k}: exit ${r.exitCode}\n${r.stderr}`).join('\n');
    expect(runs.map((r) => r.exitCode), outcomes).toEqual([0, 0, 0, 0, 0]);
    expect(new Set(runs.map((r) => r.stdout.trim())).size, outcomes).toBe(1);
  });

  it('what one machine issued the other lists; db status names the engine and the database without its password', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(m.home, ['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const listed = await json<{ serviceReceiptId: string }[]>(other, ['receipt', 'list']);
    expect(listed.map((r) => r.serviceReceiptId)).toContain(serviceReceiptId);

    const status = await on(other, ['db', 'status']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/engine\s+postgres/);
    expect(status.stdout).toContain(`postgres://svc:***@127.0.0.1:${pg.port}/team`);
    expect(`${status.stdout}${status.stderr}`).not.toContain(pg.password);
    const config = await on(other, ['config', 'list']);
    expect(config.stdout).toMatch(/database-url\s+postgres:\/\/svc:\*\*\*@127\.0\.0\.1:\d+\/team\s+env/);
    expect(config.stdout).not.toContain(pg.password);
  });

  it('the password works from PGPASSWORD and from ~/.pgpass (no warning); a stored database-url with a password is refused (user:pw@, ?password=, or edited in); a wrong password exits 4 (authentication) without showing it', async () => {
    const bare = url.replace(`:${pg.password}@`, '@');
    const viaEnv = await on(other, ['db', 'status'], { SVC_DATABASE_URL: bare, PGPASSWORD: pg.password });
    expect(viaEnv.exitCode, viaEnv.stderr).toBe(0);
    const home = await dirs.make('svc-home-');
    await writeFile(join(home, '.pgpass'), `127.0.0.1:${pg.port}:*:svc:${pg.password}\n`, { mode: 0o600 });
    const viaFile = await on(other, ['db', 'status'], { SVC_DATABASE_URL: bare, PGPASSWORD: undefined, HOME: home });
    expect(viaFile.exitCode, viaFile.stderr).toBe(0);
    expect(viaFile.stderr).toBe('');
    for (const stored of [url, `${bare}?password=${pg.password}`]) {
      const refused = await on(other, ['config', 'set', 'database-url', stored]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain('database-url must not hold a password');
      expect(refused.stderr).not.toContain(pg.password);
    }
    const edited = await makeSvcHome(dirs);
    await writeFile(join(edited.configDir, 'config.json'), JSON.stringify({ profiles: { local: { databaseUrl: `${bare}?password=${pg.password}` } } }));
    const fromFile = await runSvc(['db', 'status'], { home: edited, env: { ...m.env, PGPASSWORD: undefined } });
    expect(fromFile.exitCode, fromFile.stderr).toBe(2);
    expect(fromFile.stderr).toContain('database-url must not hold a password');
    expect(fromFile.stderr).not.toContain(pg.password);
    const wrong = await on(other, ['db', 'status'], { SVC_DATABASE_URL: url.replace(pg.password, 'not-the-password') });
    expect(wrong.exitCode).toBe(4);
    expect(wrong.stderr).toContain('postgres://svc:***@');
    expect(wrong.stderr).toContain('refused the login');
    expect(wrong.stderr).not.toContain('not-the-password');
  });

  it('db import copies this machine\'s embedded records once; run again, nothing changes', async () => {
    const local = await makeSvcHome(dirs);
    await cp(m.home.configDir, local.configDir, { recursive: true });
    const embedded = await runSvc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com'], { home: local, env: m.env });
    expect(embedded.exitCode, embedded.stderr).toBe(0);
    const first = await json<{ inserted: number; skipped: number; conflicts: unknown[] }>(local, ['db', 'import']);
    expect(first).toMatchObject({ inserted: 1, skipped: 0, conflicts: [] });
    const again = await json<{ inserted: number; skipped: number }>(local, ['db', 'import']);
    expect(again).toMatchObject({ inserted: 0, skipped: 1 });
    const listed = await json<{ serviceReceiptId: string }[]>(other, ['receipt', 'list']);
    expect(listed.map((r) => r.serviceReceiptId)).toContain(embedded.stdout.trim());
  });

  it('db import carries a submission under way: the credit note killed after the service accepted it is finished on the shared ledger, once', async () => {
    const local = await makeSvcHome(dirs);
    await cp(m.home.configDir, local.configDir, { recursive: true });
    const sent = await runSvc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com'], { home: local, env: m.env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    const serviceReceiptId = sent.stdout.trim();
    const { requestId } = await json<{ requestId: string }>(m.home, ['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${EGGS}:1`]);
    const before = await serviceCreditNotes();
    // On the embedded ledger (no database yet), killed once the service has issued it.
    const proxy = await startHoldProxy(m.sandbox.url, { hold: (method, path) => method === 'POST' && path === '/credit-note/encrypted', when: 'after' });
    const child = execa('node', [svcBin, 'credit-note', 'issue', requestId, '--yes'], {
      env: svcEnv(local, { SVC_BASE_URL: proxy.url }),
      extendEnv: false,
      cwd: repoRoot,
      reject: false,
      stdin: 'ignore',
    });
    await proxy.held;
    child.kill('SIGKILL');
    await child;
    await proxy.close();

    const imported = await json<{ carried: number; intentConflicts: unknown[] }>(local, ['db', 'import']);
    expect(imported).toMatchObject({ carried: 1, intentConflicts: [] });
    // Finished from the other machine: the service replays its answer; one credit note, in the shared ledger.
    const rerun = await on(other, ['credit-note', 'issue', requestId, '--yes']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    // Carried with the machine the embedded ledger recorded it on (this one, in this test).
    expect(rerun.stderr).toContain('resuming the submission of credit note CN-');
    expect(rerun.stderr).toContain(`(pid ${child.pid} on this machine): the same request`);
    const created = [...(await serviceCreditNotes())].filter((id) => !before.has(id));
    expect(created).toEqual([rerun.stdout.trim()]);
    const shared = await json<{ counts: { openIntents: number } }>(other, ['db', 'status']);
    expect(shared.counts.openIntents).toBe(0);
  });
  it('poll keeps the requests it lists in the shared ledger, encrypted as listed (docs/interface-decisions.md#outstanding-queue): a row in svc_queue_items', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(m.home, ['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const { requestId } = await json<{ requestId: string }>(m.home, ['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${EGGS}:1`]);
    const polled = await on(m.home, ['credit-note', 'poll', '--no-decrypt']);
    expect(polled.exitCode, polled.stderr).toBe(0);
    const kept = pg.psql(new URL(url).pathname.slice(1), `SELECT item->>'status' FROM svc_queue_items WHERE request_id = '${requestId}'`);
    expect(kept).toContain('PENDING');
  });
});
