// Money across machines: two (or five) connections crediting one receipt must never credit
// more than was bought, whatever the interleaving of their statements. Each connection is
// what one machine of a team has: its own pool on the shared PostgreSQL (or, for the
// embedded engine, its own connection to the one SQLite file).
//
// The held interleaving: B checks a receipt (reads its credit notes, then its open
// reservations) while A completes the credit note it reserved. If A's commit can land between
// B's two reads, B sees neither A's credit note nor A's reservation and credits the same
// units again. A proxy holds B's second read until A's completion either committed or is seen
// waiting; every run takes the same path.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreditNoteRecord } from '../../src/contract/records.js';
import { openSqliteLedger } from '../../src/store/embedded/sqlite.js';
import type { AcceptedPart, LedgerStore, NewIntent, ReceiptCredits } from '../../src/store/ledger.js';
import { openPostgresLedger } from '../../src/store/postgres/ledger.js';
import { postgresSkipReason, startPostgres, type PgServer } from '../postgres-server.js';
import { startPgHoldProxy, type PgHoldProxy } from '../pg-hold-proxy.js';

const HASH = 'a'.repeat(64);
const skipPostgres = postgresSkipReason();
let server: PgServer | undefined;
let proxy: PgHoldProxy | undefined;
let databases = 0;
let opened: LedgerStore[] = [];
let dir: string;

