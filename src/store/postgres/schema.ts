// The shared database's schema, versioned in svc_schema_migrations. Migrations run under a
// session advisory lock, so several machines starting at once migrate it once; each step is
// one transaction and only adds, so no migration loses what an older svc wrote.
import type { PoolClient } from 'pg';
import { StoreError } from '../errors.js';

/** pg_advisory_lock key of the migrations ("svc-migrate" as an int8). */
const MIGRATION_LOCK = 7_305_982_117_456_321;

export const STEPS: readonly string[] = [
  // 1: the ledger (CONTRACT §8 intents, receipts, credit notes, kept queue items).
  `CREATE TABLE svc_receipts (
     seq bigserial PRIMARY KEY,
     service_receipt_id text NOT NULL UNIQUE,
     document_number text NOT NULL,
     issued_at text NOT NULL,
     record text NOT NULL
   );
   CREATE TABLE svc_credit_notes (
     seq bigserial PRIMARY KEY,
     service_receipt_id text NOT NULL UNIQUE,
     parent text NOT NULL,
     request_id text NOT NULL,
     document_number text NOT NULL,
     issued_at text NOT NULL,
     record text NOT NULL
   );
   CREATE INDEX svc_credit_notes_parent ON svc_credit_notes (parent);
   CREATE TABLE svc_intents (
     seq bigserial PRIMARY KEY,
     id text NOT NULL UNIQUE,
     kind text NOT NULL,
     subject text NOT NULL,
     parent text,
     document_number text NOT NULL,
     digest text NOT NULL,
     state text NOT NULL,
     created_at text NOT NULL,
     pid integer,
     reservation text,
     idempotency_key text,
     body text,
     context text,
     result text
   );
   CREATE UNIQUE INDEX svc_intents_one_open ON svc_intents (kind, subject) WHERE state IN ('reserved', 'prepared');
   CREATE INDEX svc_intents_parent ON svc_intents (parent) WHERE state IN ('reserved', 'prepared');
   CREATE TABLE svc_receipt_locks (parent text PRIMARY KEY);
   CREATE TABLE svc_queue_items (
     request_id text PRIMARY KEY,
     item text NOT NULL,
     first_seen text NOT NULL,
     last_seen text NOT NULL
   );`,
  // 2: the webhook journal shared by every listener.
  `CREATE TABLE svc_webhook_deliveries (
     id text PRIMARY KEY,
     received_at text NOT NULL,
     event text,
     headers text NOT NULL,
     body bytea NOT NULL,
     processed_at text,
     ok boolean,
     error text,
     claimed_by text,
     claimed_until timestamptz
   );
   CREATE INDEX svc_webhook_unprocessed ON svc_webhook_deliveries (received_at) WHERE processed_at IS NULL;`,
  // 3: why the merchant rejected a request (the service takes no reason), with its kept item.
  `ALTER TABLE svc_queue_items ADD COLUMN rejection text;`,
  // 4: invariants the database enforces itself, whatever a client does: one credit note per
  // return request. And the part of a request the merchant accepted (CONTRACT §8 "Partial
  // acceptance"), a decision of record beside the request.
  `CREATE UNIQUE INDEX svc_credit_notes_one_per_request ON svc_credit_notes (request_id);
   CREATE INDEX svc_webhook_deliveries_received ON svc_webhook_deliveries (received_at);
   CREATE TABLE svc_accepted_parts (
     request_id text PRIMARY KEY,
     lines jsonb NOT NULL,
     accepted_at timestamptz NOT NULL DEFAULT now(),
     accepted_by text
   );`,
];

export const POSTGRES_SCHEMA_VERSION = STEPS.length;

/** What each step does, for `svc db status` to show the steps a database is still missing. */
export const STEP_NAMES: readonly string[] = [
  'the ledger: receipts, credit notes, submissions under way, queue items',
  'the webhook journal shared by every listener',
  'rejection reasons kept with their requests',
  'one credit note per return request (enforced); the accepted parts of requests; the journal listed by time',
];

/** A database a newer svc migrated: this one would ignore what it added (an accepted part, a constraint). */
export class NewerSchemaError extends StoreError {}

export function refuseNewer(version: number, where: string): void {
  if (version <= POSTGRES_SCHEMA_VERSION) return;
  throw new NewerSchemaError(`the database ${where} is at schema version ${version}, newer than this svc's ${POSTGRES_SCHEMA_VERSION}`, {
    hint: 'upgrade svc on this machine: an older svc would not keep what the newer one records (nothing was changed)',
  });
}

/** The database's schema version; 0 for a database svc never migrated. */
export async function schemaVersion(client: PoolClient): Promise<number> {
  const exists = await client.query(`SELECT to_regclass('svc_schema_migrations') IS NOT NULL AS present`);
  if (!(exists.rows[0] as { present: boolean }).present) return 0;
  const { rows } = await client.query('SELECT coalesce(max(version), 0) AS version FROM svc_schema_migrations');
  return Number((rows[0] as { version: number | string }).version);
}

/** Brings the database to `target` (default: this svc's version); returns the versions applied. */
export async function migrate(client: PoolClient, target = POSTGRES_SCHEMA_VERSION): Promise<number[]> {
  // Up to date: nothing to create, so an application role without the CREATE right is fine.
  if ((await schemaVersion(client)) >= target) return [];
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS svc_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const applied: number[] = [];
    // Read again under the lock: another machine may have migrated while this one waited.
    for (let version = await schemaVersion(client); version < target; version++) {
      await client.query('BEGIN');
      try {
        await client.query(STEPS[version] as string);
        await client.query('INSERT INTO svc_schema_migrations (version) VALUES ($1)', [version + 1]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(version + 1);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
