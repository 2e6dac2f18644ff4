// `poll --all-grants` over 10,000 companies keeps 20,000 requests in the team's PostgreSQL in
// bounded batches: KEEP_BATCH requests to a statement (20 writes, none per request), every
// request kept once, a later poll refreshing them in place. A real server; the time is printed.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_BATCH, keepPolled } from '../../src/credit-notes/keep-polled.js';
import type { QueueItem } from '../../src/contract/returns.js';
import { createFactory } from '../../src/factory.js';
import { memoryConfigStore } from '../../src/config/store.js';
import { testStreams } from '../../src/io/test-streams.js';
import { memorySecretStore } from '../../src/secrets/store.js';
import { openPostgresLedger } from '../../src/store/postgres/ledger.js';
import type { LedgerStore } from '../../src/store/ledger.js';
import { postgresSkipReason, startPostgres, type PgServer } from '../postgres-server.js';

const skip = postgresSkipReason();
const COMPANIES = 10_000;
const REQUESTS = 20_000;
let server: PgServer | undefined;
beforeAll(async () => {
  if (!skip) server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.drop();
});

/** A request as a service lists it: its ciphertexts about the size of a real one's. */
function listed(company: number): QueueItem {
  return {
    requestId: randomUUID(),
    serviceReceiptId: `sr-${company}-${randomUUID()}`,
    encryptedSymmetricKey: randomBytes(256).toString('base64'),
    publicKey: randomBytes(294).toString('base64'),
    status: 'PENDING',
    createdAt: new Date().toISOString(),
    encryptedCreditNoteInitiationRequest: randomBytes(600).toString('base64'),
  };
}

describe.skipIf(skip !== undefined)(`keeping polled requests at scale${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it(`${REQUESTS} requests of ${COMPANIES} companies: ${REQUESTS / KEEP_BATCH} writes of at most ${KEEP_BATCH}, each kept once`, async () => {
    const url = await (server as PgServer).database('keep_scale');
    const ledger = await openPostgresLedger(url);
    const writes: number[] = [];
    const counting: LedgerStore = Object.create(ledger) as LedgerStore;
    counting.rememberQueueItems = (items) => {
      writes.push(items.length);
      return ledger.rememberQueueItems(items);
    };
    const f = createFactory({
      env: {},
      globals: { profile: 'shop', json: false, input: false, debug: false, color: false },
      io: testStreams().io,
      config: memoryConfigStore({ shop: { baseUrl: 'https://svc.test' } }),
      secrets: memorySecretStore(),
      ledger: counting,
    });
    try {
      // Two requests a company, company after company, as the fan-out hands them over.
      const items = Array.from({ length: REQUESTS }, (_, i) => listed(Math.floor(i / (REQUESTS / COMPANIES))));
      const started = performance.now();
      await keepPolled(f, items, new Set());
      const first = performance.now() - started;
      const firstWrites = writes.length;
      const again = performance.now();
      await keepPolled(f, items.map((i) => ({ ...i, status: 'ACCEPTED' })), new Set());
      const second = performance.now() - again;
      console.log(`kept ${REQUESTS} requests in ${firstWrites} writes: ${first.toFixed(0)} ms; again (refreshed in place): ${second.toFixed(0)} ms`);
      expect(writes).toEqual(Array<number>(2 * (REQUESTS / KEEP_BATCH)).fill(KEEP_BATCH));
      expect((await ledger.status()).counts.queueItems).toBe(REQUESTS);
      expect((await ledger.queueItem(items[REQUESTS - 1]!.requestId))?.status).toBe('ACCEPTED');
    } finally {
      await ledger.close();
    }
  }, 120_000);
});
