// `svc db migrate`: the schema brought to this svc's version under the migration lock (every
// command that opens the database does the same on its own; this one says what it did).
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { redactDatabaseUrl } from '../../store/database-url.js';
import { databaseError, openPool } from '../../store/postgres/pool.js';
import { migrate, POSTGRES_SCHEMA_VERSION, refuseNewer, schemaVersion } from '../../store/postgres/schema.js';
import { requireDatabaseUrl } from './database.js';

export type MigrateOptions = Record<string, never>;

export async function run(_opts: MigrateOptions, f: Factory): Promise<void> {
  const url = await requireDatabaseUrl(f);
  const pool = await openPool(url, { env: f.env });
  try {
    const client = await pool.connect();
    try {
      // A newer svc's database is refused as every command refuses it, not reported "up to date".
      refuseNewer(await schemaVersion(client), redactDatabaseUrl(url));
      const applied = await migrate(client);
      writeRecord(
        f.io,
        [
          ['database', redactDatabaseUrl(url)],
          ['schema version', String(POSTGRES_SCHEMA_VERSION)],
          ['applied', applied.length === 0 ? 'nothing (up to date)' : applied.join(', ')],
        ],
        { database: redactDatabaseUrl(url), schemaVersion: POSTGRES_SCHEMA_VERSION, applied },
      );
    } finally {
      client.release();
    }
  } catch (error) {
    throw databaseError(url, error);
  } finally {
    await pool.end();
  }
}
