// The webhook journal on the team's PostgreSQL database (SVC_DATABASE_URL): any number of
// `svc webhook listen` behind a load balancer share it. A delivery is acknowledged only once
// its row is committed; the body's SHA-256 is the primary key, so a delivery retried to
// another listener is a duplicate there; a new delivery is claimed by the listener that
// stored it for a lease (SVC_WEBHOOK_CLAIM_SECONDS, default 30) that it renews while it holds
// the delivery (pg-claims.ts), and claims that a killed listener left are taken over by the
// others once their lease ran out (FOR UPDATE SKIP LOCKED, so two listeners never take the
// same one), in batches as fast as they are processed. While the database is unreachable,
// `record` rejects and the receiver answers 503, so the sender retries, and processing
// pauses; pg's pool connects again by itself once the database is back. Deliveries that arrive while an insert is in
// flight go into the next one together: one commit for many acks (group commit), as the
// file journal does with its fsync.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { Clock } from '../clock.js';
import { bodyId } from '../crypto/hash.js';
import { redactDatabaseUrl } from '../store/database-url.js';
import { databaseError, openPool } from '../store/postgres/pool.js';
import { migrate, POSTGRES_SCHEMA_VERSION, refuseNewer, schemaVersion } from '../store/postgres/schema.js';
import { JOURNAL_RETENTION_MS, type Journal, type JournalEntry, type StoredDelivery } from './journal.js';
import { createClaimKeeper, NOT_FORWARDED } from './pg-claims.js';
import type { Env } from '../store/postgres/connection.js';

export const DEFAULT_CLAIM_SECONDS = 30;

/** How many deliveries a listener takes over at once (the others share the rest). */
export const CATCH_UP_BATCH = 200;

export interface SharedJournal extends Journal {
  /** Unprocessed deliveries whose claim ran out (a listener died with them), now claimed by this one, oldest first. */
  claimAbandoned(limit?: number): Promise<StoredDelivery[]>;
  /** True once the delivery may be processed here (its claim fresh, the journal writable); false: another listener has it. */
  admit(id: string): Promise<boolean>;
  readonly claimSeconds: number;
  /** Resolves when the database answers a query (readiness). */
  ping(): Promise<void>;
  /** How many deliveries the team journal holds unprocessed, whichever listener has them (the backlog gauge). */
  unprocessed(): Promise<number>;
}

interface DeliveryRow {
  id: string;
  /** timestamptz since schema step 5 (text before). */
  received_at: Date | string;
  event: string | null;
  /** jsonb since schema step 5 (text before). */
  headers: Record<string, string> | string;
  body: Buffer;
  processed_at: Date | string | null;
  ok: boolean | null;
  error: string | null;
}

