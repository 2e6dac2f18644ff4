// The embedded engine: one SQLite database per profile (<stateDir>/<profile>/ledger.db) in
// WAL mode with synchronous=FULL, so a commit is on disk before the call returns and a
// process killed at any instruction leaves every transaction whole or absent. Writers take
// the database's write lock at BEGIN (IMMEDIATE), so a check and the intent it allows are
// one step for every process on the machine; the lock is the operating system's, released
// when its holder dies, never taken over from a live (even stopped) one.
import type { QueueItem } from '../../contract/returns.js';
import { CreditNoteRecord, ReceiptRecord, Rejection } from '../../contract/records.js';
import { AcceptedItems } from '../accepted-part.js';
import { CreditNoteNumberTakenError, NumberTakenError, OverCreditError, SecondDocumentError, StoreError, type OverCreditedLine } from '../errors.js';
import { decodeRecord as decode } from '../decode.js';
import { notWritableError } from '../private-file.js';
import type { AcceptedPart, DocumentKind, PartNotKept, ImportResult, Intent, LedgerStore, NewIntent, ReceiptCredits, Reserved, StoreStatus } from '../ledger.js';
import { INTENT_COLUMNS, intentOf, intentValues, newIntentValues, OPEN, type IntentRow } from '../intent-row.js';
import { EMBEDDED_SCHEMA_VERSION, migrateEmbedded, needsMigration } from './schema.js';

import { committed, immediateTransaction, isBusy, isIoError, messageOf, openDatabase, retryIo, type Database, type SqliteOptions } from './database.js';

export { immediateTransaction, isBusy, isIoError, openDatabase, retryIo, type Database, type SqliteOptions };

/** A credit note goes in with its issuer: its receipt's, when the ledger records the receipt (else unknown, NULL). */
const INSERT_CREDIT_NOTE = `INSERT INTO credit_notes (service_receipt_id, parent, request_id, document_number, issued_at, record, issuer)
  VALUES (?1, ?2, ?3, ?4, ?5, ?6, (SELECT issuer FROM receipts WHERE service_receipt_id = ?2))`;

/**
 * As PostgreSQL's: of the receipt's lines a reservation takes (?2, a JSON array), those that
 * issued credit notes and open reservations credit beyond what was bought, in millionths (QTY_SCALE of the credit-note checks), since SQLite
 * adds fractional quantities as doubles.
 */
/** The issuer's credit note (issued, or being submitted) of another request under a number: its receipt's issuer is the issuer. */
const CREDIT_NOTE_NUMBER_TAKEN = `
  SELECT cn.request_id FROM credit_notes cn JOIN receipts r ON r.service_receipt_id = cn.parent
   WHERE cn.document_number = ?1 AND cn.request_id <> ?2 AND r.issuer = (SELECT issuer FROM receipts WHERE service_receipt_id = ?3)
  UNION ALL
  SELECT i.subject FROM intents i JOIN receipts r ON r.service_receipt_id = i.parent
   WHERE i.kind = 'credit-note' AND i.${OPEN} AND i.document_number = ?1 AND i.subject <> ?2 AND r.issuer = (SELECT issuer FROM receipts WHERE service_receipt_id = ?3)
  LIMIT 1`;

const OVER_CREDITED = `
  WITH taken AS (
    SELECT original_line, quantity FROM credit_note_lines WHERE parent = ?1
    UNION ALL
    SELECT json_extract(l.value, '$.originalLine'), json_extract(l.value, '$.quantity')
    FROM intents i, json_each(i.reservation, '$.lines') l
    WHERE i.kind = 'credit-note' AND i.parent = ?1 AND i.state IN ('reserved', 'prepared')
  )
  SELECT r.line, r.product_id, r.quantity AS bought, sum(round(t.quantity * 1000000)) / 1000000.0 AS credited
  FROM taken t JOIN receipt_lines r ON r.receipt = ?1 AND r.line = t.original_line
  WHERE r.line IN (SELECT value FROM json_each(?2))
  GROUP BY r.line, r.product_id, r.quantity
  HAVING sum(round(t.quantity * 1000000)) > round(r.quantity * 1000000)
  ORDER BY r.line`;

