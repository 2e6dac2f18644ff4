// The ledger's semantics (src/store/ledger.ts), run against both engines: a real SQLite
// file and a real PostgreSQL server. Intents (reserve → prepare → complete / abandon), one
// open intent per subject, reservations counted by the next check, records, imports that
// never overwrite; and, for the embedded engine, the move of an older svc's JSON records.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreditNoteRecord, ReceiptRecord } from '../../src/contract/records.js';
import { importLegacyFiles } from '../../src/store/embedded/legacy-files.js';
import { openSqliteLedger } from '../../src/store/embedded/sqlite.js';
import type { LedgerStore, NewIntent } from '../../src/store/ledger.js';
import { StoreError } from '../../src/store/errors.js';
import { openPostgresLedger } from '../../src/store/postgres/ledger.js';
import { postgresSkipReason, startPostgres, type PgServer } from '../postgres-server.js';

let dir: string;
let opened: LedgerStore[] = [];
const openSqlite = async (path = join(dir, 'ledger.db')) => {
  const store = await openSqliteLedger(path);
  opened.push(store);
  return store;
};

const skipPostgres = postgresSkipReason();
let server: PgServer | undefined;
let databases = 0;
beforeAll(async () => {
  if (!skipPostgres) server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.drop();
});

/** Each test a database of its own; `open()` again gives another connection to the same one. */
const engines: [string, () => Promise<() => Promise<LedgerStore>>][] = [
  ['sqlite', async () => () => openSqlite()],
  [
    'postgres',
    async () => {
      if (!server) throw new Error('no PostgreSQL server');
      const url = await server.database(`ledger_${++databases}`);
      return async () => {
        const store = await openPostgresLedger(url);
        opened.push(store);
        return store;
      };
    },
  ],
];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-ledger-'));
});
afterEach(async () => {
  for (const store of opened) await store.close();
  opened = [];
  await rm(dir, { recursive: true, force: true });
});

const HASH = 'a'.repeat(64);

function receipt(id: string, documentNumber = `R-${id}`, issuedAt = '2026-11-20T10:00:00.000Z'): ReceiptRecord {
  return {
    version: 1,
    serviceReceiptId: id,
    issuedAt,
    templateRequest: { documentNumber, currency: 'EUR', totalAmount: 4.06 },
    template: {},
    templateHash: HASH,
    finalHash: HASH,
    matchId: 'match-1',
    lookup: { by: 'email', display: 'alice@example.com' },
    recipients: [{ recipientId: 'device-1', keyId: 'k' }],
    customer: {},
    submission: { serviceReceiptId: id, templateHash: HASH, createdAt: issuedAt },
  } as ReceiptRecord;
}

function creditNote(id: string, requestId: string, documentNumber: string, quantity = 1): CreditNoteRecord {
  return {
    serviceReceiptId: id,
    requestId,
    documentNumber,
    issuedAt: '2026-11-21T10:00:00.000Z',
    lines: [{ originalLine: 0, productId: 'milk', quantity }],
    templateRequest: { documentNumber, currency: 'EUR', invoiceSubtotal: 1, totalAmount: 1.19 },
    templateHash: HASH,
    finalHash: HASH,
    matchId: 'match-1',
    recipients: [{ recipientId: 'device-1', keyId: 'k' }],
    submission: { serviceReceiptId: id, parentServiceReceiptId: 'sr-1', templateHash: HASH, createdAt: '2026-11-21T10:00:00.000Z' },
  } as CreditNoteRecord;
}

const receiptIntent = (documentNumber: string, digest = 'd1'): NewIntent => ({ kind: 'receipt', subject: documentNumber, documentNumber, digest });

