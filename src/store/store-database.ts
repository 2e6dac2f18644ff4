// The small stores' SQLite files (the token cache, the subscriptions file, the Grants file):
// opened with the same wait for other writers, their tables made if missing, SQLite's rare
// I/O errors retried, and a failure said as the store's own, with what to do about it.
import { openDatabase, retryIo, type Database } from './embedded/database.js';
import { StoreError } from './errors.js';
import { fsErrorCode, notWritableError } from './private-file.js';

// Writers wait for each other this long (SQLite's busy handler) before giving up.
const BUSY_MS = 10_000;

/** `path` opened and `schema` run on it; else a StoreError "cannot open the WHAT PATH (CODE)" with `hint`. */
export function openStoreDatabase(path: string, schema: string, what: string, hint: string): Database {
  try {
    const db = openDatabase(path, BUSY_MS);
    retryIo(() => db.exec(schema));
    return db;
  } catch (error) {
    // A read-only or another user's state directory is not a damaged file: moving it away would lose it.
    throw notWritableError(`open the ${what}`, path) ?? new StoreError(`cannot open the ${what} ${path} (${fsErrorCode(error)})`, { hint, cause: error });
  }
}