/**
 * A file SQLite cannot read as a database (SQLITE_NOTADB, SQLITE_CORRUPT) is damaged or not
 * svc's: what to do, and what is lost. svc never moves or deletes it itself: it may be the
 * only copy of submissions under way.
 */
function notDatabaseHint(path: string, error: unknown): string | undefined {
  if (!/file is not a database|database disk image is malformed|SQLITE_NOTADB|SQLITE_CORRUPT/i.test(messageOf(error))) return undefined;
  return [
    `this file is the profile's ledger (the receipts and credit notes this machine issued, submissions under way, kept copies of return requests); it is damaged or not svc's.`,
    `Move it aside (mv ${path} ${path}.damaged, and its -wal and -shm files if any) and run the command again: svc starts an empty ledger.`,
    'What only this file held is lost: the local receipt list and customers, submissions under way (check the service before issuing one again), accepted parts and rejection reasons;',
    'the service still holds the receipts and credit notes issued and the return requests it lists.',
  ].join(' ');
}

/** Runs a document's insert; the database refusing a second document under its number becomes svc's error (exit 7). */
function refuseSecondDocument(kind: DocumentKind, serviceReceiptId: string, documentNumber: string, insert: () => unknown): void {
  try {
    insert();
  } catch (error) {
    // "UNIQUE constraint failed: receipts.issuer, receipts.document_number"
    if (!/UNIQUE constraint failed: \w+\.issuer, \w+\.document_number/.test(messageOf(error))) throw error;
    throw new SecondDocumentError(kind, serviceReceiptId, { documentNumber }, error);
  }
}

