// `svc db import`: this profile's embedded ledger (receipts and credit notes issued from this
// machine, and the submissions still under way) copied into the shared database, in one
// transaction. Run it twice and nothing
// changes; a record the database holds with other content is reported (exit 7), never
// overwritten.
import { join } from 'node:path';
import { ExitCode, SvcError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { openSqliteLedger } from '../../store/embedded/sqlite.js';
import { profileDir } from '../../config/profile-dir.js';
import { requireDatabaseUrl } from './database.js';
import { counted } from '../../io/plural.js';
import { startedBy } from '../../receipts/submission.js';

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
    // Submissions under way too: a command killed after the service accepted its document is
    // finished from any machine of the team once its intent (bytes and key) is shared.
    records = { ...(await embedded.allRecords()), intents: await embedded.openIntents() };
  } finally {
    await embedded.close();
  }
  const result = await (await f.ledger()).importRecords(records);
  const carried = result.carried ?? 0;
  const intentConflicts = result.intentConflicts ?? [];
  writeRecord(
    f.io,
    [
      ['from', path],
      ['imported', String(result.inserted)],
      ['already there', String(result.skipped)],
      ['under way', `${carried} carried${carried > 0 ? ' (run the command that started each again, on any machine, to finish it)' : ''}`],
      ['conflicts', String(result.conflicts.length + intentConflicts.length)],
    ],
    { from: path, ...result, carried, intentConflicts },
  );
  for (const intent of records.intents) {
    if (!intentConflicts.some((c) => c.subject === intent.subject && c.kind === intent.kind)) {
      note(f.io, `under way: ${intent.kind} ${intent.documentNumber} (${intent.kind === 'credit-note' ? `request ${intent.subject}` : 'receipt'}) ${startedBy(intent)}`);
    }
  }
  if (result.conflicts.length === 0 && intentConflicts.length === 0) return;
  for (const c of result.conflicts) {
    const other = c.kind === 'receipt' ? 'another receipt under its document number' : 'another credit note under its number or for its request';
    note(f.io, `conflict: ${c.kind} ${c.serviceReceiptId}: the database holds it with other content, or ${other}; left as it is`);
  }
  for (const c of intentConflicts) note(f.io, `conflict: ${c.kind} ${c.documentNumber} has another submission under way in the database; this machine's was not carried`);
  const total = result.conflicts.length + intentConflicts.length;
  throw new ImportConflictError(`${counted(total, 'record')} differ${total === 1 ? 's' : ''} from the database's and were not imported`, {
    hint: 'compare `svc receipt list --json` with and without SVC_DATABASE_URL; the rest was imported',
  });
}
