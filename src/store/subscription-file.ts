// A profile's webhook subscriptions in a private SQLite file (<stateDir>/<profile>/webhooks/
// subscriptions.db, 0600 in a 0700 directory), one row per subscription, as the token cache
// keeps tokens (token-file.ts): keeping one is an insert of its row, costing the same with 10
// or 10,000 kept (the JSON file before it was rewritten whole per batch: 4.6 MB at 10,000), and
// processes writing at once are serialized by SQLite's own lock. Signing secrets are not here:
// they stay in the secret store. The whole-file records of an older svc are taken over once,
// on first open (`legacy`), in the transaction that marks them taken.
import { dirname } from 'node:path';
import { privateDir } from './private-file.js';
import { immediateTransaction, retryIo } from './embedded/database.js';
import { openStoreDatabase } from './store-database.js';

/** A subscription as stored: its ID, Grant (if known), URL, and the whole record as JSON. */
export interface SubscriptionRow {
  id: string;
  grantId: string | undefined;
  notificationUrl: string;
  record: string;
}

export interface SubscriptionFile {
  all(): SubscriptionRow[];
  /** Inserts or replaces these rows, in one transaction. */
  put(rows: readonly SubscriptionRow[]): void;
  remove(ids: readonly string[]): void;
  /** Changes when another connection (process) has committed since the last call's value. */
  version(): number;
  close(): void;
}

/** `legacy` reads the records an older svc kept whole (undefined: none); called at most once per file. */
export async function openSubscriptionFile(path: string, legacy: () => SubscriptionRow[] | undefined): Promise<SubscriptionFile> {
  await privateDir(dirname(dirname(path)));
  await privateDir(dirname(path));
  const db = openStoreDatabase(
    path,
    `PRAGMA journal_mode = WAL;
    CREATE TABLE IF NOT EXISTS subscriptions (id TEXT PRIMARY KEY, grant_id TEXT, notification_url TEXT NOT NULL, record TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
    'subscriptions file',
    'move it away; the secrets stay in the secret store, and `svc webhook list` shows the subscriptions of the service',
  );
  const selectAll = db.prepare('SELECT id, grant_id AS grantId, notification_url AS notificationUrl, record FROM subscriptions ORDER BY rowid');
  const upsert = db.prepare('INSERT INTO subscriptions (id, grant_id, notification_url, record) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET grant_id = excluded.grant_id, notification_url = excluded.notification_url, record = excluded.record');
  const drop = db.prepare('DELETE FROM subscriptions WHERE id = ?');
  const migrated = db.prepare("SELECT value FROM meta WHERE key = 'legacy-taken'");
  const markMigrated = db.prepare("INSERT INTO meta (key, value) VALUES ('legacy-taken', ?)");
  const dataVersion = db.prepare('PRAGMA data_version');
  const transaction = <T>(work: () => T): T => immediateTransaction(db, work);
  const put = (rows: readonly SubscriptionRow[]) => {
    for (const r of rows) upsert.run(r.id, r.grantId ?? null, r.notificationUrl, r.record);
  };
  if (migrated.get() === undefined) {
    transaction(() => {
      if (migrated.get() !== undefined) return;
      put(legacy() ?? []);
      markMigrated.run(new Date().toISOString());
    });
  }
  return {
    all: () => retryIo(() => selectAll.all() as { id: string; grantId: string | null; notificationUrl: string; record: string }[]).map((r) => ({ ...r, grantId: r.grantId ?? undefined })),
    put: (rows) => transaction(() => put(rows)),
    remove: (ids) =>
      transaction(() => {
        for (const id of ids) drop.run(id);
      }),
    version: () => Number((retryIo(() => dataVersion.get()) as { data_version: number }).data_version),
    close: () => db.close(),
  };
}