export async function openSqliteLedger(path: string, opts: SqliteOptions = {}): Promise<LedgerStore> {
  const busyMs = opts.busyMs ?? 200;
  let db: Database;
  try {
    db = openDatabase(path, busyMs);
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON');
  } catch (error) {
    const hint = notDatabaseHint(path, error);
    // A read-only or another user's state directory is not a damaged ledger: said as what it is.
    throw (hint === undefined ? notWritableError('open the ledger', path) : undefined) ?? new StoreError(`cannot open the ledger ${path}: ${messageOf(error)}`, { cause: error, hint });
  }
  let waited = false;

  /**
   * Runs `work` inside BEGIN IMMEDIATE … COMMIT, waiting (without blocking the event loop) for
   * another writer. A write that is only a cache (`durable: false`: queue items as seen, which
   * the service still lists) commits with synchronous=NORMAL: no fsync of its own, whole or
   * absent after any crash, kept if the process dies (the WAL is in the OS's cache), on disk
   * with the next durable commit or checkpoint, and lost only if the machine stops before that.
   */
  async function write<T>(work: () => T, durable = true): Promise<T> {
    if (!durable) {
      db.exec('PRAGMA synchronous = NORMAL');
      try {
        return await write(work);
      } finally {
        db.exec('PRAGMA synchronous = FULL');
      }
    }
    for (;;) {
      try {
        db.exec('BEGIN IMMEDIATE');
        break;
      } catch (error) {
        if (!isBusy(error)) throw new StoreError(`cannot write the ledger ${path}: ${messageOf(error)}`, { cause: error });
        if (!waited) {
          waited = true;
          opts.onWait?.();
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    return committed(db, work);
  }

  if (needsMigration(db)) await write(() => migrateEmbedded(db));

  const maybeIntent = (row: IntentRow | undefined): Intent | undefined => row && intentOf(row);
  const getIntent = (id: string) => maybeIntent(db.prepare('SELECT * FROM intents WHERE id = ?').get(id) as IntentRow | undefined);
  const acceptedPartOf = (requestId: string): AcceptedPart | undefined => {
    const row = db.prepare('SELECT lines, accepted_at, accepted_by FROM accepted_parts WHERE request_id = ?').get(requestId) as
      | { lines: string; accepted_at: string; accepted_by: string | null }
      | undefined;
    return row && { requestId, items: decode(AcceptedItems, row.lines, `the accepted part of request ${requestId}`), acceptedAt: row.accepted_at, acceptedBy: row.accepted_by ?? undefined };
  };
  const openOf = (kind: DocumentKind, subject: string) =>
    maybeIntent(db.prepare(`SELECT * FROM intents WHERE kind = ? AND subject = ? AND ${OPEN}`).get(kind, subject) as IntentRow | undefined);

  function insertIntent(draft: NewIntent): Intent {
    const values = newIntentValues(draft);
    db.prepare(`INSERT INTO intents (${INTENT_COLUMNS}) VALUES (${values.map(() => '?').join(', ')})`).run(...values);
    const id = values[0] as string;
    return getIntent(id) as Intent;
  }

  const creditNotesOf = (parent: string): CreditNoteRecord[] =>
    (db.prepare('SELECT record FROM credit_notes WHERE parent = ? ORDER BY seq').all(parent) as { record: string }[]).map((r) =>
      decode(CreditNoteRecord, r.record, `a credit note of receipt ${parent}`),
    );

  const creditsOf = (parent: string): ReceiptCredits => ({
    parent,
    issued: creditNotesOf(parent),
    reserved: (db.prepare(`SELECT * FROM intents WHERE kind = 'credit-note' AND parent = ? AND ${OPEN} ORDER BY seq`).all(parent) as IntentRow[]).map(
      (row) => intentOf(row),
    ),
  });

  return {
    engine: 'sqlite',
    openIntent: async (kind, subject) => openOf(kind, subject),
    lastIntent: async (kind, subject) =>
      maybeIntent(db.prepare('SELECT * FROM intents WHERE kind = ? AND subject = ? ORDER BY seq DESC LIMIT 1').get(kind, subject) as IntentRow | undefined),

    reserveCreditNote: (parent, subject, decide) =>
      write((): Reserved => {
        const open = openOf('credit-note', subject);
        if (open) return { intent: open, created: false };
        const draft = decide(creditsOf(parent), acceptedPartOf(subject));
        const taken = db.prepare(CREDIT_NOTE_NUMBER_TAKEN).get(draft.documentNumber, subject, parent) as { request_id: string } | undefined;
        if (taken) throw new CreditNoteNumberTakenError(draft.documentNumber, taken.request_id);
        const intent = insertIntent(draft);
        // The database checks again, on its line columns, before the reservation commits.
        const lines = (draft.reservation?.lines ?? []).map((line) => line.originalLine);
        const over = db.prepare(OVER_CREDITED).all(parent, JSON.stringify(lines)) as { line: number; product_id: string; bought: number; credited: number }[];
        if (over.length > 0) throw new OverCreditError(parent, subject, over.map((r): OverCreditedLine => ({ line: r.line, productId: r.product_id, bought: r.bought, credited: r.credited })));
        return { intent, created: true };
      }),

    reserveReceipt: (draft) =>
      write((): Reserved => {
        const open = openOf(draft.kind, draft.subject);
        if (open) return { intent: open, created: false };
        // Finished by another process since the caller looked: handed back, never sent again.
        const done = maybeIntent(
          db.prepare(`SELECT * FROM intents WHERE kind = 'receipt' AND subject = ? AND state = 'done' ORDER BY seq DESC LIMIT 1`).get(draft.subject) as IntentRow | undefined,
        );
        if (done) return { intent: done, created: false };
        if (draft.issuer !== undefined) {
          const recorded = db.prepare('SELECT service_receipt_id FROM receipts WHERE issuer = ? AND document_number = ? AND kept_duplicate = 0').get(draft.issuer, draft.documentNumber) as
            | { service_receipt_id: string }
            | undefined;
          if (recorded !== undefined) throw new NumberTakenError(draft.documentNumber, recorded.service_receipt_id);
        }
        return { intent: insertIntent(draft), created: true };
      }),

    prepare: (id, prepared) =>
      write(() => {
        db.prepare(
          `UPDATE intents SET state = 'prepared', idempotency_key = ?, body = ?, context = ? WHERE id = ? AND state = 'reserved'`,
        ).run(prepared.idempotencyKey, prepared.body, JSON.stringify(prepared.context), id);
        const intent = getIntent(id);
        if (!intent) throw new StoreError(`intent ${id} is not in the ledger`);
        return intent;
      }),

    complete: (id, completion) =>
      write(() => {
        const intent = getIntent(id);
        if (!intent) throw new StoreError(`intent ${id} is not in the ledger`);
        const { record } = completion;
        // Recorded already (a re-run) is fine; another document under the same number is refused.
        if (completion.kind === 'receipt') {
          refuseSecondDocument('receipt', record.serviceReceiptId, completion.record.templateRequest.documentNumber, () =>
            db.prepare('INSERT INTO receipts (service_receipt_id, document_number, issued_at, record) VALUES (?, ?, ?, ?) ON CONFLICT (service_receipt_id) DO NOTHING').run(
              record.serviceReceiptId,
              completion.record.templateRequest.documentNumber,
              record.issuedAt,
              JSON.stringify(record),
            ),
          );
        } else {
          refuseSecondDocument('credit-note', record.serviceReceiptId, completion.record.documentNumber, () =>
            db.prepare(`${INSERT_CREDIT_NOTE} ON CONFLICT (service_receipt_id) DO NOTHING`).run(
              record.serviceReceiptId,
              intent.parent ?? null,
              completion.record.requestId,
              completion.record.documentNumber,
              record.issuedAt,
              JSON.stringify(record),
            ),
          );
        }
        db.prepare(`UPDATE intents SET state = 'done', result = ? WHERE id = ?`).run(record.serviceReceiptId, id);
      }),

    abandon: (id) =>
      write(() => {
        db.prepare(`UPDATE intents SET state = 'abandoned' WHERE id = ? AND ${OPEN}`).run(id);
      }),

    receipt: async (serviceReceiptId) => {
      const row = db.prepare('SELECT record FROM receipts WHERE service_receipt_id = ?').get(serviceReceiptId) as { record: string } | undefined;
      return row && decode(ReceiptRecord, row.record, `receipt ${serviceReceiptId}`);
    },
    receipts: async () =>
      (db.prepare('SELECT record FROM receipts ORDER BY issued_at DESC, seq DESC').all() as { record: string }[]).map((r) =>
        decode(ReceiptRecord, r.record, 'a receipt'),
      ),
    creditNotes: async (parent) => creditNotesOf(parent),
    credits: async (parent) => creditsOf(parent),

    rememberQueueItems: (items) =>
      items.length === 0
        ? Promise.resolve()
        : write(() => {
            const now = new Date().toISOString();
            const upsert = db.prepare(
              `INSERT INTO queue_items (request_id, item, first_seen, last_seen) VALUES (?, ?, ?, ?)
               ON CONFLICT (request_id) DO UPDATE SET item = excluded.item, last_seen = excluded.last_seen`,
            );
            for (const item of items) upsert.run(item.requestId, JSON.stringify(item), now, now);
          }, false),
    queueItem: async (requestId) => {
      const row = db.prepare('SELECT item FROM queue_items WHERE request_id = ?').get(requestId) as { item: string } | undefined;
      return row && (JSON.parse(row.item) as QueueItem);
    },
    keepRejection: (requestId, rejection) =>
      write(() => {
        const row = db.prepare('SELECT rejection FROM queue_items WHERE request_id = ?').get(requestId) as { rejection: string | null } | undefined;
        if (row === undefined) return undefined;
        if (row.rejection) return { earlier: decode(Rejection, row.rejection, `the rejection of request ${requestId}`) };
        db.prepare('UPDATE queue_items SET rejection = ? WHERE request_id = ?').run(JSON.stringify(rejection), requestId);
        return {};
      }),
    rejection: async (requestId) => {
      const row = db.prepare('SELECT rejection FROM queue_items WHERE request_id = ?').get(requestId) as { rejection: string | null } | undefined;
      return row?.rejection ? decode(Rejection, row.rejection, `the rejection of request ${requestId}`) : undefined;
    },

    keepAcceptedPart: (part, unchanged) =>
      write((): PartNotKept | undefined => {
        const credited = db
          .prepare(
            `SELECT document_number FROM credit_notes WHERE request_id = ?
             UNION ALL SELECT document_number FROM intents WHERE kind = 'credit-note' AND subject = ? AND ${OPEN} LIMIT 1`,
          )
          .get(part.requestId, part.requestId) as { document_number: string } | undefined;
        if (credited) return { creditNote: credited.document_number };
        if (unchanged && !unchanged(acceptedPartOf(part.requestId))) return { changed: acceptedPartOf(part.requestId) };
        db.prepare(
          `INSERT INTO accepted_parts (request_id, lines, accepted_at, accepted_by) VALUES (?, ?, ?, ?)
           ON CONFLICT (request_id) DO UPDATE SET lines = excluded.lines, accepted_at = excluded.accepted_at, accepted_by = excluded.accepted_by`,
        ).run(part.requestId, JSON.stringify(part.items), part.acceptedAt, part.acceptedBy ?? null);
        return undefined;
      }),
    acceptedPart: async (requestId) => acceptedPartOf(requestId),

    importRecords: (records) =>
      write((): ImportResult => {
        const result: ImportResult = { inserted: 0, skipped: 0, conflicts: [] };
        /** `insert` is false when another unique key (one credit note per request) holds it back: a conflict. */
        const add = (kind: DocumentKind, table: string, id: string, text: string, insert: () => boolean) => {
          const row = db.prepare(`SELECT record FROM ${table} WHERE service_receipt_id = ?`).get(id) as { record: string } | undefined;
          if (row === undefined) {
            if (insert() === false) result.conflicts.push({ kind, serviceReceiptId: id });
            else result.inserted++;
          } else if (sameJson(row.record, text)) result.skipped++;
          else result.conflicts.push({ kind, serviceReceiptId: id });
        };
        for (const record of records.receipts) {
          const text = JSON.stringify(record);
          add('receipt', 'receipts', record.serviceReceiptId, text, () =>
            // Held back (0 changes) by another receipt under the same number and issuer: a conflict.
            db.prepare('INSERT OR IGNORE INTO receipts (service_receipt_id, document_number, issued_at, record) VALUES (?, ?, ?, ?)').run(
              record.serviceReceiptId,
              record.templateRequest.documentNumber,
              record.issuedAt,
              text,
            ).changes > 0,
          );
        }
        for (const { parent, record } of records.creditNotes) {
          const text = JSON.stringify(record);
          add('credit-note', 'credit_notes', record.serviceReceiptId, text, () =>
            db.prepare(INSERT_CREDIT_NOTE.replace('INSERT', 'INSERT OR IGNORE')).run(record.serviceReceiptId, parent, record.requestId, record.documentNumber, record.issuedAt, text).changes > 0,
          );
        }
        if (records.intents !== undefined) Object.assign(result, { carried: 0, intentConflicts: [] });
        for (const intent of records.intents ?? []) {
          const recorded =
            intent.kind === 'receipt'
              ? db.prepare('SELECT 1 FROM receipts WHERE document_number = ?').get(intent.subject)
              : db.prepare('SELECT 1 FROM credit_notes WHERE request_id = ?').get(intent.subject);
          if (recorded !== undefined) continue;
          const values = intentValues(intent);
          if (db.prepare(`INSERT OR IGNORE INTO intents (${INTENT_COLUMNS}) VALUES (${values.map(() => '?').join(', ')})`).run(...values).changes > 0) result.carried = (result.carried ?? 0) + 1;
          else if (getIntent(intent.id) === undefined) result.intentConflicts?.push({ kind: intent.kind, subject: intent.subject, documentNumber: intent.documentNumber });
        }
        return result;
      }),

    openIntents: async () => (db.prepare(`SELECT * FROM intents WHERE ${OPEN} ORDER BY seq`).all() as IntentRow[]).map((row) => intentOf(row)),

    allRecords: async () => ({
      receipts: (db.prepare('SELECT record FROM receipts ORDER BY seq').all() as { record: string }[]).map((r) => decode(ReceiptRecord, r.record, 'a receipt')),
      creditNotes: (db.prepare('SELECT parent, record FROM credit_notes ORDER BY seq').all() as { parent: string; record: string }[]).map((r) => ({
        parent: r.parent,
        record: decode(CreditNoteRecord, r.record, `a credit note of receipt ${r.parent}`),
      })),
    }),

    status: async (): Promise<StoreStatus> => {
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      return {
        engine: 'sqlite',
        location: path,
        schemaVersion: EMBEDDED_SCHEMA_VERSION,
        counts: {
          receipts: count('SELECT count(*) AS n FROM receipts'),
          creditNotes: count('SELECT count(*) AS n FROM credit_notes'),
          openIntents: count(`SELECT count(*) AS n FROM intents WHERE ${OPEN}`),
          queueItems: count('SELECT count(*) AS n FROM queue_items'),
        },
      };
    },
    close: async () => db.close(),
  };
}


/** Equal JSON whatever the order of members: what another writer stored may order them differently. */
export function sameJson(a: string, b: string): boolean {
  return canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