describe.each(engines)('%s engine', (engine, connect) => {
  let open: () => Promise<LedgerStore>;
  beforeEach(async (ctx) => {
    if (engine === 'postgres' && skipPostgres) return ctx.skip(skipPostgres);
    open = await connect();
  });

  describe('intents', () => {
    it('reserve → prepare → complete records the document and closes the intent; completing twice is harmless', async () => {
      const ledger = await open();
      const { intent, created } = await ledger.reserveReceipt(receiptIntent('R-1'));
      expect(created).toBe(true);
      // Which process, on which machine: on a team's database a pid alone names no process.
      expect(intent).toMatchObject({ state: 'reserved', body: undefined, pid: process.pid, host: hostname() });
      const prepared = await ledger.prepare(intent.id, { idempotencyKey: 'key-1', body: '{"a":1}', context: { n: 1 } });
      expect(prepared).toMatchObject({ state: 'prepared', idempotencyKey: 'key-1', body: '{"a":1}', context: { n: 1 } });
      await ledger.complete(intent.id, { kind: 'receipt', record: receipt('sr-1', 'R-1') });
      await ledger.complete(intent.id, { kind: 'receipt', record: receipt('sr-1', 'R-1') });
      expect(await ledger.openIntent('receipt', 'R-1')).toBeUndefined();
      expect(await ledger.lastIntent('receipt', 'R-1')).toMatchObject({ state: 'done', result: 'sr-1' });
      expect((await ledger.receipts()).map((r) => r.serviceReceiptId)).toEqual(['sr-1']);
    });

    it('one open intent per subject: a second reserve gets the first one back to resume, also from another connection', async () => {
      const a = await open();
      const b = await open();
      const first = await a.reserveReceipt(receiptIntent('R-1'));
      const second = await b.reserveReceipt(receiptIntent('R-1', 'other digest'));
      expect(second).toEqual({ intent: first.intent, created: false });
      // Another subject is independent.
      expect((await b.reserveReceipt(receiptIntent('R-2'))).created).toBe(true);
    });

    it('prepare is compare-and-set: of two preparations of one intent the first bytes win', async () => {
      const a = await open();
      const b = await open();
      const { intent } = await a.reserveReceipt(receiptIntent('R-1'));
      await a.prepare(intent.id, { idempotencyKey: 'key-a', body: 'A', context: {} });
      const later = await b.prepare(intent.id, { idempotencyKey: 'key-b', body: 'B', context: {} });
      expect(later).toMatchObject({ idempotencyKey: 'key-a', body: 'A' });
    });

    it('abandon closes the intent without a document; the subject can be reserved anew', async () => {
      const ledger = await open();
      const { intent } = await ledger.reserveReceipt(receiptIntent('R-1'));
      await ledger.abandon(intent.id);
      expect(await ledger.openIntent('receipt', 'R-1')).toBeUndefined();
      const again = await ledger.reserveReceipt(receiptIntent('R-1'));
      expect(again.created).toBe(true);
      expect(again.intent.id).not.toBe(intent.id);
    });
  });

  describe('reserveCreditNote', () => {
    const reservation = (requestId: string, documentNumber: string, quantity: number) => ({
      requestId,
      documentNumber,
      lines: [{ originalLine: 0, productId: 'milk', quantity }],
      templateRequest: { documentNumber, currency: 'EUR', invoiceSubtotal: 1, totalAmount: 1.19 },
    });

    it('decides against the issued credit notes and the open reservations of the receipt, in order', async () => {
      const ledger = await open();
      await ledger.importRecords({ receipts: [], creditNotes: [{ parent: 'sr-1', record: creditNote('cn-1', 'req-1', 'CN-1') }] });
      await ledger.reserveCreditNote('sr-1', 'req-2', () => ({
        kind: 'credit-note', subject: 'req-2', parent: 'sr-1', documentNumber: 'CN-2', digest: 'd', reservation: reservation('req-2', 'CN-2', 1),
      }));
      let seen: unknown;
      await ledger.reserveCreditNote('sr-1', 'req-3', (credits) => {
        seen = { issued: credits.issued.map((n) => n.documentNumber), reserved: credits.reserved.map((i) => i.reservation?.documentNumber) };
        return { kind: 'credit-note', subject: 'req-3', parent: 'sr-1', documentNumber: 'CN-3', digest: 'd', reservation: reservation('req-3', 'CN-3', 1) };
      });
      expect(seen).toEqual({ issued: ['CN-1'], reserved: ['CN-2'] });
      // Another receipt's reservations are not counted.
      const other = await ledger.credits('sr-2');
      expect(other).toEqual({ parent: 'sr-2', issued: [], reserved: [] });
    });

    it('two connections reserving against one receipt at once: one after the other, the second sees the first reservation', async () => {
      const a = await open();
      const b = await open();
      const seen: string[][] = [];
      const reserve = (ledger: LedgerStore, requestId: string) =>
        ledger.reserveCreditNote('sr-1', requestId, (credits) => {
          seen.push(credits.reserved.map((i) => i.subject));
          return { kind: 'credit-note', subject: requestId, parent: 'sr-1', documentNumber: `CN-${requestId}`, digest: 'd', reservation: reservation(requestId, `CN-${requestId}`, 1) };
        });
      await Promise.all([reserve(a, 'req-a'), reserve(b, 'req-b')]);
      expect(seen.map((s) => s.length).sort()).toEqual([0, 1]);
      expect((await a.credits('sr-1')).reserved.map((i) => i.subject).sort()).toEqual(['req-a', 'req-b']);
    });

    it('a refusal inside decide records nothing', async () => {
      const ledger = await open();
      await expect(
        ledger.reserveCreditNote('sr-1', 'req-1', () => {
          throw new Error('over-return');
        }),
      ).rejects.toThrow('over-return');
      expect((await ledger.credits('sr-1')).reserved).toEqual([]);
    });

    it('an open intent of the request is handed back without deciding again', async () => {
      const ledger = await open();
      const first = await ledger.reserveCreditNote('sr-1', 'req-1', () => ({
        kind: 'credit-note', subject: 'req-1', parent: 'sr-1', documentNumber: 'CN-1', digest: 'd', reservation: reservation('req-1', 'CN-1', 1),
      }));
      const again = await ledger.reserveCreditNote('sr-1', 'req-1', () => {
        throw new Error('decide must not run for an open intent');
      });
      expect(again).toEqual({ intent: first.intent, created: false });
    });
  });

  describe('accepted parts and credit notes', () => {
    const part = (requestId: string, quantity: number) => ({ requestId, items: [{ productId: 'milk', quantity }], acceptedAt: '2026-11-21T10:00:00.000Z', acceptedBy: 'a@host' });
    const intent = (requestId: string): NewIntent => ({
      kind: 'credit-note', subject: requestId, parent: 'sr-1', documentNumber: `CN-${requestId}`, digest: 'd',
      reservation: { requestId, documentNumber: `CN-${requestId}`, lines: [{ originalLine: 0, productId: 'milk', quantity: 1 }], templateRequest: { documentNumber: `CN-${requestId}`, currency: 'EUR', invoiceSubtotal: 1, totalAmount: 1.19 } },
    });

    it('a reservation decides with the part recorded now; once reserved or issued, the part is kept no more and the credit note is named', async () => {
      const a = await open();
      const b = await open();
      expect(await a.keepAcceptedPart(part('req-1', 1))).toBeUndefined();
      let seen: unknown;
      await b.reserveCreditNote('sr-1', 'req-1', (_credits, accepted) => {
        seen = accepted?.items;
        return intent('req-1');
      });
      expect(seen).toEqual([{ productId: 'milk', quantity: 1 }]);
      // Being submitted: refused, the part as it was.
      expect(await a.keepAcceptedPart(part('req-1', 2))).toEqual({ creditNote: 'CN-req-1' });
      expect((await b.acceptedPart('req-1'))?.items).toEqual([{ productId: 'milk', quantity: 1 }]);
      // Issued (imported from another machine, no intent here): refused too.
      await a.importRecords({ receipts: [], creditNotes: [{ parent: 'sr-1', record: creditNote('cn-2', 'req-2', 'CN-2') }] });
      expect(await b.keepAcceptedPart(part('req-2', 1))).toEqual({ creditNote: 'CN-2' });
      expect(await b.acceptedPart('req-2')).toBeUndefined();
      // An abandoned submission no longer stands in the way.
      const { intent: open3 } = await a.reserveCreditNote('sr-1', 'req-3', () => intent('req-3'));
      await a.abandon(open3.id);
      expect(await b.keepAcceptedPart(part('req-3', 1))).toBeUndefined();
    });

    it('compare-and-set: a part recorded by a colleague since the caller read it is not overwritten, and is handed back', async () => {
      const a = await open();
      const b = await open();
      const none = (now: unknown) => now === undefined;
      expect(await a.keepAcceptedPart(part('req-1', 2), none)).toBeUndefined();
      // b read none too, and decided 4: refused, a's part handed back and kept.
      const refused = await b.keepAcceptedPart({ ...part('req-1', 4), acceptedBy: 'b@host' }, none);
      expect(refused).toMatchObject({ changed: { items: [{ productId: 'milk', quantity: 2 }], acceptedBy: 'a@host' } });
      expect((await b.acceptedPart('req-1'))?.items).toEqual([{ productId: 'milk', quantity: 2 }]);
      // Deciding from a's part, b replaces it.
      expect(await b.keepAcceptedPart({ ...part('req-1', 4), acceptedBy: 'b@host' }, (now) => now?.items[0]?.quantity === 2)).toBeUndefined();
      expect(await a.acceptedPart('req-1')).toMatchObject({ items: [{ productId: 'milk', quantity: 4 }], acceptedBy: 'b@host' });
    });
  });

  describe('importRecords', () => {
    it('inserts new records, skips equal ones (whatever their member order) and reports conflicts without overwriting', async () => {
      const ledger = await open();
      expect(await ledger.importRecords({ receipts: [receipt('sr-1')], creditNotes: [] })).toEqual({ inserted: 1, skipped: 0, conflicts: [] });
      const reordered = Object.fromEntries(Object.entries(receipt('sr-1')).reverse()) as ReceiptRecord;
      const changed = { ...receipt('sr-1'), issuedAt: '2030-01-01T00:00:00.000Z' };
      expect(await ledger.importRecords({ receipts: [reordered, changed], creditNotes: [] })).toEqual({
        inserted: 0,
        skipped: 1,
        conflicts: [{ kind: 'receipt', serviceReceiptId: 'sr-1' }],
      });
      expect((await ledger.receipt('sr-1'))?.issuedAt).toBe('2026-11-20T10:00:00.000Z');
    });
  });

  describe('queue items', () => {
    it('keeps an item when first seen and refreshes it when seen again', async () => {
      const ledger = await open();
      const item = { requestId: 'req-1', serviceReceiptId: 'sr-1', status: 'PENDING' } as never;
      await ledger.rememberQueueItems([item]);
      await ledger.rememberQueueItems([{ ...(item as object), status: 'ACCEPTED' } as never]);
      expect(await ledger.queueItem('req-1')).toMatchObject({ status: 'ACCEPTED' });
      expect(await ledger.queueItem('req-2')).toBeUndefined();
      expect((await ledger.status()).counts).toMatchObject({ queueItems: 1 });
    });

    it("keeps a rejection's reason with the kept item, through later sightings of it", async () => {
      const ledger = await open();
      const item = { requestId: 'req-1', serviceReceiptId: 'sr-1', status: 'PENDING' } as never;
      const rejection = { reason: 'worn — no tags', rejectedAt: '2026-11-20T10:00:00.000Z' };
      expect(await ledger.keepRejection('req-1', rejection)).toBeUndefined();
      await ledger.rememberQueueItems([item]);
      expect(await ledger.rejection('req-1')).toBeUndefined();
      expect(await ledger.keepRejection('req-1', rejection)).toEqual({});
      await ledger.rememberQueueItems([{ ...(item as object), status: 'REJECTED' } as never]);
      expect(await ledger.rejection('req-1')).toEqual(rejection);
      expect(await (await open()).rejection('req-1')).toEqual(rejection);
      expect(await ledger.rejection('req-2')).toBeUndefined();
    });

    it('keeps the first rejection of a request: a later one (another machine\'s) is answered with it and not kept', async () => {
      const [here, there] = [await open(), await open()];
      await here.rememberQueueItems([{ requestId: 'req-1', serviceReceiptId: 'sr-1', status: 'PENDING' } as never]);
      const first = { reason: 'item not damaged per photo', rejectedAt: '2026-11-20T14:52:00.000Z', rejectedBy: 'ann@desk-1' };
      expect(await here.keepRejection('req-1', first)).toEqual({});
      expect(await there.keepRejection('req-1', { reason: 'third reason', rejectedAt: '2026-11-20T14:59:00.000Z', rejectedBy: 'bob@desk-2' })).toEqual({ earlier: first });
      expect(await here.rejection('req-1')).toEqual(first);
      expect(await there.rejection('req-1')).toEqual(first);
    });
  });
});

