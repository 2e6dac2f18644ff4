// What the ledger's schema enforces by itself (PostgreSQL step 5, SQLite step 4), whatever a
// client does: rows that break an invariant refused when inserted directly, a second document
// under one number and issuer refused (svc's error: exit 7), the over-credit check on the line
// columns under the receipt's lock, and psql's own `\d` showing the types and constraints.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreditNoteRecord, ReceiptRecord } from '../../src/contract/records.js';
import { ExitCode } from '../../src/errors.js';
import { MINOR_EXPONENTS, toMinor } from '../../src/crypto/money.js';
import { openDatabase, openSqliteLedger } from '../../src/store/embedded/sqlite.js';
import { CreditNoteNumberTakenError, NotRecordedError, NumberTakenError, OverCreditError, SecondDocumentError } from '../../src/store/errors.js';
import type { LedgerStore, NewIntent } from '../../src/store/ledger.js';
import { openPostgresLedger } from '../../src/store/postgres/ledger.js';
import { postgresSkipReason, startPostgres, type PgServer } from '../postgres-server.js';

const skipPostgres = postgresSkipReason();
let server: PgServer | undefined;
let databases = 0;
beforeAll(async () => {
  if (!skipPostgres) server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.drop();
});

let dir: string;
let opened: LedgerStore[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-schema-'));
});
afterEach(async () => {
  for (const store of opened) await store.close();
  opened = [];
  await rm(dir, { recursive: true, force: true });
});

const HASH = 'a'.repeat(64);

interface Line {
  identifier: string;
  quantity: number;
  total: number;
}

export function receipt(id: string, documentNumber: string, opts: { issuer?: string; currency?: string; total?: number; products?: Line[] } = {}): ReceiptRecord {
  const issuedAt = '2026-11-20T10:00:00.000Z';
  return {
    version: 1,
    serviceReceiptId: id,
    issuedAt,
    templateRequest: {
      documentNumber,
      currency: opts.currency ?? 'EUR',
      totalAmount: opts.total ?? 4.06,
      products: (opts.products ?? [{ identifier: 'milk', quantity: 2, total: 2.38 }]).map((p) => ({ name: p.identifier, ...p, unitCode: 'H87' })),
    },
    template: { accountingSupplierParty: { partyIdentification: [{ id: { value: opts.issuer ?? 'company-1' } }] } },
    templateHash: HASH,
    finalHash: HASH,
    matchId: 'match-1',
    lookup: { by: 'email', display: 'a•••@example.com' },
    recipients: [{ recipientId: 'device-1', keyId: 'k' }],
    customer: {},
    submission: { serviceReceiptId: id, templateHash: HASH, createdAt: issuedAt },
  } as ReceiptRecord;
}

export function creditNote(id: string, requestId: string, documentNumber: string, quantity = 1, productId = 'milk'): CreditNoteRecord {
  return {
    serviceReceiptId: id,
    requestId,
    documentNumber,
    issuedAt: '2026-11-21T10:00:00.000Z',
    lines: [{ originalLine: 0, productId, quantity }],
    templateRequest: { documentNumber, currency: 'EUR', invoiceSubtotal: 1, totalAmount: 1.19 },
    templateHash: HASH,
    finalHash: HASH,
    matchId: 'match-1',
    recipients: [{ recipientId: 'device-1', keyId: 'k' }],
    submission: { serviceReceiptId: id, parentServiceReceiptId: 'sr-1', templateHash: HASH, createdAt: '2026-11-21T10:00:00.000Z' },
  } as CreditNoteRecord;
}

const creditIntent = (parent: string, requestId: string, quantity: number, productId = 'milk', originalLine = 0): NewIntent => ({
  kind: 'credit-note',
  subject: requestId,
  parent,
  documentNumber: `CN-${requestId}`,
  digest: 'd',
  reservation: {
    requestId,
    documentNumber: `CN-${requestId}`,
    lines: [{ originalLine, productId, quantity }],
    templateRequest: { documentNumber: `CN-${requestId}`, currency: 'EUR', invoiceSubtotal: 1, totalAmount: 1 },
  },
});

