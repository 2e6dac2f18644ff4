// A team for the end-to-end tests on PostgreSQL: a real server with a database of its own, a
// sandbox and a logged-in merchant, and a second machine (the same login and keys, its own
// copy of the config, its own state). `on` runs svc on a machine against the shared database.
import { cp } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import { postgresSkipReason, startPostgres, type PgServer } from '../postgres-server.js';
import { makeSvcHome, runSvc, tempDirs, type SvcHome, type SvcResult, type TempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';

export interface Team {
  m: Merchant;
  server: PgServer;
  /** SVC_DATABASE_URL of the team's database. */
  url: string;
  other: SvcHome;
  on(home: SvcHome, args: string[], extra?: Record<string, string | undefined>): Promise<SvcResult>;
  stop(): Promise<void>;
}

/** `sandboxArgs`: more flags of `sandbox start`, e.g. `--companies 3`. */
export async function startTeam(dirs: TempDirs, database: string, sandboxArgs: readonly string[] = []): Promise<Team> {
  const server = await startPostgres();
  const url = await server.database(database);
  const m = await startMerchant(dirs, sandboxArgs);
  const other = await makeSvcHome(dirs);
  await cp(m.home.configDir, other.configDir, { recursive: true });
  return {
    m,
    server,
    url,
    other,
    on: (home, args, extra = {}) => runSvc(args, { home, env: { ...m.env, SVC_DATABASE_URL: url, ...extra }, timeout: 60_000 }),
    async stop() {
      await m.sandbox.stop();
      await server.drop();
    },
  };
}

/**
 * One team for the tests of a file, started before them and stopped after: `skip` says why
 * there is none (no PostgreSQL server here), for `describe.skipIf(skip !== undefined)`.
 */
export function useTeam(database: string, sandboxArgs: readonly string[] = []): { skip: string | undefined; team: () => Team; dirs: TempDirs } {
  const skip = postgresSkipReason();
  const dirs = tempDirs();
  let team: Team | undefined;
  beforeAll(async () => {
    if (skip) return;
    team = await startTeam(dirs, database, sandboxArgs);
  }, 120_000);
  afterAll(async () => {
    await team?.stop();
    await dirs.cleanup();
  });
  return { skip, dirs, team: () => team as Team };
}
