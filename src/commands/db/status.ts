// `svc db status`: which database, at which schema version, holding how much. Never the password.
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { requireDatabaseUrl } from './database.js';

export type StatusOptions = Record<string, never>;

export async function run(_opts: StatusOptions, f: Factory): Promise<void> {
  await requireDatabaseUrl(f);
  const status = await (await f.ledger()).status();
  writeRecord(
    f.io,
    [
      ['engine', status.engine],
      ['database', status.location],
      ['schema version', String(status.schemaVersion)],
      ...Object.entries(status.counts).map(([name, n]): [string, string] => [name, String(n)]),
    ],
    status,
  );
}
