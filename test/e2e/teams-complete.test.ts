// `credit-note issue REQ --complete` on a team database when another machine issued the
// request's credit note first: the credit note exists, once, so what is left of the command is
// to complete the request. Three processes on one real PostgreSQL, their steps put in order by
// a hold proxy in front of the database of each of the two that complete: one held before it
// read anything (it finds the credit note in its preview), one held after its preview, as it
// starts to reserve (it finds the credit note under the receipt's lock). The third issues
// meanwhile. Both then exit 0 saying it was credited elsewhere and completed; nothing is
// issued twice.
import { cp } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { postgresSkipReason } from '../postgres-server.js';
import { startPgHoldProxy } from '../pg-hold-proxy.js';
import { makeSvcHome, repoRoot, svcBin, svcEnv, tempDirs, type SvcHome } from './helpers.js';
import { startTeam, type Team } from './team.js';

const skip = postgresSkipReason();
const dirs = tempDirs();
const EGGS = '4005555000104';
let team: Team | undefined;
let third: SvcHome;

beforeAll(async () => {
  if (skip) return;
  team = await startTeam(dirs, 'complete');
  third = await makeSvcHome(dirs);
  await cp(team.m.home.configDir, third.configDir, { recursive: true });
}, 120_000);
afterAll(async () => {
  await team?.stop();
  await dirs.cleanup();
});

const t = () => team as Team;
async function json<T>(home: SvcHome, args: string[]): Promise<T> {
  const r = await t().on(home, [...args, '--json']);
  expect(r.exitCode, `svc ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}
async function serviceCreditNotes(): Promise<string[]> {
  const deliveries = await t().m.json<{ serviceReceiptId: string; kind: string }[]>(['sandbox', 'deliveries']);
  return [...new Set(deliveries.filter((d) => d.kind === 'CREDIT_NOTE').map((d) => d.serviceReceiptId))];
}
async function newRequest(): Promise<string> {
  const { m } = t();
  const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(m.home, ['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
  return (await json<{ requestId: string }>(m.home, ['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${EGGS}:1`])).requestId;
}
/** `svc ARGS` on a machine whose database is reached through `databaseUrl`, left running. */
function started(home: SvcHome, args: string[], databaseUrl: string) {
  return execa('node', [svcBin, ...args], {
    env: svcEnv(home, { ...t().m.env, SVC_DATABASE_URL: databaseUrl }),
    extendEnv: false,
    cwd: repoRoot,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
  });
}

describe.skipIf(skip !== undefined)(`issue --complete of a request another machine credited${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('two machines run issue --complete while a third issues first: both exit 0, "already credited by CN-… (issued on …, recorded in the team\'s database); completed", one credit note, the request COMPLETED', async () => {
    const { m, url, server, other } = t();
    const requestId = await newRequest();
    const before = await serviceCreditNotes();
    const target = { host: '127.0.0.1', port: server.port };
    const [early, late] = await Promise.all([startPgHoldProxy(target), startPgHoldProxy(target)]);
    try {
      // Held before it reads anything: its preview finds the credit note.
      early.arm('svc_schema_migrations');
      // Held as it starts to reserve, its preview passed: the check under the receipt's lock finds it.
      late.arm('INSERT INTO svc_receipt_locks');
      const a = started(m.home, ['credit-note', 'issue', requestId, '--complete', '--yes'], early.via(url));
      const b = started(other, ['credit-note', 'issue', requestId, '--complete', '--yes'], late.via(url));
      await Promise.all([early.held(), late.held()]);
      const issued = await t().on(third, ['credit-note', 'issue', requestId, '--yes', '--json']);
      expect(issued.exitCode, issued.stderr).toBe(0);
      const { serviceReceiptId, documentNumber } = JSON.parse(issued.stdout) as { serviceReceiptId: string; documentNumber: string };
      early.release();
      late.release();
      const runs = await Promise.all([a, b]);
      const outcomes = runs.map((r, k) => `machine ${'AB'[k]}: exit ${r.exitCode}\n${r.stderr}`).join('\n');
      for (const r of runs) {
        expect(r.exitCode, outcomes).toBe(0);
        // The shared ledger holds it, issued by some machine of the team: not "elsewhere", and not "here".
        expect(r.stderr, outcomes).toMatch(new RegExp(`request ${requestId}: already credited by ${documentNumber} \\(issued on \\d{4}-\\d{2}-\\d{2}T[^,]*, recorded in the team's database\\); completed`));
        expect(r.stdout.trim()).toBe(serviceReceiptId);
      }
      expect((await serviceCreditNotes()).filter((id) => !before.includes(id))).toEqual([serviceReceiptId]);
      const shown = await json<{ status: string }>(m.home, ['credit-note', 'show', requestId]);
      expect(shown.status).toBe('COMPLETED');
    } finally {
      early.release();
      late.release();
      await Promise.all([early.close(), late.close()]);
    }
  });

  it('issue --complete --json of a request a colleague issued and completed: exit 0, issuedHere false, status COMPLETED; without --complete still exit 7', async () => {
    const { m, other } = t();
    const requestId = await newRequest();
    const issued = await json<{ serviceReceiptId: string; documentNumber: string }>(m.home, ['credit-note', 'issue', requestId, '--yes', '--complete']);
    const before = await serviceCreditNotes();
    const again = await json<{ serviceReceiptId: string; documentNumber: string; issuedHere: boolean; status: string }>(other, ['credit-note', 'issue', requestId, '--yes', '--complete']);
    expect(again).toMatchObject({ serviceReceiptId: issued.serviceReceiptId, documentNumber: issued.documentNumber, issuedHere: false, status: 'COMPLETED', requestId });
    const plain = await t().on(other, ['credit-note', 'issue', requestId, '--yes']);
    expect(plain.exitCode, plain.stderr).toBe(7);
    expect(await serviceCreditNotes()).toEqual(before);
  });
});
