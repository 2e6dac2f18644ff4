// Which ledger a command works with: PostgreSQL when a database URL is set (SVC_DATABASE_URL,
// or the profile's `database-url`), else the profile's embedded SQLite database. Each engine
// (libsql, pg) is loaded only here, only when a command first needs the ledger.
import { join } from 'node:path';
import { resolveProfileName, resolveProfileSettings } from '../config/settings.js';
import type { Factory } from '../factory.js';
import { pathSegment, privateDir } from '../io/private-file.js';
import { note } from '../io/streams.js';
import { importLegacyFiles } from './embedded/legacy-files.js';
import { checkDatabaseUrl, refuseStoredPassword } from './database-url.js';
import type { LedgerStore } from './ledger.js';
import { counted } from '../io/plural.js';

/** <stateDir>/<profile>: the profile's own state (the embedded ledger, the webhook journal). */
export function profileDir(f: Factory): string {
  return join(f.paths.stateDir, pathSegment(resolveProfileName(f.globals, f.env).value, 'profile name'));
}

/** The database URL in force (SVC_DATABASE_URL > the profile's database-url), checked; undefined: the embedded ledger. */
export async function databaseUrlOf(f: Factory): Promise<string | undefined> {
  const setting = resolveProfileSettings({ flags: f.globals, env: f.env, config: await f.config() }).databaseUrl;
  if (!setting) return undefined;
  if (setting.source === 'env') return checkDatabaseUrl(setting.value, 'SVC_DATABASE_URL');
  // A config.json edited by hand is held to what `config set` accepts.
  return refuseStoredPassword(checkDatabaseUrl(setting.value, 'database-url'), 'database-url');
}

export async function openLedger(f: Factory): Promise<LedgerStore> {
  const url = await databaseUrlOf(f);
  if (url !== undefined) {
    const { openPostgresLedger } = await import('./postgres/ledger.js');
    return openPostgresLedger(url, { env: f.env, onWait: (text) => note(f.io, text) });
  }
  const dir = profileDir(f);
  await privateDir(f.paths.stateDir);
  await privateDir(dir);
  const path = join(dir, 'ledger.db');
  const { openSqliteLedger } = await import('./embedded/sqlite.js');
  const store = await openSqliteLedger(path, {
    onWait: () => note(f.io, `waiting for another svc process to finish writing the ledger ${path}`),
  });
  try {
    const imported = await importLegacyFiles(store, dir);
    if (imported > 0) note(f.io, `moved ${counted(imported, 'local record')} from JSON files into ${path}`);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
