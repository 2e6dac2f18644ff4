// The shared database's schema, versioned in svc_schema_migrations. Migrations run under a
// session advisory lock, so several machines starting at once migrate it once; each step is
// one transaction and only adds, so no migration loses what an older svc wrote.
import type { PoolClient } from 'pg';
import { MINOR_EXPONENTS } from '../../crypto/money.js';
import { StoreError } from '../errors.js';

/** pg_advisory_lock key of the migrations ("svc-migrate" as an int8). */
const MIGRATION_LOCK = 7_305_982_117_456_321;

export const STEPS: readonly string[] = [
  // 1: the ledger (docs/interface-decisions.md#idempotency-keys intents, receipts, credit notes, kept queue items).
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
  // return request. And the part of a request the merchant accepted (docs/interface-decisions.md#partial-acceptance),
  // a decision of record beside the request.
  `CREATE UNIQUE INDEX svc_credit_notes_one_per_request ON svc_credit_notes (request_id);
   CREATE INDEX svc_webhook_deliveries_received ON svc_webhook_deliveries (received_at);
   CREATE TABLE svc_accepted_parts (
     request_id text PRIMARY KEY,
     lines jsonb NOT NULL,
     accepted_at timestamptz NOT NULL DEFAULT now(),
     accepted_by text
   );`,
  // 5: the schema enforces what matters (see docs/teams.md). Times are
  // timestamptz and documents jsonb; what the checks read is in columns derived from the
  // documents (generated, or line tables filled by triggers), so no writer can set them apart;
  // CHECK constraints hold the invariants, and one document number per issuer and type.
  // Existing rows are carried: types cast, columns computed, lines expanded, and a second
  // document under one number recorded before this step is kept, marked, never refused later.
  `CREATE FUNCTION svc_minor_units(amount numeric, currency text) RETURNS bigint
     LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
     -- As src/crypto/money.ts: ISO 4217 minor units, rounded half away from zero (numeric's round).
     RETURN round(amount * 10::numeric ^ (CASE
       WHEN currency IN (${currencies(0)}) THEN 0
       WHEN currency IN (${currencies(3)}) THEN 3
       WHEN currency IN (${currencies(4)}) THEN 4
       ELSE 2 END))::bigint;

   ALTER TABLE svc_receipts
     ALTER COLUMN issued_at TYPE timestamptz USING issued_at::timestamptz,
     ALTER COLUMN record TYPE jsonb USING record::jsonb,
     ADD COLUMN issuer text GENERATED ALWAYS AS (record #>> '{template,accountingSupplierParty,partyIdentification,0,id,value}') STORED,
     ADD COLUMN currency text NOT NULL GENERATED ALWAYS AS (record #>> '{templateRequest,currency}') STORED,
     ADD COLUMN total_minor bigint NOT NULL GENERATED ALWAYS AS (svc_minor_units((record #>> '{templateRequest,totalAmount}')::numeric, record #>> '{templateRequest,currency}')) STORED,
     ADD COLUMN kept_duplicate boolean NOT NULL DEFAULT false,
     ADD CONSTRAINT svc_receipts_record_id CHECK (record ->> 'serviceReceiptId' = service_receipt_id),
     ADD CONSTRAINT svc_receipts_document_number CHECK (document_number <> '' AND record #>> '{templateRequest,documentNumber}' = document_number),
     ADD CONSTRAINT svc_receipts_currency CHECK (currency ~ '^[A-Z]{3}$'),
     ADD CONSTRAINT svc_receipts_total CHECK (total_minor >= 0);
   UPDATE svc_receipts r SET kept_duplicate = true
     WHERE EXISTS (SELECT 1 FROM svc_receipts o WHERE o.issuer = r.issuer AND o.document_number = r.document_number AND o.seq < r.seq);
   CREATE UNIQUE INDEX svc_receipts_one_per_number ON svc_receipts (issuer, document_number) WHERE NOT kept_duplicate;
   CREATE INDEX svc_receipts_listed ON svc_receipts (issued_at DESC, seq DESC);
   CREATE INDEX svc_receipts_customer ON svc_receipts ((record #>> '{lookup,by}'), (record #>> '{lookup,display}'));

   CREATE TABLE svc_receipt_lines (
     receipt text NOT NULL REFERENCES svc_receipts (service_receipt_id) ON DELETE CASCADE,
     line integer NOT NULL CHECK (line >= 0),
     product_id text NOT NULL CHECK (product_id <> ''),
     quantity numeric NOT NULL CHECK (quantity > 0),
     total_minor bigint NOT NULL CHECK (total_minor >= 0),
     PRIMARY KEY (receipt, line)
   );
   CREATE FUNCTION svc_receipt_lines_of() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO svc_receipt_lines (receipt, line, product_id, quantity, total_minor)
       SELECT NEW.service_receipt_id, p.n - 1, p.v ->> 'identifier', (p.v ->> 'quantity')::numeric, svc_minor_units((p.v ->> 'total')::numeric, NEW.currency)
       FROM jsonb_array_elements(NEW.record #> '{templateRequest,products}') WITH ORDINALITY AS p(v, n);
     RETURN NULL;
   END $$;
   CREATE TRIGGER svc_receipt_lines AFTER INSERT ON svc_receipts FOR EACH ROW EXECUTE FUNCTION svc_receipt_lines_of();
   INSERT INTO svc_receipt_lines (receipt, line, product_id, quantity, total_minor)
     SELECT r.service_receipt_id, p.n - 1, p.v ->> 'identifier', (p.v ->> 'quantity')::numeric, svc_minor_units((p.v ->> 'total')::numeric, r.currency)
     FROM svc_receipts r, jsonb_array_elements(CASE WHEN jsonb_typeof(r.record #> '{templateRequest,products}') = 'array' THEN r.record #> '{templateRequest,products}' ELSE '[]' END) WITH ORDINALITY AS p(v, n);

   ALTER TABLE svc_credit_notes
     ALTER COLUMN issued_at TYPE timestamptz USING issued_at::timestamptz,
     ALTER COLUMN record TYPE jsonb USING record::jsonb,
     ADD COLUMN issuer text,
     ADD COLUMN currency text NOT NULL GENERATED ALWAYS AS (record #>> '{templateRequest,currency}') STORED,
     ADD COLUMN total_minor bigint NOT NULL GENERATED ALWAYS AS (svc_minor_units((record #>> '{templateRequest,totalAmount}')::numeric, record #>> '{templateRequest,currency}')) STORED,
     ADD COLUMN kept_duplicate boolean NOT NULL DEFAULT false,
     ADD CONSTRAINT svc_credit_notes_record_id CHECK (record ->> 'serviceReceiptId' = service_receipt_id AND record ->> 'requestId' = request_id),
     ADD CONSTRAINT svc_credit_notes_document_number CHECK (document_number <> '' AND record ->> 'documentNumber' = document_number),
     ADD CONSTRAINT svc_credit_notes_currency CHECK (currency ~ '^[A-Z]{3}$'),
     ADD CONSTRAINT svc_credit_notes_total CHECK (total_minor >= 0);
   -- A credit note is issued by its receipt's issuer (the company the service puts in the template).
   UPDATE svc_credit_notes c SET issuer = r.issuer FROM svc_receipts r WHERE r.service_receipt_id = c.parent;
   UPDATE svc_credit_notes c SET kept_duplicate = true
     WHERE EXISTS (SELECT 1 FROM svc_credit_notes o WHERE o.issuer = c.issuer AND o.document_number = c.document_number AND o.seq < c.seq);
   CREATE UNIQUE INDEX svc_credit_notes_one_per_number ON svc_credit_notes (issuer, document_number) WHERE NOT kept_duplicate;

   CREATE TABLE svc_credit_note_lines (
     credit_note text NOT NULL REFERENCES svc_credit_notes (service_receipt_id) ON DELETE CASCADE,
     line integer NOT NULL CHECK (line >= 0),
     parent text NOT NULL,
     request_id text NOT NULL,
     original_line integer NOT NULL CHECK (original_line >= 0),
     product_id text NOT NULL CHECK (product_id <> ''),
     quantity numeric NOT NULL CHECK (quantity > 0),
     PRIMARY KEY (credit_note, line)
   );
   CREATE INDEX svc_credit_note_lines_parent ON svc_credit_note_lines (parent, original_line);
   CREATE FUNCTION svc_credit_note_lines_of() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO svc_credit_note_lines (credit_note, line, parent, request_id, original_line, product_id, quantity)
       SELECT NEW.service_receipt_id, l.n - 1, NEW.parent, NEW.request_id, (l.v ->> 'originalLine')::integer, l.v ->> 'productId', (l.v ->> 'quantity')::numeric
       FROM jsonb_array_elements(NEW.record -> 'lines') WITH ORDINALITY AS l(v, n);
     RETURN NULL;
   END $$;
   CREATE TRIGGER svc_credit_note_lines AFTER INSERT ON svc_credit_notes FOR EACH ROW EXECUTE FUNCTION svc_credit_note_lines_of();
   INSERT INTO svc_credit_note_lines (credit_note, line, parent, request_id, original_line, product_id, quantity)
     SELECT c.service_receipt_id, l.n - 1, c.parent, c.request_id, (l.v ->> 'originalLine')::integer, l.v ->> 'productId', (l.v ->> 'quantity')::numeric
     FROM svc_credit_notes c, jsonb_array_elements(CASE WHEN jsonb_typeof(c.record -> 'lines') = 'array' THEN c.record -> 'lines' ELSE '[]' END) WITH ORDINALITY AS l(v, n);

   ALTER TABLE svc_intents
     ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
     ALTER COLUMN reservation TYPE jsonb USING reservation::jsonb,
     ALTER COLUMN context TYPE jsonb USING context::jsonb,
     ADD CONSTRAINT svc_intents_kind CHECK (kind IN ('receipt', 'credit-note')),
     ADD CONSTRAINT svc_intents_state CHECK (state IN ('reserved', 'prepared', 'done', 'abandoned')),
     ADD CONSTRAINT svc_intents_prepared CHECK (state <> 'prepared' OR (body IS NOT NULL AND idempotency_key IS NOT NULL)),
     ADD CONSTRAINT svc_intents_credit_note CHECK (kind <> 'credit-note' OR (parent IS NOT NULL AND reservation IS NOT NULL)),
     ADD CONSTRAINT svc_intents_document_number CHECK (document_number <> '' AND subject <> '');

   ALTER TABLE svc_queue_items
     ALTER COLUMN item TYPE jsonb USING item::jsonb,
     ALTER COLUMN rejection TYPE jsonb USING rejection::jsonb,
     ALTER COLUMN first_seen TYPE timestamptz USING first_seen::timestamptz,
     ALTER COLUMN last_seen TYPE timestamptz USING last_seen::timestamptz,
     ADD COLUMN service_receipt_id text GENERATED ALWAYS AS (item ->> 'serviceReceiptId') STORED,
     ADD CONSTRAINT svc_queue_items_request CHECK (item ->> 'requestId' = request_id);
   CREATE INDEX svc_queue_items_receipt ON svc_queue_items (service_receipt_id);

   ALTER TABLE svc_webhook_deliveries
     ALTER COLUMN received_at TYPE timestamptz USING received_at::timestamptz,
     ALTER COLUMN processed_at TYPE timestamptz USING processed_at::timestamptz,
     ALTER COLUMN headers TYPE jsonb USING headers::jsonb;`,
  // 6: the machine that started a submission, beside its pid: on a team's database a pid alone
  // names no process. Intents recorded before this step have none (null).
  `ALTER TABLE svc_intents ADD COLUMN host text;`,
];

