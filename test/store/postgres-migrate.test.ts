// The shared database's migrations against a real PostgreSQL: several machines migrating at
// once migrate it once, and a database at the previous version keeps its data.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresLedger } from '../../src/store/postgres/ledger.js';
import { migrate, POSTGRES_SCHEMA_VERSION, schemaVersion } from '../../src/store/postgres/schema.js';
import { readDatabaseStatus } from '../../src/store/postgres/status.js';
import { postgresSkipReason, startPostgres, type PgServer } from '../postgres-server.js';

const skip = postgresSkipReason();
let server: PgServer | undefined;
beforeAll(async () => {
  if (!skip) server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.drop();
});

async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

describe.skipIf(skip !== undefined)(`PostgreSQL migrations${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('four migrating at once: each step applied once, every one ends at the current version', async () => {
    const url = await (server as PgServer).database('migrate_race');
    const applied = await Promise.all(
      Array.from({ length: 4 }, () =>
        withPool(url, async (pool) => {
          const client = await pool.connect();
          try {
            return await migrate(client);
          } finally {
            client.release();
          }
        }),
      ),
    );
    expect(applied.flat().sort()).toEqual(Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1));
    const versions = await withPool(url, async (pool) => (await pool.query('SELECT version FROM svc_schema_migrations ORDER BY version')).rows.map((r: { version: number }) => r.version));
    expect(versions).toEqual(Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it('a database at the previous version is migrated with its records intact', async () => {
    const url = await (server as PgServer).database('migrate_previous');
    await withPool(url, async (pool) => {
      const client = await pool.connect();
      try {
        await migrate(client, POSTGRES_SCHEMA_VERSION - 1);
        expect(await schemaVersion(client)).toBe(POSTGRES_SCHEMA_VERSION - 1);
        const record = {
          version: 1,
          serviceReceiptId: 'sr-old',
          issuedAt: '2026-11-01T10:00:00.000Z',
          templateRequest: { documentNumber: 'R-OLD', currency: 'EUR', totalAmount: 1 },
          template: {},
          templateHash: 'a'.repeat(64),
          finalHash: 'a'.repeat(64),
          matchId: 'm',
          lookup: { by: 'email', display: 'a@example.com' },
          recipients: [{ recipientId: 'd', keyId: 'k' }],
          customer: {},
          submission: { serviceReceiptId: 'sr-old', templateHash: 'a'.repeat(64), createdAt: '2026-11-01T10:00:00.000Z' },
        };
        await client.query('INSERT INTO svc_receipts (service_receipt_id, document_number, issued_at, record) VALUES ($1, $2, $3, $4)', ['sr-old', 'R-OLD', record.issuedAt, JSON.stringify(record)]);
      } finally {
        client.release();
      }
    });
    const ledger = await openPostgresLedger(url);
    try {
      expect((await ledger.status()).schemaVersion).toBe(POSTGRES_SCHEMA_VERSION);
      expect((await ledger.receipt('sr-old'))?.templateRequest.documentNumber).toBe('R-OLD');
    } finally {
      await ledger.close();
    }
  });

  it('the status of a database svc never migrated creates nothing and names the pending steps', async () => {
    const url = await (server as PgServer).database('status_readonly');
    const status = await withPool(url, async (pool) => {
      const client = await pool.connect();
      try {
        return await readDatabaseStatus(client, url);
      } finally {
        client.release();
      }
    });
    expect(status.schemaVersion).toBe(0);
    expect(status.pending.map((p) => p.version)).toEqual(Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1));
    expect(status.counts).toEqual({});
    const tables = await withPool(url, async (pool) => (await pool.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)).rows[0] as { n: number });
    expect(tables.n).toBe(0);
  });

  it('a database a newer svc migrated is refused, naming both versions, and left as it is', async () => {
    const url = await (server as PgServer).database('newer');
    await withPool(url, async (pool) => {
      const client = await pool.connect();
      try {
        await migrate(client);
        await client.query('INSERT INTO svc_schema_migrations (version) VALUES ($1)', [POSTGRES_SCHEMA_VERSION + 1]);
      } finally {
        client.release();
      }
    });
    await expect(openPostgresLedger(url)).rejects.toThrow(`is at schema version ${POSTGRES_SCHEMA_VERSION + 1}, newer than this svc's ${POSTGRES_SCHEMA_VERSION}`);
  });

  it('migrate with nothing to do needs no CREATE right (an application role)', async () => {
    const url = await (server as PgServer).database('app_role');
    await withPool(url, async (pool) => {
      const client = await pool.connect();
      try {
        await migrate(client);
        await client.query(`CREATE ROLE svc_app LOGIN PASSWORD 'app-password'`);
        await client.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
        await client.query('GRANT USAGE ON SCHEMA public TO svc_app');
        await client.query('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO svc_app');
        await client.query('GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO svc_app');
      } finally {
        client.release();
      }
    });
    const app = new URL(url);
    app.username = 'svc_app';
    app.password = 'app-password';
    const applied = await withPool(app.toString(), async (pool) => {
      const client = await pool.connect();
      try {
        return await migrate(client);
      } finally {
        client.release();
      }
    });
    expect(applied).toEqual([]);
  });
});
