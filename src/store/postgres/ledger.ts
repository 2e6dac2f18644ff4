// The shared engine: the ledger on PostgreSQL, for a team on several machines. The same
// semantics as the embedded engine (src/store/embedded/sqlite.ts), now across machines: the
// check and the reservation of a credit note are one transaction holding the receipt's row
// lock (svc_receipt_locks … FOR UPDATE), one open intent per document is a partial unique
// index, preparing an intent is compare-and-set, and a record is written with its intent
// closed in one transaction. No client-side lock is involved.
import type { PoolClient } from 'pg';
import type { QueueItem } from '../../contract/returns.js';
import { CreditNoteRecord } from '../../credit-notes/records.js';
import { Rejection } from '../../credit-notes/rejection.js';
import { ReceiptRecord } from '../../receipts/records.js';
import { redactDatabaseUrl } from '../database-url.js';
import { sameJson } from '../embedded/sqlite.js';
import { StoreError } from '../errors.js';
import { decodeRecord as decode } from '../decode.js';
import type { DocumentKind, ImportResult, LedgerStore, NewIntent, ReceiptCredits, Reserved, StoreStatus } from '../ledger.js';
import { INTENT_COLUMNS, intentOf, newIntentValues, OPEN, type IntentRow } from '../intent-row.js';
import { migrate, POSTGRES_SCHEMA_VERSION, schemaVersion } from './schema.js';
import { databaseError, isDatabaseFailure, openPool } from './pool.js';
import { watchLockWait, type LockWaitOptions } from './lock-wait.js';



