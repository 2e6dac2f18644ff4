// A profile's access tokens in a private SQLite file (<stateDir>/<profile>/tokens.db, 0600
// in a 0700 directory), one row per Grant and scope: what gcloud does with its access
// tokens (access_tokens.db). A platform holds thousands of Grants and renews a token per
// Grant every 15 minutes; here writing one is an upsert of one row, costing the same with
// 10 or 10,000 cached (the secret file rewrote every token under a lock per write), and
// processes writing at once are serialized by SQLite's own lock, so none loses another's.
// Long-lived secrets (client secret, refresh tokens, private keys) stay in the secret store.
import { dirname } from 'node:path';
import { privateDir } from './private-file.js';
import { immediateTransaction, retryIo } from './embedded/database.js';
import { openStoreDatabase } from './store-database.js';

/** A Grant's cached tokens as stored: slot (the scope) → the token's JSON. */
export type StoredTokens = Record<string, string>;

export interface TokenFile {
  read(id: string): StoredTokens;
  write(id: string, slot: string, value: string): void;
  /** Drops one slot, or every slot of the ID; true if there was anything. */
  remove(id: string, slot?: string): boolean;
  /** The IDs with a cached token. */
  ids(): string[];
  /**
   * Claims the renewal of an ID's tokens for `owner` (one short transaction): undefined when
   * it is now `owner`'s, else the claim that stands (another renewer's, or a dead one's).
   */
  claim(id: string, owner: RenewalClaim): RenewalClaim | undefined;
  /** Takes over `stale`'s claim (its renewer is dead); false when it changed meanwhile. */
  takeOver(id: string, stale: RenewalClaim, owner: RenewalClaim): boolean;
  /** Drops `owner`'s claim (a renewal that failed). */
  unclaim(id: string, owner: RenewalClaim): void;
  count(): number;
  close(): void;
}

/** Who renews an ID's tokens: a process (its pid, a nonce of its run) since when. */
export interface RenewalClaim {
  owner: string;
  pid: number;
  since: string;
}

export async function openTokenFile(path: string): Promise<TokenFile> {
  await privateDir(dirname(dirname(path)));
  await privateDir(dirname(path));
  // Created owner-only by openDatabase before SQLite opens it: its -wal and -shm files take its mode.
  // A cache: losing the last write to a power cut costs one token request, so no fsync per write.
  const db = openStoreDatabase(
    path,
    `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
    CREATE TABLE IF NOT EXISTS tokens (id TEXT NOT NULL, slot TEXT NOT NULL, token TEXT NOT NULL, PRIMARY KEY (id, slot)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS renewals (id TEXT PRIMARY KEY, owner TEXT NOT NULL, pid INTEGER NOT NULL, since TEXT NOT NULL) WITHOUT ROWID`,
    'token cache',
    'remove the file: it only holds access tokens, which are asked for again',
  );
  const select = db.prepare('SELECT slot, token FROM tokens WHERE id = ?');
  const upsert = db.prepare('INSERT INTO tokens (id, slot, token) VALUES (?, ?, ?) ON CONFLICT (id, slot) DO UPDATE SET token = excluded.token');
  const deleteSlot = db.prepare('DELETE FROM tokens WHERE id = ? AND slot = ?');
  const deleteAll = db.prepare('DELETE FROM tokens WHERE id = ?');
  const countAll = db.prepare('SELECT count(*) AS n FROM tokens');
  const allIds = db.prepare('SELECT DISTINCT id FROM tokens ORDER BY id');
  const claimOf = db.prepare('SELECT owner, pid, since FROM renewals WHERE id = ?');
  const insertClaim = db.prepare('INSERT INTO renewals (id, owner, pid, since) VALUES (?, ?, ?, ?)');
  const moveClaim = db.prepare('UPDATE renewals SET owner = ?, pid = ?, since = ? WHERE id = ? AND owner = ?');
  const dropClaim = db.prepare('DELETE FROM renewals WHERE id = ? AND owner = ?');
  // Each use retried on SQLite's rare I/O errors under many processes (retryIo).
  const transaction = <T>(work: () => T): T => immediateTransaction(db, work);
  return {
    claim: (id, owner) =>
      transaction(() => {
        const standing = claimOf.get(id) as RenewalClaim | undefined;
        if (standing !== undefined) return { owner: standing.owner, pid: standing.pid, since: standing.since };
        insertClaim.run(id, owner.owner, owner.pid, owner.since);
        return undefined;
      }),
    takeOver: (id, stale, owner) => retryIo(() => moveClaim.run(owner.owner, owner.pid, owner.since, id, stale.owner).changes > 0),
    unclaim: (id, owner) => void retryIo(() => dropClaim.run(id, owner.owner)),
    read: (id) => Object.fromEntries(retryIo(() => select.all(id) as { slot: string; token: string }[]).map((r) => [r.slot, r.token])),
    write: (id, slot, value) => void retryIo(() => upsert.run(id, slot, value)),
    remove: (id, slot) => retryIo(() => (slot === undefined ? deleteAll.run(id) : deleteSlot.run(id, slot)).changes > 0),
    ids: () => retryIo(() => allIds.all() as { id: string }[]).map((r) => r.id),
    count: () => retryIo(() => (countAll.get() as { n: number }).n),
    close: () => db.close(),
  };
}
