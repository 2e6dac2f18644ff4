// The shared engine: the ledger on PostgreSQL, for a team on several machines. The same
// semantics as the embedded engine (src/store/embedded/sqlite.ts), now across machines: the
// check and the reservation of a credit note are one transaction holding the receipt's row
// lock (svc_receipt_locks … FOR UPDATE), one open intent per document is a partial unique
// index, preparing an intent is compare-and-set, and a record is written with its intent
// closed in one transaction. No client-side lock is involved.
import type { PoolClient } from 'pg';
import type { QueueItem } from '../../contract/returns.js';
import { CreditNoteRecord, ReceiptRecord, Rejection } from '../../contract/records.js';
import { AcceptedItems } from '../accepted-part.js';
import { redactDatabaseUrl } from '../database-url.js';
import { sameJson } from '../embedded/sqlite.js';
import { CreditNoteNumberTakenError, NumberTakenError, OverCreditError, SecondDocumentError, StoreError, type OverCreditedLine } from '../errors.js';
import { decodeRecord as decode } from '../decode.js';
import type { AcceptedPart, DocumentKind, PartNotKept, ImportResult, LedgerStore, NewIntent, ReceiptCredits, Reserved } from '../ledger.js';
import { INTENT_COLUMNS, intentOf, intentValues, newIntentValues, OPEN, type IntentRow } from '../intent-row.js';
import { migrate, POSTGRES_SCHEMA_VERSION, refuseNewer, schemaVersion } from './schema.js';
import { readDatabaseStatus } from './status.js';
import { databaseError, isDatabaseFailure, openPool } from './pool.js';
import type { Env } from './connection.js';
import { watchLockWait, type LockWaitOptions } from './lock-wait.js';


/** A credit note goes in with its issuer: its receipt's, when the ledger records the receipt (else unknown, NULL). */
/** The issuer's credit note (issued, or being submitted) of another request under a number: its receipt's issuer is the issuer. */
const CREDIT_NOTE_NUMBER_TAKEN = `WITH issuer AS (SELECT issuer FROM svc_receipts WHERE service_receipt_id = $3)
  SELECT cn.request_id FROM svc_credit_notes cn JOIN svc_receipts r ON r.service_receipt_id = cn.parent
   WHERE cn.document_number = $1 AND cn.request_id <> $2 AND r.issuer = (SELECT issuer FROM issuer)
  UNION ALL
  SELECT i.subject FROM svc_intents i JOIN svc_receipts r ON r.service_receipt_id = i.parent
   WHERE i.kind = 'credit-note' AND i.${OPEN} AND i.document_number = $1 AND i.subject <> $2 AND r.issuer = (SELECT issuer FROM issuer)
  LIMIT 1`;
const INSERT_CREDIT_NOTE = `INSERT INTO svc_credit_notes (service_receipt_id, parent, request_id, document_number, issued_at, record, issuer)
  VALUES ($1, $2, $3, $4, $5, $6, (SELECT issuer FROM svc_receipts WHERE service_receipt_id = $2))`;

/**
 * Of the receipt's lines a reservation takes ($2), those that issued credit notes and open
 * reservations together credit beyond what was bought, read from the line columns (schema
 * step 5). Only those: a line over-credited before the check existed holds back no other
 * line's credit. A receipt this ledger does not record has no lines here and is checked by
 * the caller alone.
 */
const OVER_CREDITED = `
  WITH taken AS (
    SELECT original_line, quantity FROM svc_credit_note_lines WHERE parent = $1
    UNION ALL
    SELECT (l ->> 'originalLine')::integer, (l ->> 'quantity')::numeric
    FROM svc_intents i, jsonb_array_elements(i.reservation -> 'lines') AS l
    WHERE i.kind = 'credit-note' AND i.parent = $1 AND i.state IN ('reserved', 'prepared')
  )
  SELECT r.line, r.product_id, r.quantity AS bought, sum(t.quantity) AS credited
  FROM taken t JOIN svc_receipt_lines r ON r.receipt = $1 AND r.line = t.original_line
  WHERE r.line = ANY($2::integer[])
  GROUP BY r.line, r.product_id, r.quantity
  HAVING sum(t.quantity) > r.quantity
  ORDER BY r.line`;

