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
    expect(status.pending[0]?.does).toMatch(/machine that started each submission/);
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

  it('a database a newer svc migrated: db migrate (text and --json) refuses, exit 1, naming both versions and "upgrade svc", nothing applied; db status says in words it is newer', async () => {
    const { m, server } = team as Team;
    const url = await server.database('newer_schema');
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const client = await pool.connect();
      await migrate(client);
      // What a newer svc leaves behind: one more step recorded.
      await client.query('INSERT INTO svc_schema_migrations (version) VALUES ($1)', [POSTGRES_SCHEMA_VERSION + 1]);
      client.release();
    } finally {
      await pool.end();
    }
    const newer = POSTGRES_SCHEMA_VERSION + 1;
    const asJson = await (team as Team).on(m.home, ['db', 'migrate', '--json'], { SVC_DATABASE_URL: url });
    expect(asJson.exitCode, asJson.stderr).toBe(1);
    expect(asJson.stdout).toBe('');
    const { error } = JSON.parse(asJson.stderr) as { error: { message: string; hint: string; details: { path: string; message: string }[] } };
    expect(error.message).toContain(`is at schema version ${newer}, newer than this svc's ${POSTGRES_SCHEMA_VERSION}`);
    expect(error.hint).toMatch(/upgrade svc/);
    expect(error.details).toEqual([{ path: 'schemaVersion', message: `the database is at ${newer}; this svc knows up to ${POSTGRES_SCHEMA_VERSION}` }]);
    const text = await (team as Team).on(m.home, ['db', 'migrate'], { SVC_DATABASE_URL: url });
    expect(text.exitCode).toBe(1);
    expect(text.stderr).toContain(`newer than this svc's ${POSTGRES_SCHEMA_VERSION}`);
    expect(text.stderr).toContain('hint: upgrade svc');
    expect(server.psql('newer_schema', 'SELECT max(version) FROM svc_schema_migrations')).toContain(String(newer));

    const status = await (team as Team).on(m.home, ['db', 'status'], { SVC_DATABASE_URL: url });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stderr).toContain(`warning: the database is at schema version ${newer}, newer than this svc's ${POSTGRES_SCHEMA_VERSION}: this svc refuses to use it; upgrade svc on this machine`);
    const statusJson = await json<{ schemaVersion: number; svcSchemaVersion: number; warning: string }>(m.home, ['db', 'status'], { SVC_DATABASE_URL: url });
    expect(statusJson).toMatchObject({ schemaVersion: newer, svcSchemaVersion: POSTGRES_SCHEMA_VERSION });
    expect(statusJson.warning).toContain('upgrade svc');
  });

  it('db migrate as a role without CREATE on the schema: exit 5, the privilege it lacks and the GRANT to run, not the password hint', async () => {
    const { m, server } = team as Team;
    const url = await server.database('no_create');
    // PostgreSQL 15 and later: a role that does not own the database cannot create in public.
    server.psql('no_create', `CREATE ROLE svc_reader LOGIN PASSWORD 'reader-password'; REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO svc_reader`);
    const reader = new URL(url);
    reader.username = 'svc_reader';
    reader.password = 'reader-password';
    for (const flags of [[], ['--json']]) {
      const r = await (team as Team).on(m.home, ['db', 'migrate', ...flags], { SVC_DATABASE_URL: reader.toString() });
      expect(r.exitCode, r.stderr).toBe(5);
      expect(r.stderr).toContain('permission denied for schema public');
      expect(r.stderr).toContain('GRANT CREATE ON SCHEMA public TO svc_reader');
      expect(r.stderr).toContain('svc db migrate');
      expect(r.stderr).not.toContain('check the URL, the user and its password');
      expect(r.stderr).not.toContain('reader-password');
    }
  });
});