export const POSTGRES_SCHEMA_VERSION = STEPS.length;

/** What each step does, for `svc db status` to show the steps a database is still missing. */
export const STEP_NAMES: readonly string[] = [
  'the ledger: receipts, credit notes, submissions under way, queue items',
  'the webhook journal shared by every listener',
  'rejection reasons kept with their requests',
  'one credit note per return request (enforced); the accepted parts of requests; the journal listed by time',
  'times as timestamptz, documents as jsonb, amounts and lines in columns, constraints (one document per number and issuer), listing indexes',
  'the machine that started each submission under way, beside its pid',
];

/** The ISO 4217 currencies of `exponent` minor digits (src/crypto/money.ts), quoted for SQL. */
function currencies(exponent: number): string {
  return Object.entries(MINOR_EXPONENTS).flatMap(([code, e]) => (e === exponent ? [`'${code}'`] : [])).join(', ');
}

/** A database a newer svc migrated: this one would ignore what it added (an accepted part, a constraint). */
export class NewerSchemaError extends StoreError {}

export function refuseNewer(version: number, where: string): void {
  if (version <= POSTGRES_SCHEMA_VERSION) return;
  throw new NewerSchemaError(`the database ${where} is at schema version ${version}, newer than this svc's ${POSTGRES_SCHEMA_VERSION}`, {
    hint: 'upgrade svc on this machine: an older svc would not keep what the newer one records (nothing was changed)',
    fields: [{ path: 'schemaVersion', message: `the database is at ${version}; this svc knows up to ${POSTGRES_SCHEMA_VERSION}` }],
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
