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
  // merchant accepted (docs/interface-decisions.md#partial-acceptance), a decision of record.
  `CREATE UNIQUE INDEX credit_notes_one_per_request ON credit_notes (request_id);
   CREATE TABLE accepted_parts (
     request_id TEXT PRIMARY KEY,
     lines TEXT NOT NULL,
     accepted_at TEXT NOT NULL,
     accepted_by TEXT
   );`,
  // 4: as PostgreSQL's step 5, where SQLite's types allow. SQLite adds no CHECK to an existing
  // table, so triggers refuse what a CHECK would (times that are not times, JSON that is not
  // JSON, a currency that is not three capitals, a negative total, an unknown state); the
  // lines the over-credit check reads are tables with CHECKs, filled by triggers; one
  // document per number and issuer is a unique index (a duplicate recorded earlier is kept,
  // marked). Amounts stay in the documents: SQLite has no exact decimal to convert them with.
  `ALTER TABLE receipts ADD COLUMN issuer TEXT GENERATED ALWAYS AS (json_extract(record, '$.template.accountingSupplierParty.partyIdentification[0].id.value')) VIRTUAL;
   ALTER TABLE receipts ADD COLUMN kept_duplicate INTEGER NOT NULL DEFAULT 0 CHECK (kept_duplicate IN (0, 1));
   UPDATE receipts SET kept_duplicate = 1
     WHERE EXISTS (SELECT 1 FROM receipts o WHERE o.issuer = receipts.issuer AND o.document_number = receipts.document_number AND o.seq < receipts.seq);
   CREATE UNIQUE INDEX receipts_one_per_number ON receipts (issuer, document_number) WHERE kept_duplicate = 0;
   CREATE INDEX receipts_listed ON receipts (issued_at DESC, seq DESC);
   CREATE TRIGGER receipts_checked BEFORE INSERT ON receipts
     WHEN NOT json_valid(NEW.record) OR julianday(NEW.issued_at) IS NULL OR NEW.document_number = ''
       OR json_extract(NEW.record, '$.serviceReceiptId') IS NOT NEW.service_receipt_id
       OR json_extract(NEW.record, '$.templateRequest.documentNumber') IS NOT NEW.document_number
       OR coalesce(json_extract(NEW.record, '$.templateRequest.currency') GLOB '[A-Z][A-Z][A-Z]', 0) = 0
       OR coalesce(json_extract(NEW.record, '$.templateRequest.totalAmount') >= 0, 0) = 0
   BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: receipts_checked'); END;

   ALTER TABLE credit_notes ADD COLUMN issuer TEXT;
   ALTER TABLE credit_notes ADD COLUMN kept_duplicate INTEGER NOT NULL DEFAULT 0 CHECK (kept_duplicate IN (0, 1));
   UPDATE credit_notes SET issuer = (SELECT issuer FROM receipts WHERE service_receipt_id = credit_notes.parent);
   UPDATE credit_notes SET kept_duplicate = 1
     WHERE EXISTS (SELECT 1 FROM credit_notes o WHERE o.issuer = credit_notes.issuer AND o.document_number = credit_notes.document_number AND o.seq < credit_notes.seq);
   CREATE UNIQUE INDEX credit_notes_one_per_number ON credit_notes (issuer, document_number) WHERE kept_duplicate = 0;
   CREATE TRIGGER credit_notes_checked BEFORE INSERT ON credit_notes
     WHEN NOT json_valid(NEW.record) OR julianday(NEW.issued_at) IS NULL OR NEW.document_number = ''
       OR json_extract(NEW.record, '$.serviceReceiptId') IS NOT NEW.service_receipt_id
       OR json_extract(NEW.record, '$.requestId') IS NOT NEW.request_id
       OR json_extract(NEW.record, '$.documentNumber') IS NOT NEW.document_number
       OR coalesce(json_extract(NEW.record, '$.templateRequest.currency') GLOB '[A-Z][A-Z][A-Z]', 0) = 0
       OR coalesce(json_extract(NEW.record, '$.templateRequest.totalAmount') >= 0, 0) = 0
   BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: credit_notes_checked'); END;

   CREATE TABLE receipt_lines (
     receipt TEXT NOT NULL REFERENCES receipts (service_receipt_id) ON DELETE CASCADE,
     line INTEGER NOT NULL CHECK (line >= 0),
     product_id TEXT NOT NULL CHECK (product_id <> ''),
     quantity REAL NOT NULL CHECK (typeof(quantity) IN ('integer', 'real') AND quantity > 0),
     PRIMARY KEY (receipt, line)
   );
   CREATE TRIGGER receipt_lines_of AFTER INSERT ON receipts BEGIN
     INSERT INTO receipt_lines (receipt, line, product_id, quantity)
       SELECT NEW.service_receipt_id, key, json_extract(value, '$.identifier'), json_extract(value, '$.quantity')
       FROM json_each(NEW.record, '$.templateRequest.products');
   END;
   INSERT INTO receipt_lines (receipt, line, product_id, quantity)
     SELECT r.service_receipt_id, p.key, json_extract(p.value, '$.identifier'), json_extract(p.value, '$.quantity')
     FROM receipts r, json_each(r.record, '$.templateRequest.products') p;

   CREATE TABLE credit_note_lines (
     credit_note TEXT NOT NULL REFERENCES credit_notes (service_receipt_id) ON DELETE CASCADE,
     line INTEGER NOT NULL CHECK (line >= 0),
     parent TEXT NOT NULL,
     request_id TEXT NOT NULL,
     original_line INTEGER NOT NULL CHECK (typeof(original_line) = 'integer' AND original_line >= 0),
     product_id TEXT NOT NULL CHECK (product_id <> ''),
     quantity REAL NOT NULL CHECK (typeof(quantity) IN ('integer', 'real') AND quantity > 0),
     PRIMARY KEY (credit_note, line)
   );
   CREATE INDEX credit_note_lines_parent ON credit_note_lines (parent, original_line);
   CREATE TRIGGER credit_note_lines_of AFTER INSERT ON credit_notes BEGIN
     INSERT INTO credit_note_lines (credit_note, line, parent, request_id, original_line, product_id, quantity)
       SELECT NEW.service_receipt_id, key, NEW.parent, NEW.request_id, json_extract(value, '$.originalLine'), json_extract(value, '$.productId'), json_extract(value, '$.quantity')
       FROM json_each(NEW.record, '$.lines');
   END;
   INSERT INTO credit_note_lines (credit_note, line, parent, request_id, original_line, product_id, quantity)
     SELECT c.service_receipt_id, l.key, c.parent, c.request_id, json_extract(l.value, '$.originalLine'), json_extract(l.value, '$.productId'), json_extract(l.value, '$.quantity')
     FROM credit_notes c, json_each(c.record, '$.lines') l;

   CREATE TRIGGER intents_checked BEFORE INSERT ON intents
     WHEN NEW.kind NOT IN ('receipt', 'credit-note') OR NEW.state NOT IN ('reserved', 'prepared', 'done', 'abandoned')
       OR julianday(NEW.created_at) IS NULL OR NEW.document_number = '' OR NEW.subject = ''
       OR (NEW.kind = 'credit-note' AND (NEW.parent IS NULL OR NEW.reservation IS NULL OR NOT json_valid(NEW.reservation)))
   BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: intents_checked'); END;
   CREATE TRIGGER intents_state_checked BEFORE UPDATE OF state ON intents
     WHEN NEW.state NOT IN ('reserved', 'prepared', 'done', 'abandoned')
   BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: intents_state_checked'); END;

   CREATE INDEX queue_items_receipt ON queue_items (json_extract(item, '$.serviceReceiptId'));`,
  // 5: the machine that started a submission, beside its pid (os.hostname()): a submission
  // carried in from another machine's ledger (`svc db import`) names where it ran. An older
  // svc's intents have none (null), and an older svc opening this database writes none.
  `ALTER TABLE intents ADD COLUMN host TEXT;`,
];

export const EMBEDDED_SCHEMA_VERSION = STEPS.length;

/** Whether the database is older than this svc's schema (read without taking the write lock). */
export function needsMigration(db: Database): boolean {
  return (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version < EMBEDDED_SCHEMA_VERSION;
}

/** Brings the database to this svc's schema (or `target`); call inside a write transaction (it checks again). */
export function migrateEmbedded(db: Database, target = EMBEDDED_SCHEMA_VERSION): void {
  const { user_version: current } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  if (current >= target) return; // A newer svc's database: it only ever adds.
  for (let version = current; version < target; version++) db.exec(STEPS[version] as string);
  db.exec(`PRAGMA user_version = ${target}`);
}