beforeAll(async () => {
  if (skipPostgres) return;
  server = await startPostgres();
  proxy = await startPgHoldProxy({ host: '127.0.0.1', port: server.port });
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await server?.drop();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-race-'));
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

class OverReturn extends Error {}

/** What the receipt sold: product → quantity. */
type Sold = Record<string, number>;

/** The check `credit-note issue` makes, reduced to quantities: refuses what would credit more than was sold. */
function decider(requestId: string, lines: Sold, sold: Sold) {
  return (credits: ReceiptCredits): NewIntent => {
    const taken: Record<string, number> = {};
    const add = (productId: string, quantity: number) => (taken[productId] = (taken[productId] ?? 0) + quantity);
    for (const note of credits.issued) for (const line of note.lines) add(line.productId, line.quantity);
    for (const intent of credits.reserved) for (const line of intent.reservation?.lines ?? []) add(line.productId, line.quantity);
    for (const [productId, quantity] of Object.entries(lines)) {
      if ((taken[productId] ?? 0) + quantity > (sold[productId] ?? 0)) throw new OverReturn(`${requestId}: ${productId} over-returned`);
    }
    const documentNumber = `CN-${requestId}`;
    const reservationLines = Object.entries(lines).map(([productId, quantity], originalLine) => ({ originalLine, productId, quantity }));
    return {
      kind: 'credit-note',
      subject: requestId,
      parent: credits.parent,
      documentNumber,
      digest: 'd',
      reservation: { requestId, documentNumber, lines: reservationLines, templateRequest: { documentNumber, currency: 'EUR', invoiceSubtotal: 1, totalAmount: 1 } },
    };
  };
}

function record(parent: string, requestId: string, lines: Sold): CreditNoteRecord {
  const documentNumber = `CN-${requestId}`;
  return {
    serviceReceiptId: `cn-${requestId}`,
    requestId,
    documentNumber,
    issuedAt: '2026-11-21T10:00:00.000Z',
    lines: Object.entries(lines).map(([productId, quantity], originalLine) => ({ originalLine, productId, quantity })),
    templateRequest: { documentNumber, currency: 'EUR', invoiceSubtotal: 1, totalAmount: 1 },
    templateHash: HASH,
    finalHash: HASH,
    matchId: 'match-1',
    recipients: [{ recipientId: 'device-1', keyId: 'k' }],
    submission: { serviceReceiptId: `cn-${requestId}`, parentServiceReceiptId: parent, templateHash: HASH, createdAt: '2026-11-21T10:00:00.000Z' },
  } as CreditNoteRecord;
}

/** One machine's whole `credit-note issue`: reserve, prepare, (the service), complete. Resolves to whether it credited. */
async function credit(ledger: LedgerStore, parent: string, requestId: string, lines: Sold, sold: Sold, pause?: () => Promise<void>): Promise<boolean> {
  try {
    const { intent } = await ledger.reserveCreditNote(parent, requestId, decider(requestId, lines, sold));
    await pause?.();
    await ledger.prepare(intent.id, { idempotencyKey: `key-${requestId}`, body: '{}', context: {} });
    await pause?.();
    await ledger.complete(intent.id, { kind: 'credit-note', record: record(parent, requestId, lines) });
    return true;
  } catch (error) {
    if (error instanceof OverReturn) return false;
    throw error;
  }
}

async function credited(ledger: LedgerStore, parent: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const note of await ledger.creditNotes(parent)) for (const line of note.lines) out[line.productId] = (out[line.productId] ?? 0) + line.quantity;
  return out;
}

const jitter = () => new Promise<void>((resolve) => setTimeout(resolve, Math.random() * 3));

type Connect = () => Promise<LedgerStore>;
const engines: [string, () => Promise<Connect>][] = [
  [
    'sqlite',
    async () => {
      const path = join(dir, 'ledger.db');
      return async () => {
        const store = await openSqliteLedger(path);
        opened.push(store);
        return store;
      };
    },
  ],
  [
    'postgres',
    async () => {
      if (!server) throw new Error('no PostgreSQL server');
      const url = await server.database(`race_${++databases}`);
      return async () => {
        const store = await openPostgresLedger(url);
        opened.push(store);
        return store;
      };
    },
  ],
];

describe('postgres: the held interleaving', () => {
  beforeEach((ctx) => {
    if (skipPostgres) ctx.skip(skipPostgres);
  });

  it("a check never runs between another machine's credit note and the end of its reservation: no second credit of the same units", async () => {
    const url = await server!.database(`race_${++databases}`);
    const a = await openPostgresLedger(url);
    const b = await openPostgresLedger(proxy!.via(url));
    opened.push(a, b);
    const sold = { milk: 2 };
    // A reserved both milks and sent its credit note; the service answered.
    const { intent } = await a.reserveCreditNote('sr-1', 'req-a', decider('req-a', { milk: 2 }, sold));
    await a.prepare(intent.id, { idempotencyKey: 'key-a', body: '{}', context: {} });

    // B checks the same receipt; its read of the open reservations is held.
    proxy!.arm("kind = 'credit-note' AND parent");
    const bRun = credit(b, 'sr-1', 'req-b', { milk: 1 }, sold);
    await proxy!.held();
    // A records its credit note now: it either commits (and B must then see it) or waits for B.
    const aDone = a.complete(intent.id, { kind: 'credit-note', record: record('sr-1', 'req-a', { milk: 2 }) });
    const aFirst = await Promise.race([aDone.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1_500))]);
    proxy!.release();
    const [bCredited] = await Promise.all([bRun, aDone]);

    expect(bCredited, `B credited a milk though A had credited both (A committed ${aFirst ? 'during' : 'after'} B's check)`).toBe(false);
    expect(await credited(a, 'sr-1')).toEqual({ milk: 2 });
  });

  // A request's accepted part and its credit note never pass each other: the reservation
  // decides from the part under the request's part lock, and a part is changed only under that
  // lock, and not at all once a credit note is reserved. Each test holds one machine inside its
  // transaction (the locks taken) while the other runs; without the lock the other went on.
  const milk = (requestId: string, quantity: number, acceptedBy: string): AcceptedPart => ({ requestId, items: [{ productId: 'milk', quantity }], acceptedAt: '2026-11-26T10:00:00.000Z', acceptedBy });
  const unresolvedFor = async (work: Promise<unknown>, ms: number) => Promise.race([work.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), ms))]);

  it('a part changed on one machine while another reserves the credit note of its request: it waits, then is refused naming the credit note', async () => {
    const url = await server!.database(`race_${++databases}`);
    const a = await openPostgresLedger(proxy!.via(url));
    const b = await openPostgresLedger(url);
    opened.push(a, b);
    expect(await a.keepAcceptedPart(milk('req-1', 1, 'a@host'))).toBeUndefined();
    // A reserves the credit note of one milk; held once it decided, its locks taken.
    proxy!.arm('WITH issuer AS');
    let seenByA: AcceptedPart | undefined;
    const aRun = a.reserveCreditNote('sr-1', 'req-1', (credits, part) => {
      seenByA = part;
      return decider('req-1', { milk: 1 }, { milk: 2 })(credits);
    });
    await proxy!.held();
    // B widens the part to two milks, deciding from the one milk it read.
    const bRun = b.keepAcceptedPart(milk('req-1', 2, 'b@host'), (now) => now?.items[0]?.quantity === 1);
    const bWaited = await unresolvedFor(bRun, 1_000);
    proxy!.release();
    await aRun;
    expect(bWaited, "B changed the part while A's reservation was deciding from it").toBe(true);
    expect(await bRun).toEqual({ creditNote: 'CN-req-1' });
    expect(seenByA?.items).toEqual([{ productId: 'milk', quantity: 1 }]);
    expect((await a.acceptedPart('req-1'))?.items).toEqual([{ productId: 'milk', quantity: 1 }]);
  });

  it('a credit note reserved on one machine while another changes the part: the reservation waits and decides from the new part', async () => {
    const url = await server!.database(`race_${++databases}`);
    const a = await openPostgresLedger(url);
    const b = await openPostgresLedger(proxy!.via(url));
    opened.push(a, b);
    expect(await a.keepAcceptedPart(milk('req-1', 1, 'a@host'))).toBeUndefined();
    // B changes the part to two milks; held just before it writes, its lock taken.
    proxy!.arm('INSERT INTO svc_accepted_parts');
    const bRun = b.keepAcceptedPart(milk('req-1', 2, 'b@host'), (now) => now?.items[0]?.quantity === 1);
    await proxy!.held();
    let seenByA: AcceptedPart | undefined;
    const aRun = a.reserveCreditNote('sr-1', 'req-1', (credits, part) => {
      seenByA = part;
      return decider('req-1', { milk: part?.items[0]?.quantity ?? 0 }, { milk: 2 })(credits);
    });
    const aWaited = await unresolvedFor(aRun, 1_000);
    proxy!.release();
    expect(await bRun).toBeUndefined();
    await aRun;
    expect(aWaited, 'A decided before the part it credits was written').toBe(true);
    expect(seenByA?.items).toEqual([{ productId: 'milk', quantity: 2 }]);
  });

  it('the database refuses a second credit note for one return request', async () => {
    const url = await server!.database(`race_${++databases}`);
    const a = await openPostgresLedger(url);
    opened.push(a);
    await a.importRecords({ receipts: [], creditNotes: [{ parent: 'sr-1', record: record('sr-1', 'req-1', { milk: 1 }) }] });
    const { Client } = (await import('pg')).default;
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await expect(
        client.query(
          `INSERT INTO svc_credit_notes (service_receipt_id, parent, request_id, document_number, issued_at, record) VALUES ('cn-other', 'sr-1', 'req-1', 'CN-other', '2026-11-21T10:00:00.000Z', $1)`,
          // A record the other constraints accept (schema step 5 checks it against its row).
          [JSON.stringify({ ...record('sr-1', 'req-1', { milk: 1 }), serviceReceiptId: 'cn-other', documentNumber: 'CN-other' })],
        ),
      ).rejects.toThrow(/duplicate key|unique/);
    } finally {
      await client.end();
    }
  });
});

