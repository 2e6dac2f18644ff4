// `svc db status`: which database, at which schema version, what `svc db migrate` would still
// apply, and how much it holds. Read-only: a database svc never migrated is described, not
// created. Never the password.
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { databaseError, openPool } from '../../store/postgres/pool.js';
import { readDatabaseStatus } from '../../store/postgres/status.js';
import { requireDatabaseUrl } from './database.js';

export type StatusOptions = Record<string, never>;

export async function run(_opts: StatusOptions, f: Factory): Promise<void> {
  const url = await requireDatabaseUrl(f);
  const pool = await openPool(url, { env: f.env });
  try {
    const client = await pool.connect();
    try {
      const status = await readDatabaseStatus(client, url);
      const newer = status.schemaVersion > status.svcSchemaVersion;
      // Every other command refuses such a database (exit 1): said here in words, before anyone runs one.
      const warning = newer
        ? `the database is at schema version ${status.schemaVersion}, newer than this svc's ${status.svcSchemaVersion}: this svc refuses to use it; upgrade svc on this machine`
        : undefined;
      writeRecord(
        f.io,
        [
          ['engine', status.engine],
          ['database', status.location],
          ['schema version', `${status.schemaVersion}${newer ? ` (newer than this svc's ${status.svcSchemaVersion}: upgrade svc)` : ''}`],
          ['pending', status.pending.length === 0 ? 'nothing' : status.pending.map((p) => `${p.version}: ${p.does}`).join('; ') + ' (svc db migrate)'],
          ...Object.entries(status.counts).map(([name, n]): [string, string] => [name, String(n)]),
        ],
        warning === undefined ? status : { ...status, warning },
      );
      if (warning !== undefined && !f.io.json) note(f.io, `warning: ${warning}`);
    } finally {
      client.release();
    }
  } catch (error) {
    throw databaseError(url, error);
  } finally {
    await pool.end();
  }
}