export async function openSharedJournal(url: string, opts: { clock: Clock; env: Env; claimSeconds?: number; note?: (text: string) => void }): Promise<SharedJournal> {
  // As many connections as a busy sender keeps requests in flight: each ack waits for its commit.
  const pool: Pool = await openPool(url, { max: 24, env: opts.env });
  const claimSeconds = opts.claimSeconds ?? DEFAULT_CLAIM_SECONDS;
  const me = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  try {
    const client = await pool.connect();
    try {
      const version = await schemaVersion(client);
      refuseNewer(version, redactDatabaseUrl(url));
      if (version < POSTGRES_SCHEMA_VERSION) await migrate(client);
      // As the file journal compacts: processed deliveries past the retention go (senders stop
      // retrying long before), so the journal and its listing stay small.
      const cutoff = new Date(opts.clock.now() - JOURNAL_RETENTION_MS).toISOString();
      await client.query('DELETE FROM svc_webhook_deliveries WHERE processed_at IS NOT NULL AND received_at < $1', [cutoff]);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw databaseError(url, error);
  }
  const query = async (sql: string, params: unknown[]) => {
    try {
      return await pool.query(sql, params);
    } catch (error) {
      throw databaseError(url, error);
    }
  };
  const iso = () => new Date(opts.clock.now()).toISOString();
  const entryOf = (row: DeliveryRow): JournalEntry => ({
    id: row.id,
    receivedAt: isoOf(row.received_at),
    event: row.event,
    // An ok row's error names only the targets that never took it (src/webhook/pg-claims.ts).
    processed: row.processed_at === null ? undefined : { ok: row.ok ?? false, error: row.ok === true ? undefined : (row.error ?? undefined) },
  });
  const deliveryOf = (row: DeliveryRow): StoredDelivery => ({ entry: entryOf(row), raw: row.body, headers: typeof row.headers === 'string' ? (JSON.parse(row.headers) as Record<string, string>) : row.headers });

  const claims = createClaimKeeper({ me, claimSeconds, query, note: opts.note ?? (() => undefined) });

  async function claimAbandoned(limit = CATCH_UP_BATCH): Promise<StoredDelivery[]> {
    const sentAt = performance.now();
    const { rows } = await query(
      `UPDATE svc_webhook_deliveries SET claimed_by = $1, claimed_until = now() + make_interval(secs => $2)
       WHERE id IN (
         SELECT id FROM svc_webhook_deliveries
         WHERE processed_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
           -- Not those it has in hand (it renews them); its own that it does not hold (an
           -- INSERT committed whose reply was lost) are taken like anybody's.
           AND NOT (claimed_by IS NOT DISTINCT FROM $1 AND id = ANY($4))
         ORDER BY received_at LIMIT $3
         FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [me, claimSeconds, limit, claims.held()],
    );
    claims.hold((rows as DeliveryRow[]).map((r) => r.id), sentAt);
    return (rows as DeliveryRow[]).sort((a, b) => (isoOf(a.received_at) < isoOf(b.received_at) ? -1 : 1)).map(deliveryOf);
  }

  // What the last listeners left unprocessed (and no live one holds), claimed at open.
  const backlog = await claimAbandoned();

  interface Waiting {
    id: string;
    params: unknown[];
    resolve(result: { entry: JournalEntry; duplicate: boolean }): void;
    reject(error: unknown): void;
  }
  let queue: Waiting[] = [];
  // Two inserts in flight at once: a delivery arriving during one waits for the next, not for both.
  const MAX_IN_FLIGHT = 2;
  const draining = new Set<Promise<void>>();
  const startDrain = () => {
    if (draining.size >= MAX_IN_FLIGHT || queue.length === 0) return;
    const running: Promise<void> = drain().finally(() => {
      draining.delete(running);
      startDrain();
    });
    draining.add(running);
  };
  async function drain(): Promise<void> {
    {
      const batch = queue;
      queue = [];
      try {
        const unique = [...new Map(batch.map((w) => [w.id, w])).values()];
        const sentAt = performance.now();
        const values = unique.map((_, k) => `($${k * 5 + 1}, $${k * 5 + 2}, $${k * 5 + 3}, $${k * 5 + 4}, $${k * 5 + 5}, $${unique.length * 5 + 1}, now() + make_interval(secs => $${unique.length * 5 + 2}))`);
        const inserted = await query(
          `INSERT INTO svc_webhook_deliveries (id, received_at, event, headers, body, claimed_by, claimed_until)
           VALUES ${values.join(', ')} ON CONFLICT (id) DO NOTHING RETURNING *`,
          [...unique.flatMap((w) => w.params), me, claimSeconds],
        );
        const fresh = new Map((inserted.rows as DeliveryRow[]).map((r) => [r.id, r]));
        claims.hold(fresh.keys(), sentAt);
        if (fresh.size < unique.length) {
          // Sent again, and already in the journal: a duplicate, unless nobody is processing it.
          // An INSERT of this listener that committed but whose reply was lost (answered 503)
          // left it claimed by this listener yet in nobody's hand, and a listener that died left
          // it with a lapsed claim: the retry is then the delivery, claimed here as new.
          const inHand = new Set(claims.held());
          const orphans = unique.map((w) => w.id).filter((id) => !fresh.has(id) && !inHand.has(id));
          if (orphans.length > 0) {
            const retakenAt = performance.now();
            const retaken = await query(
              `UPDATE svc_webhook_deliveries SET claimed_by = $1, claimed_until = now() + make_interval(secs => $2)
               WHERE id = ANY($3) AND processed_at IS NULL AND (claimed_by IS NULL OR claimed_by = $1 OR claimed_until < now())
               RETURNING *`,
              [me, claimSeconds, orphans],
            );
            for (const row of retaken.rows as DeliveryRow[]) fresh.set(row.id, row);
            claims.hold((retaken.rows as DeliveryRow[]).map((r) => r.id), retakenAt);
          }
        }
        const stored = fresh.size === unique.length ? fresh : new Map([...(await query('SELECT * FROM svc_webhook_deliveries WHERE id = ANY($1)', [unique.map((w) => w.id)])).rows as DeliveryRow[]].map((r) => [r.id, r]));
        const firstOf = new Map<string, Waiting>();
        for (const w of batch) {
          const row = stored.get(w.id);
          if (!row) {
            w.reject(new Error(`delivery ${w.id} was neither stored nor found`));
            continue;
          }
          // New to the database: the first request for it in this batch is the delivery, the rest its duplicates.
          const isNew = fresh.has(w.id) && !firstOf.has(w.id);
          if (isNew) firstOf.set(w.id, w);
          w.resolve({ entry: entryOf(row), duplicate: !isNew });
        }
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
  }

  return {
    path: `database ${redactDatabaseUrl(url)}`,
    claimSeconds,
    claimAbandoned,
    record(raw, headers, event) {
      const id = bodyId(raw);
      return new Promise((resolve, reject) => {
        queue.push({ id, params: [id, iso(), event, JSON.stringify(headers), raw], resolve, reject });
        startDrain();
      });
    },
    admit: (id) => claims.admit(id),
    ping: async () => void (await query('SELECT 1', [])),
    unprocessed: async () => Number((await query('SELECT count(*) AS n FROM svc_webhook_deliveries WHERE processed_at IS NULL', [])).rows[0].n),
    markProcessed: (id, outcome) => claims.finish(id, outcome),
    takeUnprocessed: () => backlog.splice(0),
    async close() {
      while (draining.size > 0) await Promise.all(draining);
      await claims.stop();
      // Deliveries claimed but not processed go back at once rather than after the lease.
      await pool.query('UPDATE svc_webhook_deliveries SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = $1 AND processed_at IS NULL', [me]).catch(() => undefined);
      await pool.end();
    },
  };
}

/** The shared journal's deliveries, newest first (`svc webhook events` with a database URL). */
export async function listSharedDeliveries(url: string, limit: number, env: Env): Promise<{ id: string; event: string | null; receivedAt: string; processed: boolean; error?: string; forwardFailed?: string[] }[]> {
  const pool = await openPool(url, { max: 1, env });
  try {
    const { rows } = await pool.query('SELECT id, event, received_at, processed_at, ok, error FROM svc_webhook_deliveries ORDER BY received_at DESC LIMIT $1', [limit]);
    return (rows as DeliveryRow[]).map((r) => ({
      id: r.id,
      event: r.event,
      receivedAt: isoOf(r.received_at),
      processed: r.processed_at !== null,
      ...(r.processed_at !== null && r.ok === false ? { error: r.error ?? 'failed' } : {}),
      // Processed, and a target never took it (src/webhook/pg-claims.ts).
      ...(r.processed_at !== null && r.ok === true && r.error?.startsWith(NOT_FORWARDED) ? { forwardFailed: [r.error.slice(NOT_FORWARDED.length)] } : {}),
    }));
  } catch (error) {
    throw databaseError(url, error);
  } finally {
    await pool.end();
  }
}

/** A time as the journal entries carry it (ISO 8601, milliseconds): what the listener stored. */
function isoOf(time: Date | string): string {
  return time instanceof Date ? time.toISOString() : time;
}