export async function openPostgresLedger(url: string, opts: LockWaitOptions = {}): Promise<LedgerStore> {
  const pool = await openPool(url);
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
      if ((await schemaVersion(client)) < POSTGRES_SCHEMA_VERSION) await migrate(client);
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw databaseError(url, error);
  }

  const one = async (client: PoolClient, sql: string, params: unknown[]) => {
    const { rows } = await client.query(sql, params);
    return rows[0] as IntentRow | undefined;
  };
  const openOf = async (client: PoolClient, kind: DocumentKind, subject: string) => {
    const row = await one(client, `SELECT * FROM svc_intents WHERE kind = $1 AND subject = $2 AND ${OPEN}`, [kind, subject]);
    return row && intentOf(row);
  };
  const creditNotesOf = async (client: PoolClient, parent: string) =>
    (await client.query('SELECT record FROM svc_credit_notes WHERE parent = $1 ORDER BY seq', [parent])).rows.map((r: { record: string }) =>
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
        // The receipt's row lock: every check-and-reserve of this receipt, on any machine, one at a time.
        await client.query('INSERT INTO svc_receipt_locks (parent) VALUES ($1) ON CONFLICT DO NOTHING', [parent]);
        await client.query('SELECT parent FROM svc_receipt_locks WHERE parent = $1 FOR UPDATE', [parent]);
        const open = await openOf(client, 'credit-note', subject);
        if (open) return { intent: open, created: false };
        return insertIntent(client, decide(await creditsOf(client, parent)));
      }),
    reserveReceipt: (draft) => transaction((client) => insertIntent(client, draft)),

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
          await client.query(
            'INSERT INTO svc_receipts (service_receipt_id, document_number, issued_at, record) VALUES ($1, $2, $3, $4) ON CONFLICT (service_receipt_id) DO NOTHING',
            [record.serviceReceiptId, completion.record.templateRequest.documentNumber, record.issuedAt, JSON.stringify(record)],
          );
        } else {
          await client.query(
            'INSERT INTO svc_credit_notes (service_receipt_id, parent, request_id, document_number, issued_at, record) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (service_receipt_id) DO NOTHING',
            [record.serviceReceiptId, intent.parent ?? null, completion.record.requestId, completion.record.documentNumber, record.issuedAt, JSON.stringify(record)],
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
        const row = rows[0] as { record: string } | undefined;
        return row && decode(ReceiptRecord, row.record, `receipt ${serviceReceiptId}`);
      }),
    receipts: () =>
      withClient(async (client) =>
        (await client.query('SELECT record FROM svc_receipts ORDER BY issued_at DESC, seq DESC')).rows.map((r: { record: string }) => decode(ReceiptRecord, r.record, 'a receipt')),
      ),
    creditNotes: (parent) => withClient((client) => creditNotesOf(client, parent)),
    credits: (parent) => withClient((client) => creditsOf(client, parent)),

    rememberQueueItems: (items) =>
      items.length === 0
        ? Promise.resolve()
        : transaction(async (client) => {
            const now = new Date().toISOString();
            for (const item of items) {
              await client.query(
                `INSERT INTO svc_queue_items (request_id, item, first_seen, last_seen) VALUES ($1, $2, $3, $3)
                 ON CONFLICT (request_id) DO UPDATE SET item = excluded.item, last_seen = excluded.last_seen`,
                [item.requestId, JSON.stringify(item), now],
              );
            }
          }),
    queueItem: (requestId) =>
      withClient(async (client) => {
        const { rows } = await client.query('SELECT item FROM svc_queue_items WHERE request_id = $1', [requestId]);
        const row = rows[0] as { item: string } | undefined;
        return row && (JSON.parse(row.item) as QueueItem);
      }),
    keepRejection: (requestId, rejection) =>
      withClient(async (client) => {
        const { rowCount } = await client.query('UPDATE svc_queue_items SET rejection = $1 WHERE request_id = $2', [JSON.stringify(rejection), requestId]);
        return (rowCount ?? 0) > 0;
      }),
    rejection: (requestId) =>
      withClient(async (client) => {
        const { rows } = await client.query('SELECT rejection FROM svc_queue_items WHERE request_id = $1', [requestId]);
        const text = (rows[0] as { rejection: string | null } | undefined)?.rejection;
        return text ? decode(Rejection, text, `the rejection of request ${requestId}`) : undefined;
      }),

    importRecords: (records) =>
      transaction(async (client): Promise<ImportResult> => {
        const result: ImportResult = { inserted: 0, skipped: 0, conflicts: [] };
        const add = async (kind: DocumentKind, table: string, id: string, text: string, insert: () => Promise<{ rowCount: number | null }>) => {
          if (((await insert()).rowCount ?? 0) > 0) return void result.inserted++;
          const { rows } = await client.query(`SELECT record FROM ${table} WHERE service_receipt_id = $1`, [id]);
          if (sameJson((rows[0] as { record: string }).record, text)) result.skipped++;
          else result.conflicts.push({ kind, serviceReceiptId: id });
        };
        for (const record of records.receipts) {
          const text = JSON.stringify(record);
          await add('receipt', 'svc_receipts', record.serviceReceiptId, text, () =>
            client.query(
              'INSERT INTO svc_receipts (service_receipt_id, document_number, issued_at, record) VALUES ($1, $2, $3, $4) ON CONFLICT (service_receipt_id) DO NOTHING',
              [record.serviceReceiptId, record.templateRequest.documentNumber, record.issuedAt, text],
            ),
          );
        }
        for (const { parent, record } of records.creditNotes) {
          const text = JSON.stringify(record);
          await add('credit-note', 'svc_credit_notes', record.serviceReceiptId, text, () =>
            client.query(
              'INSERT INTO svc_credit_notes (service_receipt_id, parent, request_id, document_number, issued_at, record) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (service_receipt_id) DO NOTHING',
              [record.serviceReceiptId, parent, record.requestId, record.documentNumber, record.issuedAt, text],
            ),
          );
        }
        return result;
      }),

    allRecords: () =>
      withClient(async (client) => ({
        receipts: (await client.query('SELECT record FROM svc_receipts ORDER BY seq')).rows.map((r: { record: string }) => decode(ReceiptRecord, r.record, 'a receipt')),
        creditNotes: (await client.query('SELECT parent, record FROM svc_credit_notes ORDER BY seq')).rows.map((r: { parent: string; record: string }) => ({
          parent: r.parent,
          record: decode(CreditNoteRecord, r.record, `a credit note of receipt ${r.parent}`),
        })),
      })),

    status: () =>
      withClient(async (client): Promise<StoreStatus> => {
        const count = async (sql: string) => Number(((await client.query(sql)).rows[0] as { n: string }).n);
        return {
          engine: 'postgres',
          location: redactDatabaseUrl(url),
          schemaVersion: await schemaVersion(client),
          counts: {
            receipts: await count('SELECT count(*) AS n FROM svc_receipts'),
            creditNotes: await count('SELECT count(*) AS n FROM svc_credit_notes'),
            openIntents: await count(`SELECT count(*) AS n FROM svc_intents WHERE ${OPEN}`),
            queueItems: await count('SELECT count(*) AS n FROM svc_queue_items'),
            webhookDeliveries: await count('SELECT count(*) AS n FROM svc_webhook_deliveries'),
          },
        };
      }),
    close: () => pool.end(),
  };
}

