// The team's database schema through svc itself: `svc db status` names the step a database at
// the previous version still needs and `svc db migrate` applies it; a second receipt under a
// number the team's database already holds (issued elsewhere, imported) is refused before
// anything is sent: exit 7, naming the receipt recorded under it. (The database's own refusal,
// for a writer that does not ask first, is in test/store/ledger-schema.test.ts.)
import { cp } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, POSTGRES_SCHEMA_VERSION, STEP_NAMES } from '../../src/store/postgres/schema.js';
import { postgresSkipReason } from '../postgres-server.js';
import { makeSvcHome, runSvc, tempDirs, type SvcHome } from './helpers.js';
import { startTeam, type Team } from './team.js';

const skip = postgresSkipReason();
const dirs = tempDirs();
let team: Team | undefined;
beforeAll(async () => {
  if (skip) return;
  team = await startTeam(dirs, 'team_schema');
}, 120_000);
afterAll(async () => {
  await team?.stop();
  await dirs.cleanup();
});

async function json<T>(home: SvcHome, args: string[], extra: Record<string, string> = {}): Promise<T> {
  const r = await (team as Team).on(home, [...args, '--json'], extra);
  expect(r.exitCode, `svc ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}

describe.skipIf(skip !== undefined)(`the team's database schema${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('db status names the step a database at the previous version is missing; db migrate applies it', async () => {
    const { m, server } = team as Team;
    const url = await server.database('previous_step');
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const client = await pool.connect();
      await migrate(client, POSTGRES_SCHEMA_VERSION - 1);
      client.release();
    } finally {
      await pool.end();
    }
    const status = await json<{ schemaVersion: number; pending: { version: number; does: string }[] }>(m.home, ['db', 'status'], { SVC_DATABASE_URL: url });
    expect(status.schemaVersion).toBe(POSTGRES_SCHEMA_VERSION - 1);
    expect(status.pending).toEqual([{ version: POSTGRES_SCHEMA_VERSION, does: STEP_NAMES[POSTGRES_SCHEMA_VERSION - 1] }]);
    expect(status.pending[0]?.does).toMatch(/timestamptz.*jsonb.*constraints/);
    const text = await (team as Team).on(m.home, ['db', 'status'], { SVC_DATABASE_URL: url });
    expect(text.stdout).toContain(`${POSTGRES_SCHEMA_VERSION}: ${STEP_NAMES[POSTGRES_SCHEMA_VERSION - 1]} (svc db migrate)`);
    const migrated = await json<{ applied: number[] }>(m.home, ['db', 'migrate'], { SVC_DATABASE_URL: url });
    expect(migrated.applied).toEqual([POSTGRES_SCHEMA_VERSION]);
    expect((await json<{ pending: unknown[] }>(m.home, ['db', 'status'], { SVC_DATABASE_URL: url })).pending).toEqual([]);
  });

  it('a second receipt under a number the database holds (issued elsewhere, imported): refused before sending, exit 7 naming the recorded one', async () => {
    const { m, other } = team as Team;
    // Issued on a machine of its own (embedded ledger), then imported: the database holds the record, not its intent.
    const local = await makeSvcHome(dirs);
    await cp(m.home.configDir, local.configDir, { recursive: true });
    const file = await m.newReceiptFile();
    const first = await runSvc(['receipt', 'send', '--file', file, '--email', 'alice@example.com'], { home: local, env: m.env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(await json<{ inserted: number }>(local, ['db', 'import'])).toMatchObject({ inserted: 1 });
    const receiptsOnService = async () => (await m.json<{ kind: string }[]>(['sandbox', 'deliveries'])).filter((d) => d.kind === 'RECEIPT').length;
    const before = await receiptsOnService();

    // Another key, so the service would take it as a new document.
    const second = await (team as Team).on(other, ['receipt', 'send', '--file', file, '--email', 'alice@example.com', '--idempotency-key', 'a-second-document-1']);
    expect(second.exitCode, second.stderr).toBe(7);
    const number = /R-2025-000871-\d+/.exec(second.stderr)?.[0];
    expect(second.stderr).toContain(`receipt ${number} is recorded already, as ${first.stdout.trim()} (issued on another machine, or imported): nothing was sent`);
    expect(await receiptsOnService()).toBe(before);
    const listed = await json<{ serviceReceiptId: string; templateRequest: { documentNumber: string } }[]>(other, ['receipt', 'list']);
    expect(listed.filter((r) => r.templateRequest.documentNumber === number).map((r) => r.serviceReceiptId)).toEqual([first.stdout.trim()]);
  });
});
