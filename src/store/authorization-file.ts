// The Grants and companies a login leaves, per profile, in a SQLite file beside the
// configuration (<configDir>/authorizations.db, 0600 in a 0700 directory), one row each: the
// token cache's way (token-file.ts). A platform's profile holds thousands of them; keeping
// one company's new expiry, a login that adds a Grant or a logout is a change of those rows,
// costing the same with 10 or 10,000 kept, where config.json was rewritten whole (4.6 MB at
// 10,000) for each. Nothing secret is here: tokens and secrets stay in the secret store.
// What an older svc kept in config.json is taken over per profile in the first write's
// transaction (`legacy`), which marks the profile taken; until then readers keep reading it
// from config.json, so a command that only reads never writes and never loads SQLite for it.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsErrorCode } from './private-file.js';
import { immediateTransaction, retryIo } from './embedded/database.js';
import { openStoreDatabase } from './store-database.js';
import { StoreError } from './errors.js';

export type AuthorizationKind = 'grant' | 'company';

/** A Grant (by its ID) or a code-flow company (by its merchant ID), its record as JSON. */
export interface AuthorizationRow {
  kind: AuthorizationKind;
  id: string;
  record: string;
}

/** One change of a profile's rows, made in one transaction. */
export interface AuthorizationEdit {
  /** Removes every row of the profile first (a logout). */
  clear?: boolean;
  /** Rows removed (before `put`: a row removed and put again goes last, a new one). */
  drop?: readonly { kind: AuthorizationKind; id: string }[];
  /** Rows added last, or changed where they stand. */
  put?: readonly AuthorizationRow[];
}

export interface AuthorizationFile {
  /** The profile's rows in their order, or undefined while its records are still config.json's. */
  rows(profile: string): AuthorizationRow[] | undefined;
  /** `legacy` (config.json's rows of the profile) is taken over first when the profile is not yet taken. */
  write(profile: string, legacy: () => readonly AuthorizationRow[], edit: AuthorizationEdit): void;
  /** Changes when another connection (process) has committed since the last call's value. */
  version(): number;
  close(): void;
}

export function openAuthorizationFile(path: string): AuthorizationFile {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new StoreError(`cannot make the directory of the Grants file ${path} (${fsErrorCode(error)})`, { cause: error });
  }
  const db = openStoreDatabase(
    path,
    // SQLite's rollback journal, not WAL: a configuration directory may be read-only (a
    // service's, mounted so), and a WAL database cannot even be read without writing its
    // -shm file. Writes are rare (a login, a logout, a renewed expiry).
    `CREATE TABLE IF NOT EXISTS authorizations (profile TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, record TEXT NOT NULL, UNIQUE (profile, kind, id));
    CREATE TABLE IF NOT EXISTS taken (profile TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID`,
    'Grants file',
    'move it away and run `svc auth login` again: it holds only what a login keeps of the Grants, no secret',
  );
  const selectRows = db.prepare('SELECT kind, id, record FROM authorizations WHERE profile = ? ORDER BY rowid');
  const isTaken = db.prepare('SELECT 1 AS yes FROM taken WHERE profile = ?');
  const markTaken = db.prepare('INSERT INTO taken (profile, at) VALUES (?, ?)');
  const upsert = db.prepare('INSERT INTO authorizations (profile, kind, id, record) VALUES (?, ?, ?, ?) ON CONFLICT (profile, kind, id) DO UPDATE SET record = excluded.record');
  const dropOne = db.prepare('DELETE FROM authorizations WHERE profile = ? AND kind = ? AND id = ?');
  const dropAll = db.prepare('DELETE FROM authorizations WHERE profile = ?');
  const dataVersion = db.prepare('PRAGMA data_version');
  return {
    rows: (profile) =>
      retryIo(() => {
        if (isTaken.get(profile) === undefined) return undefined;
        return selectRows.all(profile) as AuthorizationRow[];
      }),
    write: (profile, legacy, edit) =>
      immediateTransaction(db, () => {
        if (isTaken.get(profile) === undefined) {
          for (const r of legacy()) upsert.run(profile, r.kind, r.id, r.record);
          markTaken.run(profile, new Date().toISOString());
        }
        if (edit.clear) dropAll.run(profile);
        for (const r of edit.drop ?? []) dropOne.run(profile, r.kind, r.id);
        for (const r of edit.put ?? []) upsert.run(profile, r.kind, r.id, r.record);
      }),
    version: () => Number((retryIo(() => dataVersion.get()) as { data_version: number }).data_version),
    close: () => db.close(),
  };
}