/** Direct SQL on the engine's database, as a person or another program would write it. */
interface Raw {
  run(sql: string, params?: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

interface Engine {
  open(): Promise<LedgerStore>;
  raw(): Promise<Raw>;
  /** The engine's table names. */
  t: { receipts: string; creditNotes: string; intents: string; creditNoteLines: string };
  /** What the engine says when a constraint refuses a row. */
  refused: RegExp;
}

const engines: [string, () => Promise<Engine>][] = [
  [
    'sqlite',
    async () => {
      const path = join(dir, 'ledger.db');
      return {
        open: async () => {
          const store = await openSqliteLedger(path);
          opened.push(store);
          return store;
        },
        raw: async () => {
          const db = openDatabase(path, 1000);
          db.exec('PRAGMA foreign_keys = ON');
          return { run: async (sql, params = []) => db.prepare(sql).run(...params), close: async () => db.close() };
        },
        t: { receipts: 'receipts', creditNotes: 'credit_notes', intents: 'intents', creditNoteLines: 'credit_note_lines' },
        refused: /CHECK constraint failed|UNIQUE constraint failed/,
      };
    },
  ],
  [
    'postgres',
    async () => {
      if (!server) throw new Error('no PostgreSQL server');
      const url = await server.database(`schema_${++databases}`);
      return {
        open: async () => {
          const store = await openPostgresLedger(url);
          opened.push(store);
          return store;
        },
        raw: async () => {
          const pool = new pg.Pool({ connectionString: url, max: 1 });
          const numbered = (sql: string) => sql.replace(/\?(\d+)/g, '$$$1');
          return { run: (sql, params = []) => pool.query(numbered(sql), params), close: () => pool.end() };
        },
        t: { receipts: 'svc_receipts', creditNotes: 'svc_credit_notes', intents: 'svc_intents', creditNoteLines: 'svc_credit_note_lines' },
        refused: /violates check constraint|duplicate key value violates unique constraint/,
      };
    },
  ],
];

describe.each(engines)('%s engine', (name, make) => {
  let engine: Engine;
  beforeEach(async (ctx) => {
    if (name === 'postgres' && skipPostgres) return ctx.skip(skipPostgres);
    engine = await make();
  });

  describe('rows inserted directly that break an invariant are refused', () => {
    const insertReceipt = (raw: Raw, record: ReceiptRecord, issuedAt = '2026-11-20T10:00:00.000Z', id = record.serviceReceiptId) =>
      raw.run(`INSERT INTO ${engine.t.receipts} (service_receipt_id, document_number, issued_at, record) VALUES (?1, ?2, ?3, ?4)`, [
        id,
        record.templateRequest.documentNumber,
        issuedAt,
        JSON.stringify(record),
      ]);

    it('a currency that is not three capitals, a negative total, a product line of no quantity', async () => {
      await engine.open();
      const raw = await engine.raw();
      try {
        await insertReceipt(raw, receipt('sr-ok', 'R-OK'));
        await expect(insertReceipt(raw, receipt('sr-cur', 'R-CUR', { currency: 'eur' }))).rejects.toThrow(engine.refused);
        await expect(insertReceipt(raw, receipt('sr-neg', 'R-NEG', { total: -1 }))).rejects.toThrow(engine.refused);
        await expect(insertReceipt(raw, receipt('sr-qty', 'R-QTY', { products: [{ identifier: 'milk', quantity: 0, total: 0 }] }))).rejects.toThrow(engine.refused);
        // A record under another ID than its row's.
        await expect(insertReceipt(raw, receipt('sr-b', 'R-A'), undefined, 'sr-a')).rejects.toThrow(engine.refused);
      } finally {
        await raw.close();
      }
    });

    it('a time that is not a time, a credit note line of no quantity, an intent in no known state', async () => {
      await engine.open();
      const raw = await engine.raw();
      try {
        await expect(insertReceipt(raw, receipt('sr-t', 'R-T'), 'not a time')).rejects.toThrow();
        const note = creditNote('cn-0', 'req-0', 'CN-0', 0);
        await expect(
          raw.run(`INSERT INTO ${engine.t.creditNotes} (service_receipt_id, parent, request_id, document_number, issued_at, record) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`, [
            note.serviceReceiptId, 'sr-1', note.requestId, note.documentNumber, note.issuedAt, JSON.stringify(note),
          ]),
        ).rejects.toThrow(engine.refused);
        await expect(
          raw.run(`INSERT INTO ${engine.t.intents} (id, kind, subject, document_number, digest, state, created_at) VALUES ('i-1', 'receipt', 'R-1', 'R-1', 'd', 'lost', '2026-11-20T10:00:00.000Z')`),
        ).rejects.toThrow(engine.refused);
      } finally {
        await raw.close();
      }
    });

    it('a second receipt under one number and issuer', async () => {
      await engine.open();
      const raw = await engine.raw();
      try {
        await insertReceipt(raw, receipt('sr-1', 'R-1'));
        await expect(insertReceipt(raw, receipt('sr-2', 'R-1'))).rejects.toThrow(engine.refused);
        // Another company's document may carry the same number.
        await insertReceipt(raw, receipt('sr-3', 'R-1', { issuer: 'company-2' }));
      } finally {
        await raw.close();
      }
    });
  });

  describe('a second document under one number', () => {
    it('a receipt completed under a number its issuer already used is refused: exit 7, named, the intent left open', async () => {
      const ledger = await engine.open();
      await ledger.importRecords({ receipts: [receipt('sr-1', 'R-1')], creditNotes: [] });
      const { intent } = await ledger.reserveReceipt({ kind: 'receipt', subject: 'R-1', documentNumber: 'R-1', digest: 'd' } as NewIntent);
      const refusal = await ledger.complete(intent.id, { kind: 'receipt', record: receipt('sr-9', 'R-1') }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(SecondDocumentError);
      expect((refusal as SecondDocumentError).exitCode).toBe(ExitCode.conflict);
      expect((refusal as Error).message).toMatch(/already holds another receipt under document number R-1.*refuses a second receipt under one number/);
      expect(await ledger.receipt('sr-9')).toBeUndefined();
      expect((await ledger.openIntent('receipt', 'R-1'))?.id).toBe(intent.id);
      // Completing the receipt already recorded (a re-run) stays harmless.
      await ledger.complete(intent.id, { kind: 'receipt', record: receipt('sr-1', 'R-1') });
    });

    it('svc\'s error for it, when the service had issued the document: exit 7 with the refusal\'s own hint (running it again cannot record it)', () => {
      const refusal = new SecondDocumentError('receipt', 'sr-9', { documentNumber: 'R-1', issuer: 'company-1' });
      const error = new NotRecordedError(`receipt R-1 was issued as sr-9, but it could not be recorded: ${refusal.message}`, { hint: 'run the same command again', cause: refusal });
      expect(error.exitCode).toBe(ExitCode.conflict);
      expect(error.message).toBe(
        'receipt R-1 was issued as sr-9, but it could not be recorded: the ledger already holds another receipt under document number R-1 of issuer company-1: the database refuses a second receipt under one number',
      );
      expect(error.hint).toBe(refusal.hint);
    });

    it('a receipt about to be sent under a number its issuer\'s recorded receipt has (imported, no intent) is refused before sending; another issuer\'s is not', async () => {
      const ledger = await engine.open();
      await ledger.importRecords({ receipts: [receipt('sr-1', 'R-1')], creditNotes: [] });
      const draft = { kind: 'receipt', subject: 'R-1', documentNumber: 'R-1', digest: 'd' } as const;
      const refusal = await ledger.reserveReceipt({ ...draft, issuer: 'company-1' }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(NumberTakenError);
      expect((refusal as NumberTakenError).exitCode).toBe(ExitCode.conflict);
      expect((refusal as Error).message).toBe('receipt R-1 is recorded already, as sr-1 (issued on another machine, or imported): nothing was sent');
      expect(await ledger.openIntent('receipt', 'R-1')).toBeUndefined();
      expect((await ledger.reserveReceipt({ ...draft, issuer: 'company-2' })).created).toBe(true);
    });

    it('a credit note under a number its receipt\'s issuer already used is refused; an import reports it as a conflict', async () => {
      const ledger = await engine.open();
      await ledger.importRecords({ receipts: [receipt('sr-1', 'R-1'), receipt('sr-2', 'R-2')], creditNotes: [] });
      const { intent } = await ledger.reserveCreditNote('sr-2', 'req-2', () => ({ ...creditIntent('sr-2', 'req-2', 1), documentNumber: 'CN-1' }));
      // Meanwhile another machine's CN-1 of the same issuer is imported: the record is refused.
      await ledger.importRecords({ receipts: [], creditNotes: [{ parent: 'sr-1', record: creditNote('cn-1', 'req-1', 'CN-1') }] });
      await expect(ledger.complete(intent.id, { kind: 'credit-note', record: creditNote('cn-2', 'req-2', 'CN-1') })).rejects.toThrow(SecondDocumentError);
      // A reservation under that number is refused before anything is sent (exit 2).
      const taken = await ledger.reserveCreditNote('sr-2', 'req-4', () => ({ ...creditIntent('sr-2', 'req-4', 1), documentNumber: 'CN-1' })).catch((error: unknown) => error);
      expect(taken).toBeInstanceOf(CreditNoteNumberTakenError);
      expect((taken as CreditNoteNumberTakenError).exitCode).toBe(ExitCode.usage);
      expect(await ledger.importRecords({ receipts: [receipt('sr-8', 'R-1')], creditNotes: [{ parent: 'sr-2', record: creditNote('cn-3', 'req-3', 'CN-1') }] })).toEqual({
        inserted: 0,
        skipped: 0,
        conflicts: [
          { kind: 'receipt', serviceReceiptId: 'sr-8' },
          { kind: 'credit-note', serviceReceiptId: 'cn-3' },
        ],
      });
    });
  });

  describe('the over-credit check on the line columns', () => {
    it('a reservation that would credit a line beyond what was bought is refused whatever the caller decided; nothing is reserved', async () => {
      const ledger = await engine.open();
      await ledger.importRecords({ receipts: [receipt('sr-1', 'R-1')], creditNotes: [{ parent: 'sr-1', record: creditNote('cn-1', 'req-1', 'CN-1', 1) }] });
      await ledger.reserveCreditNote('sr-1', 'req-2', () => creditIntent('sr-1', 'req-2', 1));
      // A caller whose own check missed the issued note and the reservation: 3 milk of 2.
      const refusal = await ledger.reserveCreditNote('sr-1', 'req-3', () => creditIntent('sr-1', 'req-3', 1)).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(OverCreditError);
      expect((refusal as OverCreditError).exitCode).toBe(ExitCode.conflict);
      expect((refusal as Error).message).toContain('line 1 (milk) 3 of 2');
      expect((await ledger.credits('sr-1')).reserved.map((i) => i.subject)).toEqual(['req-2']);
    });

    it('a line credited beyond what was bought before the check existed holds back no other line', async () => {
      const ledger = await engine.open();
      const products = [{ identifier: 'milk', quantity: 2, total: 2.38 }, { identifier: 'bread', quantity: 1, total: 1.68 }];
      // 3 milk of 2, as the race of issue 23 left it on a ledger.
      await ledger.importRecords({ receipts: [receipt('sr-1', 'R-1', { products })], creditNotes: [{ parent: 'sr-1', record: creditNote('cn-1', 'req-1', 'CN-1', 3) }] });
      await ledger.reserveCreditNote('sr-1', 'req-2', () => creditIntent('sr-1', 'req-2', 1, 'bread', 1));
      await expect(ledger.reserveCreditNote('sr-1', 'req-3', () => creditIntent('sr-1', 'req-3', 1))).rejects.toThrow('line 1 (milk) 4 of 2');
    });

    it('fractional quantities add up exactly (0.1 + 0.2 of 0.3 kg is not over)', async () => {
      const ledger = await engine.open();
      await ledger.importRecords({ receipts: [receipt('sr-1', 'R-1', { products: [{ identifier: 'cheese', quantity: 0.3, total: 3 }] })], creditNotes: [] });
      await ledger.reserveCreditNote('sr-1', 'req-1', () => creditIntent('sr-1', 'req-1', 0.1, 'cheese'));
      await ledger.reserveCreditNote('sr-1', 'req-2', () => creditIntent('sr-1', 'req-2', 0.2, 'cheese'));
      await expect(ledger.reserveCreditNote('sr-1', 'req-3', () => creditIntent('sr-1', 'req-3', 0.000001, 'cheese'))).rejects.toThrow(OverCreditError);
    });
  });
});

describe.skipIf(skipPostgres !== undefined)('PostgreSQL as its own tools show it', () => {
  it('the amount columns convert as svc does (svc_minor_units equals toMinor for every exponent, halves away from zero)', async () => {
    const url = await (server as PgServer).database('minor_units');
    await (await openPostgresLedger(url)).close();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      for (const currency of ['EUR', ...Object.keys(MINOR_EXPONENTS)]) {
        for (const amount of [0, 1, 1.005, 0.015, 2.675, 123.4565, 1200, 99999.99995]) {
          const { rows } = await pool.query('SELECT svc_minor_units($1::numeric, $2) AS minor', [String(amount), currency]);
          expect(Number((rows[0] as { minor: string }).minor), `${amount} ${currency}`).toBe(toMinor(amount, currency));
        }
      }
    } finally {
      await pool.end();
    }
  });

  it('psql \\d: timestamptz and jsonb columns, amounts in columns, the CHECK constraints and the one-per-number index', async () => {
    const pgServer = server as PgServer;
    const url = await pgServer.database('psql_d');
    await (await openPostgresLedger(url)).close();
    const receipts = pgServer.psql('psql_d', '\\d svc_receipts');
    expect(receipts).toMatch(/issued_at\s*\|\s*timestamp with time zone/);
    expect(receipts).toMatch(/record\s*\|\s*jsonb/);
    expect(receipts).toMatch(/total_minor\s*\|\s*bigint\s*\|\s*\|\s*not null\s*\|\s*generated always as/);
    expect(receipts).toMatch(/"svc_receipts_currency" CHECK \(currency ~ '\^\[A-Z\]\{3\}\$'::text\)/);
    expect(receipts).toMatch(/"svc_receipts_total" CHECK \(total_minor >= 0\)/);
    expect(receipts).toMatch(/"svc_receipts_one_per_number" UNIQUE, btree \(issuer, document_number\) WHERE NOT kept_duplicate/);
    expect(receipts).toMatch(/"svc_receipts_listed" btree \(issued_at DESC, seq DESC\)/);
    const lines = pgServer.psql('psql_d', '\\d svc_credit_note_lines');
    expect(lines).toMatch(/quantity\s*\|\s*numeric/);
    expect(lines).toMatch(/CHECK \(quantity > 0::numeric\)/);
    expect(pgServer.psql('psql_d', '\\d svc_intents')).toMatch(/"svc_intents_state" CHECK \(state = ANY \(ARRAY\['reserved'::text, 'prepared'::text, 'done'::text, 'abandoned'::text\]\)\)/);
    expect(pgServer.psql('psql_d', '\\d svc_queue_items')).toMatch(/"svc_queue_items_receipt" btree \(service_receipt_id\)/);
  });
});

describe('a database filled at the previous step is carried, row by row', () => {
  // Each table as the previous step had it: two receipts under one number (kept, marked), a
  // JPY total and a 1.005 EUR one (rounded half away from zero), a credit note, an open
  // reservation, a done receipt intent, a queue item with its rejection, journal deliveries.
  const receipts = [
    receipt('sr-1', 'R-1', { products: [{ identifier: 'milk', quantity: 2, total: 2.38 }, { identifier: 'cheese', quantity: 0.25, total: 1.68 }] }),
    receipt('sr-2', 'R-2', { currency: 'JPY', total: 1200, products: [{ identifier: 'tea', quantity: 3, total: 1200 }] }),
    receipt('sr-3', 'R-1'),
    receipt('sr-4', 'R-4', { total: 1.005 }),
  ];
  const note = creditNote('cn-1', 'req-1', 'CN-1', 1);
  const reservation = creditIntent('sr-1', 'req-2', 0.25, 'cheese', 1).reservation;
  const item = { requestId: 'req-1', serviceReceiptId: 'sr-1', status: 'PENDING', createdAt: '2026-11-21T09:00:00.000Z', encryptedSymmetricKey: 'k', encryptedCreditNoteInitiationRequest: 'e' };
  const rejection = { reason: 'worn', rejectedAt: '2026-11-22T10:00:00.000Z' };
  const context = { template: { a: 1 }, recipients: [] };
  const rows = {
    receipts: receipts.map((r) => [r.serviceReceiptId, r.templateRequest.documentNumber, r.issuedAt, JSON.stringify(r)]),
    note: [note.serviceReceiptId, 'sr-1', note.requestId, note.documentNumber, note.issuedAt, JSON.stringify(note)],
    intents: [
      ['i-open', 'credit-note', 'req-2', 'sr-1', 'CN-req-2', 'd2', 'reserved', '2026-11-22T08:00:00.123Z', 42, JSON.stringify(reservation), null, null, null, null],
      ['i-done', 'receipt', 'R-4', null, 'R-4', 'd4', 'done', '2026-11-20T09:59:00.000Z', 43, null, 'key-4', '{"matchId":"m"}', JSON.stringify(context), 'sr-4'],
    ],
    queue: ['req-1', JSON.stringify(item), '2026-11-21T09:00:01.000Z', '2026-11-22T09:00:01.000Z', JSON.stringify(rejection)],
  };
  const intentColumns = 'id, kind, subject, parent, document_number, digest, state, created_at, pid, reservation, idempotency_key, body, context, result';

  async function checkLedger(ledger: LedgerStore): Promise<void> {
    expect((await ledger.allRecords()).receipts).toEqual(receipts);
    expect((await ledger.allRecords()).creditNotes).toEqual([{ parent: 'sr-1', record: note }]);
    expect(await ledger.openIntents()).toEqual([
      // Written before intents named their machine: read, with no machine.
      expect.objectContaining({ id: 'i-open', kind: 'credit-note', subject: 'req-2', parent: 'sr-1', state: 'reserved', createdAt: '2026-11-22T08:00:00.123Z', pid: 42, host: undefined, reservation }),
    ]);
    expect(await ledger.lastIntent('receipt', 'R-4')).toEqual(
      expect.objectContaining({ id: 'i-done', state: 'done', createdAt: '2026-11-20T09:59:00.000Z', idempotencyKey: 'key-4', body: '{"matchId":"m"}', context, result: 'sr-4' }),
    );
    expect(await ledger.queueItem('req-1')).toEqual(item);
    expect(await ledger.rejection('req-1')).toEqual(rejection);
    // The kept duplicate does not stop the next check: 1 milk more of 2 is fine, 2 more is not.
    await ledger.reserveCreditNote('sr-1', 'req-5', () => creditIntent('sr-1', 'req-5', 1));
    await expect(ledger.reserveCreditNote('sr-1', 'req-6', () => creditIntent('sr-1', 'req-6', 1))).rejects.toThrow(OverCreditError);
  }

  it.skipIf(skipPostgres !== undefined)('PostgreSQL at step 4: types cast, columns computed, lines expanded, duplicates marked, every row read back equal', async () => {
    const url = await (server as PgServer).database('carried');
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const client = await pool.connect();
      try {
        const { migrate } = await import('../../src/store/postgres/schema.js');
        await migrate(client, 4);
        for (const row of rows.receipts) await client.query('INSERT INTO svc_receipts (service_receipt_id, document_number, issued_at, record) VALUES ($1, $2, $3, $4)', row);
        await client.query('INSERT INTO svc_credit_notes (service_receipt_id, parent, request_id, document_number, issued_at, record) VALUES ($1, $2, $3, $4, $5, $6)', rows.note);
        for (const row of rows.intents) await client.query(`INSERT INTO svc_intents (${intentColumns}) VALUES (${row.map((_, k) => `$${k + 1}`).join(', ')})`, row);
        await client.query('INSERT INTO svc_queue_items (request_id, item, first_seen, last_seen, rejection) VALUES ($1, $2, $3, $4, $5)', rows.queue);
        // The journal as listeners wrote it: received_at from the clock, processed_at from now()::text.
        await client.query(`INSERT INTO svc_webhook_deliveries (id, received_at, event, headers, body, processed_at, ok) VALUES ('d-1', '2026-11-22T10:00:00.000Z', 'RETURN_REQUESTED', '{"x-a":"1"}', '\\x7b7d', now()::text, true), ('d-2', '2026-11-22T10:00:01.000Z', null, '{}', '\\x7b7d', null, null)`);
      } finally {
        client.release();
      }
      const ledger = await openPostgresLedger(url);
      opened.push(ledger);
      const types = await pool.query(`SELECT table_name || '.' || column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name LIKE 'svc_%' AND column_name IN ('issued_at', 'record', 'created_at', 'reservation', 'context', 'item', 'rejection', 'first_seen', 'last_seen', 'received_at', 'processed_at', 'headers', 'body') ORDER BY 1`);
      expect(Object.fromEntries(types.rows.map((r: { c: string; t: string }) => [r.c, r.t]))).toEqual({
        'svc_credit_notes.issued_at': 'timestamp with time zone',
        'svc_credit_notes.record': 'jsonb',
        'svc_intents.body': 'text',
        'svc_intents.context': 'jsonb',
        'svc_intents.created_at': 'timestamp with time zone',
        'svc_intents.reservation': 'jsonb',
        'svc_queue_items.first_seen': 'timestamp with time zone',
        'svc_queue_items.item': 'jsonb',
        'svc_queue_items.last_seen': 'timestamp with time zone',
        'svc_queue_items.rejection': 'jsonb',
        'svc_receipts.issued_at': 'timestamp with time zone',
        'svc_receipts.record': 'jsonb',
        'svc_webhook_deliveries.body': 'bytea',
        'svc_webhook_deliveries.headers': 'jsonb',
        'svc_webhook_deliveries.processed_at': 'timestamp with time zone',
        'svc_webhook_deliveries.received_at': 'timestamp with time zone',
      });
      const columns = await pool.query('SELECT service_receipt_id, issuer, currency, total_minor, kept_duplicate, issued_at FROM svc_receipts ORDER BY seq');
      expect(columns.rows).toEqual([
        { service_receipt_id: 'sr-1', issuer: 'company-1', currency: 'EUR', total_minor: '406', kept_duplicate: false, issued_at: new Date('2026-11-20T10:00:00.000Z') },
        { service_receipt_id: 'sr-2', issuer: 'company-1', currency: 'JPY', total_minor: '1200', kept_duplicate: false, issued_at: new Date('2026-11-20T10:00:00.000Z') },
        { service_receipt_id: 'sr-3', issuer: 'company-1', currency: 'EUR', total_minor: '406', kept_duplicate: true, issued_at: new Date('2026-11-20T10:00:00.000Z') },
        { service_receipt_id: 'sr-4', issuer: 'company-1', currency: 'EUR', total_minor: '101', kept_duplicate: false, issued_at: new Date('2026-11-20T10:00:00.000Z') },
      ]);
      expect((await pool.query('SELECT receipt, line, product_id, quantity, total_minor FROM svc_receipt_lines ORDER BY receipt, line')).rows).toEqual([
        { receipt: 'sr-1', line: 0, product_id: 'milk', quantity: '2', total_minor: '238' },
        { receipt: 'sr-1', line: 1, product_id: 'cheese', quantity: '0.25', total_minor: '168' },
        { receipt: 'sr-2', line: 0, product_id: 'tea', quantity: '3', total_minor: '1200' },
        { receipt: 'sr-3', line: 0, product_id: 'milk', quantity: '2', total_minor: '238' },
        { receipt: 'sr-4', line: 0, product_id: 'milk', quantity: '2', total_minor: '238' },
      ]);
      expect((await pool.query('SELECT c.issuer, c.currency, c.total_minor, l.original_line, l.product_id, l.quantity FROM svc_credit_notes c JOIN svc_credit_note_lines l ON l.credit_note = c.service_receipt_id')).rows).toEqual([
        { issuer: 'company-1', currency: 'EUR', total_minor: '119', original_line: 0, product_id: 'milk', quantity: '1' },
      ]);
      const journal = await pool.query('SELECT id, received_at, processed_at IS NOT NULL AS processed, headers FROM svc_webhook_deliveries ORDER BY id');
      expect(journal.rows).toEqual([
        { id: 'd-1', received_at: new Date('2026-11-22T10:00:00.000Z'), processed: true, headers: { 'x-a': '1' } },
        { id: 'd-2', received_at: new Date('2026-11-22T10:00:01.000Z'), processed: false, headers: {} },
      ]);
      await checkLedger(ledger);
    } finally {
      await pool.end();
    }
  });

  it('SQLite at step 3: lines expanded, issuers computed, duplicates marked, every row read back equal', async () => {
    const path = join(dir, 'ledger.db');
    const db = openDatabase(path, 1000);
    const { migrateEmbedded } = await import('../../src/store/embedded/schema.js');
    migrateEmbedded(db, 3);
    for (const row of rows.receipts) db.prepare('INSERT INTO receipts (service_receipt_id, document_number, issued_at, record) VALUES (?, ?, ?, ?)').run(...row);
    db.prepare('INSERT INTO credit_notes (service_receipt_id, parent, request_id, document_number, issued_at, record) VALUES (?, ?, ?, ?, ?, ?)').run(...rows.note);
    for (const row of rows.intents) db.prepare(`INSERT INTO intents (${intentColumns}) VALUES (${row.map(() => '?').join(', ')})`).run(...row);
    db.prepare('INSERT INTO queue_items (request_id, item, first_seen, last_seen, rejection) VALUES (?, ?, ?, ?, ?)').run(...rows.queue);
    db.close();
    const ledger = await openSqliteLedger(path);
    opened.push(ledger);
    const check = openDatabase(path, 1000);
    try {
      expect(check.prepare('SELECT service_receipt_id, issuer, kept_duplicate FROM receipts ORDER BY seq').all()).toEqual([
        { service_receipt_id: 'sr-1', issuer: 'company-1', kept_duplicate: 0 },
        { service_receipt_id: 'sr-2', issuer: 'company-1', kept_duplicate: 0 },
        { service_receipt_id: 'sr-3', issuer: 'company-1', kept_duplicate: 1 },
        { service_receipt_id: 'sr-4', issuer: 'company-1', kept_duplicate: 0 },
      ]);
      expect(check.prepare('SELECT receipt, line, product_id, quantity FROM receipt_lines ORDER BY receipt, line').all()).toEqual([
        { receipt: 'sr-1', line: 0, product_id: 'milk', quantity: 2 },
        { receipt: 'sr-1', line: 1, product_id: 'cheese', quantity: 0.25 },
        { receipt: 'sr-2', line: 0, product_id: 'tea', quantity: 3 },
        { receipt: 'sr-3', line: 0, product_id: 'milk', quantity: 2 },
        { receipt: 'sr-4', line: 0, product_id: 'milk', quantity: 2 },
      ]);
      expect(check.prepare('SELECT c.issuer, l.original_line, l.product_id, l.quantity FROM credit_notes c JOIN credit_note_lines l ON l.credit_note = c.service_receipt_id').all()).toEqual([
        { issuer: 'company-1', original_line: 0, product_id: 'milk', quantity: 1 },
      ]);
    } finally {
      check.close();
    }
    await checkLedger(ledger);
  });
});
