// `svc db import`: this profile's embedded ledger (receipts and credit notes issued from this
// machine) copied into the shared database, in one transaction. Run it twice and nothing
// changes; a record the database holds with other content is reported (exit 7), never
// overwritten.
import { join } from 'node:path';
import { ExitCode, SvcError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { openSqliteLedger } from '../../store/embedded/sqlite.js';
import { profileDir } from '../../store/open.js';
import { requireDatabaseUrl } from './database.js';
import { counted } from '../../io/plural.js';

export type ImportOptions = Record<string, never>;

class ImportConflictError extends SvcError {
  override readonly exitCode = ExitCode.conflict;
}

export async function run(_opts: ImportOptions, f: Factory): Promise<void> {
  await requireDatabaseUrl(f);
  const path = join(profileDir(f), 'ledger.db');
  const embedded = await openSqliteLedger(path);
  let records;
  try {
    records = await embedded.allRecords();
  } finally {
    await embedded.close();
  }
  const result = await (await f.ledger()).importRecords(records);
  writeRecord(
    f.io,
    [
      ['from', path],
      ['imported', String(result.inserted)],
      ['already there', String(result.skipped)],
      ['conflicts', String(result.conflicts.length)],
    ],
    { from: path, ...result },
  );
  if (result.conflicts.length === 0) return;
  for (const c of result.conflicts) note(f.io, `conflict: ${c.kind} ${c.serviceReceiptId} is in the database with other content; left as it is`);
  throw new ImportConflictError(`${counted(result.conflicts.length, 'record')} differ${result.conflicts.length === 1 ? 's' : ''} from the database's and were not imported`, {
    hint: 'compare `svc receipt list --json` with and without SVC_DATABASE_URL; the rest was imported',
  });
}
