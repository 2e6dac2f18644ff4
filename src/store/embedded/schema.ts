// The embedded ledger's schema, versioned with SQLite's user_version and migrated inside the
// write transaction that opens the database, so two processes opening it at once migrate it
// once. Each step only adds: a migration never drops what an older svc wrote.
import type { Database } from './sqlite.js';

const STEPS: readonly string[] = [
  // 1: the ledger, the submissions under way and the queue items seen.
  `CREATE TABLE receipts (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     service_receipt_id TEXT NOT NULL UNIQUE,
     document_number TEXT NOT NULL,
     issued_at TEXT NOT NULL,
     record TEXT NOT NULL
   );
   CREATE TABLE credit_notes (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     service_receipt_id TEXT NOT NULL UNIQUE,
     parent TEXT NOT NULL,
     request_id TEXT NOT NULL,
     document_number TEXT NOT NULL,
     issued_at TEXT NOT NULL,
     record TEXT NOT NULL
   );
   CREATE INDEX credit_notes_parent ON credit_notes (parent);
   CREATE TABLE intents (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL,
     subject TEXT NOT NULL,
     parent TEXT,
     document_number TEXT NOT NULL,
     digest TEXT NOT NULL,
     state TEXT NOT NULL,
     created_at TEXT NOT NULL,
     pid INTEGER,
     reservation TEXT,
     idempotency_key TEXT,
     body TEXT,
     context TEXT,
     result TEXT
   );
   CREATE UNIQUE INDEX intents_one_open ON intents (kind, subject) WHERE state IN ('reserved', 'prepared');
   CREATE INDEX intents_parent ON intents (parent) WHERE state IN ('reserved', 'prepared');
   CREATE TABLE queue_items (
     request_id TEXT PRIMARY KEY,
     item TEXT NOT NULL,
     first_seen TEXT NOT NULL,
     last_seen TEXT NOT NULL
   );`,
  // 2: why the merchant rejected a request (the service takes no reason), with its kept item.
  `ALTER TABLE queue_items ADD COLUMN rejection TEXT;`,
  // 3: one credit note per return request, enforced by the database; the part of a request the
  // merchant accepted (CONTRACT §8 "Partial acceptance"), a decision of record.
  `CREATE UNIQUE INDEX credit_notes_one_per_request ON credit_notes (request_id);
   CREATE TABLE accepted_parts (
     request_id TEXT PRIMARY KEY,
     lines TEXT NOT NULL,
     accepted_at TEXT NOT NULL,
     accepted_by TEXT
   );`,
];

export const EMBEDDED_SCHEMA_VERSION = STEPS.length;

/** Whether the database is older than this svc's schema (read without taking the write lock). */
export function needsMigration(db: Database): boolean {
  return (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version < EMBEDDED_SCHEMA_VERSION;
}

/** Brings the database to this svc's schema; call inside a write transaction (it checks again). */
export function migrateEmbedded(db: Database): void {
  const { user_version: current } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  if (current > EMBEDDED_SCHEMA_VERSION) return; // A newer svc's database: it only ever adds.
  for (let version = current; version < EMBEDDED_SCHEMA_VERSION; version++) db.exec(STEPS[version] as string);
  if (current !== EMBEDDED_SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${EMBEDDED_SCHEMA_VERSION}`);
}