describe('the JSON records of an older svc', () => {
  it('move into the ledger once, and their directories are renamed so nothing is read twice', async () => {
    const profile = join(dir, 'local');
    await mkdir(join(profile, 'receipts'), { recursive: true });
    await mkdir(join(profile, 'credit-notes'), { recursive: true });
    await writeFile(join(profile, 'receipts', 'sr-1.json'), JSON.stringify(receipt('sr-1')));
    await writeFile(join(profile, 'receipts', 'sr-2.json'), JSON.stringify(receipt('sr-2', 'R-2', '2026-11-22T10:00:00.000Z')));
    await writeFile(
      join(profile, 'credit-notes', 'sr-1.json'),
      JSON.stringify({ version: 1, parentServiceReceiptId: 'sr-1', creditNotes: [creditNote('cn-1', 'req-1', 'CN-1'), creditNote('cn-2', 'req-2', 'CN-2')] }),
    );
    const ledger = await openSqlite(join(profile, 'ledger.db'));
    expect(await importLegacyFiles(ledger, profile)).toBe(4);
    expect((await ledger.receipts()).map((r) => r.serviceReceiptId)).toEqual(['sr-2', 'sr-1']);
    expect((await ledger.creditNotes('sr-1')).map((n) => n.documentNumber)).toEqual(['CN-1', 'CN-2']);
    expect((await readdir(profile)).sort()).toEqual(['credit-notes.imported', 'ledger.db', 'ledger.db-shm', 'ledger.db-wal', 'receipts.imported']);
    expect(await importLegacyFiles(ledger, profile)).toBe(0);
  });

  it('a damaged file stops the move with its name, and nothing is imported', async () => {
    const profile = join(dir, 'local');
    await mkdir(join(profile, 'receipts'), { recursive: true });
    await writeFile(join(profile, 'receipts', 'sr-1.json'), JSON.stringify(receipt('sr-1')));
    await writeFile(join(profile, 'receipts', 'sr-2.json'), '{"version":1');
    const ledger = await openSqlite(join(profile, 'ledger.db'));
    const error = await importLegacyFiles(ledger, profile).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toContain(join(profile, 'receipts', 'sr-2.json'));
    expect(await ledger.receipts()).toEqual([]);
  });
});
