// What schema step 5 (timestamptz, jsonb, generated columns, line tables, constraints) costs
// on a team's database of BENCH_RECEIPTS receipts (default 50,000, each the size of a real
// groceries record): the migration of a filled step-4 database, and listing every receipt
// (`receipt list`: the ledger's receipts(), newest first) at step 5 against the same listing
// read as step 4 stored it (text, parsed and checked the same way), in the same run.
// Needs a PostgreSQL server (Debian's postgresql) and tsx: `node --import tsx bench/ledger-schema.mjs`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { positive } from './lib/common.mjs';
import { startPostgres } from '../test/postgres-server.ts';
import { migrate } from '../src/store/postgres/schema.ts';
import { openPostgresLedger } from '../src/store/postgres/ledger.ts';
import { decodeRecord } from '../src/store/decode.ts';
import { ReceiptRecord } from '../src/receipts/records.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const COUNT = positive('BENCH_RECEIPTS', 50_000);
const ROUNDS = positive('BENCH_RUNS', 3);
const groceries = JSON.parse(readFileSync(join(root, 'fixtures', 'receipts', 'groceries.json'), 'utf8'));
const HASH = 'a'.repeat(64);

function record(n) {
  const id = `sr-${n}`;
  const issuedAt = new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
  return {
    version: 1,
    serviceReceiptId: id,
    issuedAt,
    templateRequest: { ...groceries, documentNumber: `R-${n}` },
    template: { accountingSupplierParty: { partyIdentification: [{ id: { value: 'company-1' } }] } },
    templateHash: HASH,
    finalHash: HASH,
    matchId: `match-${n}`,
    lookup: { by: 'email', display: 'a•••@example.com' },
    recipients: [{ recipientId: 'device-1', keyId: 'k' }],
    customer: {},
    submission: { serviceReceiptId: id, templateHash: HASH, createdAt: issuedAt },
  };
}

const server = await startPostgres();
try {
  const step4 = await server.database('bench_step4');
  const step5 = await server.database('bench_step5');
  for (const url of [step4, step5]) {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const client = await pool.connect();
    await migrate(client, 4);
    for (let from = 0; from < COUNT; from += 5_000) {
      const batch = Array.from({ length: Math.min(5_000, COUNT - from) }, (_, k) => record(from + k));
      await client.query(
        `INSERT INTO svc_receipts (service_receipt_id, document_number, issued_at, record)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
        [batch.map((r) => r.serviceReceiptId), batch.map((r) => r.templateRequest.documentNumber), batch.map((r) => r.issuedAt), batch.map((r) => JSON.stringify(r))],
      );
    }
    await client.query('ANALYZE');
    client.release();
    await pool.end();
  }

  const migrating = performance.now();
  {
    const pool = new pg.Pool({ connectionString: step5, max: 1 });
    const client = await pool.connect();
    await migrate(client);
    await client.query('ANALYZE');
    client.release();
    await pool.end();
  }
  const migrated = performance.now() - migrating;

  const old = new pg.Pool({ connectionString: step4, max: 1 });
  const ledger = await openPostgresLedger(step5);
  const listStep4 = async () =>
    (await old.query('SELECT record FROM svc_receipts ORDER BY issued_at DESC, seq DESC')).rows.map((r) => decodeRecord(ReceiptRecord, r.record, 'a receipt'));
  const listStep5 = () => ledger.receipts();
  const times = { step4: [], step5: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, list] of [['step4', listStep4], ['step5', listStep5]]) {
      const start = performance.now();
      const rows = await list();
      times[name].push(performance.now() - start);
      if (rows.length !== COUNT) throw new Error(`${name} listed ${rows.length} of ${COUNT}`);
    }
  }
  await old.end();
  await ledger.close();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`receipts: ${COUNT}`);
  console.log(`migration to step 5: ${(migrated / 1000).toFixed(2)} s`);
  console.log(`list at step 4 (text): median ${(median(times.step4) / 1000).toFixed(2)} s of ${ROUNDS}`);
  console.log(`list at step 5 (jsonb): median ${(median(times.step5) / 1000).toFixed(2)} s of ${ROUNDS}`);
  console.log(`ratio step 5 / step 4: ${(median(times.step5) / median(times.step4)).toFixed(2)}`);
} finally {
  await server.drop();
}
