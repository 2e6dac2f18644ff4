// Which ledger a command works with: PostgreSQL when a database URL is set (SVC_DATABASE_URL,
// or the profile's `database-url`), else the profile's embedded SQLite database. Each engine
// (libsql, pg) is loaded only here, only when a command first needs the ledger.
import { join } from 'node:path';
import { note, type IOStreams } from '../io/streams.js';
import { privateDir } from './private-file.js';
import { importLegacyFiles } from './embedded/legacy-files.js';
import type { LedgerStore } from './ledger.js';
import { counted } from '../io/plural.js';

/** Where the profile's ledger is (config/profile-dir.ts says, for the factory), and where to say what opening it does. */
export interface LedgerPlace {
  /** The database URL in force, checked; undefined: the embedded ledger in profileDir. */
  databaseUrl: string | undefined;
  stateDir: string;
  /** <stateDir>/<profile>. */
  profileDir: string;
  env: Readonly<Record<string, string | undefined>>;
  io: IOStreams;
}

export async function openLedger(place: LedgerPlace): Promise<LedgerStore> {
  const { databaseUrl: url, profileDir: dir, io } = place;
  if (url !== undefined) {
    const { openPostgresLedger } = await import('./postgres/ledger.js');
    return openPostgresLedger(url, { env: place.env, onWait: (text) => note(io, text) });
  }
  await privateDir(place.stateDir);
  await privateDir(dir);
  const path = join(dir, 'ledger.db');
  const { openSqliteLedger } = await import('./embedded/sqlite.js');
  const store = await openSqliteLedger(path, {
    onWait: () => note(io, `waiting for another svc process to finish writing the ledger ${path}`),
  });
  try {
    const imported = await importLegacyFiles(store, dir);
    if (imported > 0) note(io, `moved ${counted(imported, 'local record')} from JSON files into ${path}`);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