/** The unique indexes of one document per number and issuer (schema step 5). */
const ONE_PER_NUMBER = new Set(['svc_receipts_one_per_number', 'svc_credit_notes_one_per_number']);

/** Runs a document's insert; the database refusing a second document under its number becomes svc's error (exit 7). */
async function refuseSecondDocument(kind: DocumentKind, serviceReceiptId: string, documentNumber: string, insert: () => Promise<unknown>): Promise<void> {
  try {
    await insert();
  } catch (error) {
    const { code, constraint, detail } = error as { code?: unknown; constraint?: unknown; detail?: unknown };
    if (code !== '23505' || typeof constraint !== 'string' || !ONE_PER_NUMBER.has(constraint)) throw error;
    // "Key (issuer, document_number)=(ACME, R-1) already exists."
    const suffix = `, ${documentNumber}) already exists.`;
    const issuer = typeof detail === 'string' && detail.endsWith(suffix) ? detail.slice(detail.indexOf('=(') + 2, -suffix.length) : undefined;
    throw new SecondDocumentError(kind, serviceReceiptId, { issuer, documentNumber }, error);
  }
}

/** `env`: the factory's (what libpq would read); tests that open a ledger directly may leave it to the process's. */
export async function openPostgresLedger(url: string, opts: LockWaitOptions & { env?: Env } = {}): Promise<LedgerStore> {
  const pool = await openPool(url, { env: opts.env ?? process.env });
  const fail = (error: unknown): never => {
    throw databaseError(url, error);
  };

  /** A client for `work`, released however it ends (discarded when its connection broke); every failure is svc's error. */
  async function withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect().catch(fail);
    const waiting = watchLockWait(pool, client, opts);
    let failed: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      if (!isDatabaseFailure(error)) throw error;
      failed = error;
      throw databaseError(url, error, waiting.holder());
    } finally {
      waiting.stop();
      client.release(failed);
    }
  }
  async function transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const value = await work(client);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  try {
    await withClient(async (client) => {
      const version = await schemaVersion(client);
      refuseNewer(version, redactDatabaseUrl(url));
      if (version < POSTGRES_SCHEMA_VERSION) await migrate(client);
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw databaseError(url, error);
  }

  const one = async (client: PoolClient, sql: string, params: unknown[]) => {
    const { rows } = await client.query(sql, params);
    return rows[0] as IntentRow | undefined;
  };
  const acceptedPartOf = async (client: PoolClient, requestId: string): Promise<AcceptedPart | undefined> => {
    const { rows } = await client.query('SELECT lines, accepted_at, accepted_by FROM svc_accepted_parts WHERE request_id = $1', [requestId]);
    const row = rows[0] as { lines: unknown; accepted_at: Date; accepted_by: string | null } | undefined;
    return (
      row && {
        requestId,
        items: decode(AcceptedItems, JSON.stringify(row.lines), `the accepted part of request ${requestId}`),
        acceptedAt: row.accepted_at.toISOString(),
        acceptedBy: row.accepted_by ?? undefined,
      }
    );
  };
  /** A request's accepted part's lock, in the receipts' lock table (parents are service IDs, never prefixed so). */
  const partLock = (requestId: string) => `accepted-part:${requestId}`;
  const openOf = async (client: PoolClient, kind: DocumentKind, subject: string) => {
    const row = await one(client, `SELECT * FROM svc_intents WHERE kind = $1 AND subject = $2 AND ${OPEN}`, [kind, subject]);
    return row && intentOf(row);
  };
  const creditNotesOf = async (client: PoolClient, parent: string) =>
    (await client.query('SELECT record FROM svc_credit_notes WHERE parent = $1 ORDER BY seq', [parent])).rows.map((r: { record: unknown }) =>
      decode(CreditNoteRecord, r.record, `a credit note of receipt ${parent}`),
    );
  const creditsOf = async (client: PoolClient, parent: string): Promise<ReceiptCredits> => ({
    parent,
    issued: await creditNotesOf(client, parent),
    reserved: (await client.query(`SELECT * FROM svc_intents WHERE kind = 'credit-note' AND parent = $1 AND ${OPEN} ORDER BY seq`, [parent])).rows.map(
      (row: IntentRow) => intentOf(row),
    ),
  });

  /** Inserts the intent unless the subject has an open one; returns the one that is open now. */
  async function insertIntent(client: PoolClient, draft: NewIntent): Promise<Reserved> {
    const values = newIntentValues(draft);
    const row = await one(
      client,
      `INSERT INTO svc_intents (${INTENT_COLUMNS}) VALUES (${values.map((_, k) => `$${k + 1}`).join(', ')})
       ON CONFLICT (kind, subject) WHERE state IN ('reserved', 'prepared') DO NOTHING
       RETURNING *`,
      values,
    );
    if (row) return { intent: intentOf(row), created: true };
    const open = await openOf(client, draft.kind, draft.subject);
    if (!open) throw new StoreError(`the intent of ${draft.kind} ${draft.subject} was neither inserted nor found open`);
    return { intent: open, created: false };
  }

  /**
   * The receipt's row lock, held to the end of the transaction. Every writer that changes what
   * a receipt has credited takes it: the check-and-reserve, the record of a credit note (which
   * turns a reservation into an issued note), an import. So a check's reads, though separate
   * statements at READ COMMITTED, never straddle a commit that moves units from reserved to
   * issued: it would see neither.
   */
  const lockReceipt = async (client: PoolClient, parent: string) => {
    await client.query('INSERT INTO svc_receipt_locks (parent) VALUES ($1) ON CONFLICT DO NOTHING', [parent]);
    await client.query('SELECT parent FROM svc_receipt_locks WHERE parent = $1 FOR UPDATE', [parent]);
  };

  /** A receipt document's lock, by its number: in the same table as the receipts' (parents are service IDs, never prefixed so). */
  const documentLock = (documentNumber: string) => `receipt-document:${documentNumber}`;

  const getIntent = async (client: PoolClient, id: string) => {
    const row = await one(client, 'SELECT * FROM svc_intents WHERE id = $1', [id]);
    if (!row) throw new StoreError(`intent ${id} is not in the ledger`);
    return intentOf(row);
  };

  return {
    engine: 'postgres',
    openIntent: (kind, subject) => withClient((client) => openOf(client, kind, subject)),
    lastIntent: (kind, subject) =>
      withClient(async (client) => {
        const row = await one(client, 'SELECT * FROM svc_intents WHERE kind = $1 AND subject = $2 ORDER BY seq DESC LIMIT 1', [kind, subject]);
        return row && intentOf(row);
      }),

    reserveCreditNote: (parent, subject, decide) =>
      transaction(async (client) => {
        await lockReceipt(client, parent);
        await lockReceipt(client, partLock(subject));
        const open = await openOf(client, 'credit-note', subject);
        if (open) return { intent: open, created: false };
        const draft = decide(await creditsOf(client, parent), await acceptedPartOf(client, subject));
        const [taken] = (await client.query(CREDIT_NOTE_NUMBER_TAKEN, [draft.documentNumber, subject, parent])).rows as { request_id: string }[];
        if (taken) throw new CreditNoteNumberTakenError(draft.documentNumber, taken.request_id);
        const reserved = await insertIntent(client, draft);
        // The database checks again, on its columns, before the reservation commits.
        const lines = (draft.reservation?.lines ?? []).map((line) => line.originalLine);
        const over = (await client.query(OVER_CREDITED, [parent, lines])).rows as { line: number; product_id: string; bought: string; credited: string }[];
        if (over.length > 0) throw new OverCreditError(parent, subject, over.map((r): OverCreditedLine => ({ line: r.line, productId: r.product_id, bought: Number(r.bought), credited: Number(r.credited) })));
        return reserved;
      }),
    reserveReceipt: (draft) =>
      transaction(async (client) => {
        // The document's lock, which its record takes too: another machine's submission is
        // either still open here (resumed) or done (handed back), never finished unseen.
        await lockReceipt(client, documentLock(draft.subject));
        const done = await one(client, `SELECT * FROM svc_intents WHERE kind = 'receipt' AND subject = $1 AND state = 'done' ORDER BY seq DESC LIMIT 1`, [draft.subject]);
        if (done) return { intent: intentOf(done), created: false };
        const reserved = await insertIntent(client, draft);
        if (reserved.created && draft.issuer !== undefined) {
          const { rows } = await client.query('SELECT service_receipt_id FROM svc_receipts WHERE issuer = $1 AND document_number = $2 AND NOT kept_duplicate', [draft.issuer, draft.documentNumber]);
          const recorded = (rows[0] as { service_receipt_id: string } | undefined)?.service_receipt_id;
          if (recorded !== undefined) throw new NumberTakenError(draft.documentNumber, recorded);
        }
        return reserved;
      }),

    prepare: (id, prepared) =>
      transaction(async (client) => {
        await client.query(`UPDATE svc_intents SET state = 'prepared', idempotency_key = $2, body = $3, context = $4 WHERE id = $1 AND state = 'reserved'`, [
          id,
          prepared.idempotencyKey,
          prepared.body,
          JSON.stringify(prepared.context),
        ]);
        return getIntent(client, id);
      }),

    complete: (id, completion) =>
      transaction(async (client) => {
        const intent = await getIntent(client, id);
        const { record } = completion;
        if (completion.kind === 'receipt') {
          await lockReceipt(client, documentLock(intent.subject));
          await refuseSecondDocument('receipt', record.serviceReceiptId, completion.record.templateRequest.documentNumber, () =>
            client.query(
              'INSERT INTO svc_receipts (service_receipt_id, document_number, issued_at, record) VALUES ($1, $2, $3, $4) ON CONFLICT (service_receipt_id) DO NOTHING',
              [record.serviceReceiptId, completion.record.templateRequest.documentNumber, record.issuedAt, JSON.stringify(record)],
            ),
          );
        } else {
          if (intent.parent !== undefined) await lockReceipt(client, intent.parent);
          await refuseSecondDocument('credit-note', record.serviceReceiptId, completion.record.documentNumber, () =>
            client.query(`${INSERT_CREDIT_NOTE} ON CONFLICT (service_receipt_id) DO NOTHING`, [
              record.serviceReceiptId,
              intent.parent ?? null,
              completion.record.requestId,
              completion.record.documentNumber,
              record.issuedAt,
              JSON.stringify(record),
            ]),
          );
        }
        await client.query(`UPDATE svc_intents SET state = 'done', result = $2 WHERE id = $1`, [id, record.serviceReceiptId]);
      }),

    abandon: (id) =>
      transaction(async (client) => {
        await client.query(`UPDATE svc_intents SET state = 'abandoned' WHERE id = $1 AND ${OPEN}`, [id]);
      }),

    receipt: (serviceReceiptId) =>
      withClient(async (client) => {
        const { rows } = await client.query('SELECT record FROM svc_receipts WHERE service_receipt_id = $1', [serviceReceiptId]);
        const row = rows[0] as { record: unknown } | undefined;
        return row && decode(ReceiptRecord, row.record, `receipt ${serviceReceiptId}`);
      }),
    receipts: () =>
      withClient(async (client) =>
        (await client.query('SELECT record FROM svc_receipts ORDER BY issued_at DESC, seq DESC')).rows.map((r: { record: unknown }) => decode(ReceiptRecord, r.record, 'a receipt')),
      ),
    creditNotes: (parent) => withClient((client) => creditNotesOf(client, parent)),
    credits: (parent) => withClient((client) => creditsOf(client, parent)),

    rememberQueueItems: (items) =>
      items.length === 0
        ? Promise.resolve()
        : transaction(async (client) => {
            // One statement for the whole poll (not one per item): a queue of thousands is one round trip.
            await client.query(
              `INSERT INTO svc_queue_items (request_id, item, first_seen, last_seen)
               SELECT DISTINCT ON (r) r, i::jsonb, $3, $3 FROM unnest($1::text[], $2::text[]) AS t(r, i)
               ON CONFLICT (request_id) DO UPDATE SET item = excluded.item, last_seen = excluded.last_seen`,
              [items.map((item) => item.requestId), items.map((item) => JSON.stringify(item)), new Date().toISOString()],
            );
          }),
    queueItem: (requestId) =>
      withClient(async (client) => {
        const { rows } = await client.query('SELECT item FROM svc_queue_items WHERE request_id = $1', [requestId]);
        const row = rows[0] as { item: QueueItem } | undefined;
        return row?.item;
      }),
    keepRejection: (requestId, rejection) =>
      transaction(async (client) => {
        // The item's row locked: of two machines rejecting at once, the second reads the first's rejection.
        const { rows } = await client.query('SELECT rejection FROM svc_queue_items WHERE request_id = $1 FOR UPDATE', [requestId]);
        const row = rows[0] as { rejection: unknown } | undefined;
        if (row === undefined) return undefined;
        if (row.rejection) return { earlier: decode(Rejection, row.rejection, `the rejection of request ${requestId}`) };
        await client.query('UPDATE svc_queue_items SET rejection = $1 WHERE request_id = $2', [JSON.stringify(rejection), requestId]);
        return {};
      }),
    rejection: (requestId) =>
      withClient(async (client) => {
        const { rows } = await client.query('SELECT rejection FROM svc_queue_items WHERE request_id = $1', [requestId]);
        const stored = (rows[0] as { rejection: unknown } | undefined)?.rejection;
        return stored ? decode(Rejection, stored, `the rejection of request ${requestId}`) : undefined;
      }),

    keepAcceptedPart: (part, unchanged) =>
      transaction(async (client): Promise<PartNotKept | undefined> => {
        // The request's part lock, which a credit note's reservation takes too (after its receipt's).
        await lockReceipt(client, partLock(part.requestId));
        const credited = await one(
          client,
          `SELECT document_number FROM svc_credit_notes WHERE request_id = $1
           UNION ALL SELECT document_number FROM svc_intents WHERE kind = 'credit-note' AND subject = $1 AND ${OPEN} LIMIT 1`,
          [part.requestId],
        );
        if (credited) return { creditNote: String(credited['document_number']) };
        if (unchanged) {
          const now = await acceptedPartOf(client, part.requestId);
          if (!unchanged(now)) return { changed: now };
        }
        await client.query(
          `INSERT INTO svc_accepted_parts (request_id, lines, accepted_at, accepted_by) VALUES ($1, $2, $3, $4)
           ON CONFLICT (request_id) DO UPDATE SET lines = excluded.lines, accepted_at = excluded.accepted_at, accepted_by = excluded.accepted_by`,
          [part.requestId, JSON.stringify(part.items), part.acceptedAt, part.acceptedBy ?? null],
        );
        return undefined;
      }),
    acceptedPart: (requestId) => withClient((client) => acceptedPartOf(client, requestId)),
    importRecords: (records) =>
      transaction(async (client): Promise<ImportResult> => {
        const result: ImportResult = { inserted: 0, skipped: 0, conflicts: [] };
        const add = async (kind: DocumentKind, table: string, id: string, text: string, insert: () => Promise<{ rowCount: number | null }>) => {
          if (((await insert()).rowCount ?? 0) > 0) return void result.inserted++;
          const { rows } = await client.query(`SELECT record FROM ${table} WHERE service_receipt_id = $1`, [id]);
          // No row under the ID: another credit note of the same return request is there already.
          const there = rows[0] as { record: unknown } | undefined;
          if (there !== undefined && sameJson(JSON.stringify(there.record), text)) result.skipped++;
          else result.conflicts.push({ kind, serviceReceiptId: id });
        };
        for (const record of records.receipts) {
          const text = JSON.stringify(record);
          await add('receipt', 'svc_receipts', record.serviceReceiptId, text, () =>
            client.query(
              // Any conflict: the same ID, or another receipt under the same number and issuer.
              'INSERT INTO svc_receipts (service_receipt_id, document_number, issued_at, record) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
              [record.serviceReceiptId, record.templateRequest.documentNumber, record.issuedAt, text],
            ),
          );
        }
        // In one order, so that two imports at once cannot wait for each other.
        const parents = [...records.creditNotes.map((n) => n.parent), ...(records.intents ?? []).flatMap((i) => (i.parent === undefined ? [] : [i.parent]))];
        for (const parent of [...new Set(parents)].sort()) await lockReceipt(client, parent);
        for (const { parent, record } of records.creditNotes) {
          const text = JSON.stringify(record);
          await add('credit-note', 'svc_credit_notes', record.serviceReceiptId, text, () =>
            client.query(`${INSERT_CREDIT_NOTE} ON CONFLICT DO NOTHING`, [record.serviceReceiptId, parent, record.requestId, record.documentNumber, record.issuedAt, text]),
          );
        }
        if (records.intents !== undefined) Object.assign(result, { carried: 0, intentConflicts: [] });
        for (const intent of records.intents ?? []) {
          // A submission whose document the ledger already records was finished elsewhere.
          const recorded =
            intent.kind === 'receipt'
              ? await client.query('SELECT 1 FROM svc_receipts WHERE document_number = $1', [intent.subject])
              : await client.query('SELECT 1 FROM svc_credit_notes WHERE request_id = $1', [intent.subject]);
          if ((recorded.rowCount ?? 0) > 0) continue;
          const values = intentValues(intent);
          const inserted = await client.query(
            `INSERT INTO svc_intents (${INTENT_COLUMNS}) VALUES (${values.map((_, k) => `$${k + 1}`).join(', ')}) ON CONFLICT DO NOTHING`,
            values,
          );
          if ((inserted.rowCount ?? 0) > 0) result.carried = (result.carried ?? 0) + 1;
          else if (((await client.query('SELECT 1 FROM svc_intents WHERE id = $1', [intent.id])).rowCount ?? 0) === 0) {
            result.intentConflicts?.push({ kind: intent.kind, subject: intent.subject, documentNumber: intent.documentNumber });
          }
        }
        return result;
      }),

    openIntents: () =>
      withClient(async (client) => (await client.query(`SELECT * FROM svc_intents WHERE ${OPEN} ORDER BY seq`)).rows.map((row: IntentRow) => intentOf(row))),

    allRecords: () =>
      withClient(async (client) => ({
        receipts: (await client.query('SELECT record FROM svc_receipts ORDER BY seq')).rows.map((r: { record: unknown }) => decode(ReceiptRecord, r.record, 'a receipt')),
        creditNotes: (await client.query('SELECT parent, record FROM svc_credit_notes ORDER BY seq')).rows.map((r: { parent: string; record: unknown }) => ({
          parent: r.parent,
          record: decode(CreditNoteRecord, r.record, `a credit note of receipt ${r.parent}`),
        })),
      })),

    status: () => withClient((client) => readDatabaseStatus(client, url)),
    close: () => pool.end(),
  };
}