describe.each(engines)('%s: free races of machines crediting one receipt', (engine, connect) => {
  beforeEach((ctx) => {
    if (engine === 'postgres' && skipPostgres) ctx.skip(skipPostgres);
  });

  it('a second credit note for one return request is refused by the database, also through an import (reported as a conflict)', async () => {
    const open = await connect();
    const ledger = await open();
    const first = record('sr-1', 'req-1', { milk: 1 });
    const second = { ...record('sr-1', 'req-1', { milk: 1 }), serviceReceiptId: 'cn-other', documentNumber: 'CN-other' };
    expect(await ledger.importRecords({ receipts: [], creditNotes: [{ parent: 'sr-1', record: first }] })).toMatchObject({ inserted: 1 });
    expect(await ledger.importRecords({ receipts: [], creditNotes: [{ parent: 'sr-1', record: second }] })).toEqual({
      inserted: 0,
      skipped: 0,
      conflicts: [{ kind: 'credit-note', serviceReceiptId: 'cn-other' }],
    });
    expect((await ledger.creditNotes('sr-1')).map((n) => n.serviceReceiptId)).toEqual([first.serviceReceiptId]);
  });

  it.each([2, 5])('%i machines, 100 trials on a 2-unit receipt: exactly the 2 units credited, never more, no false refusal', async (machines) => {
    const open = await connect();
    const ledgers = await Promise.all(Array.from({ length: machines }, () => open()));
    const sold = { milk: 2 };
    for (let trial = 0; trial < 100; trial++) {
      const parent = `sr-${machines}-${trial}`;
      const results = await Promise.all(ledgers.map((ledger, k) => credit(ledger, parent, `req-${machines}-${trial}-${k}`, { milk: 1 }, sold, jitter)));
      expect(await credited(ledgers[0]!, parent), `trial ${trial}`).toEqual({ milk: 2 });
      expect(results.filter(Boolean).length, `trial ${trial}`).toBe(2);
    }
  }, 180_000);

  it('5 machines, 100 trials of a mixed-product race: no product credited beyond what was sold', async () => {
    const open = await connect();
    const ledgers = await Promise.all(Array.from({ length: 5 }, () => open()));
    const sold = { milk: 2, bread: 1 };
    const asks: Sold[] = [{ milk: 1 }, { milk: 1, bread: 1 }, { bread: 1 }, { milk: 2 }, { milk: 1 }];
    for (let trial = 0; trial < 100; trial++) {
      const parent = `sr-mixed-${trial}`;
      await Promise.all(ledgers.map((ledger, k) => credit(ledger, parent, `req-mixed-${trial}-${k}`, asks[k]!, sold, jitter)));
      const total = await credited(ledgers[0]!, parent);
      expect(total.milk ?? 0, `trial ${trial}`).toBeLessThanOrEqual(2);
      expect(total.bread ?? 0, `trial ${trial}`).toBeLessThanOrEqual(1);
    }
  }, 180_000);
});
