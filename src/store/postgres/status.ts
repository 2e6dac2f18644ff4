// What `svc db status` says of the shared database, read without changing anything: its
// schema version, the steps this svc would still apply, and the counts of what the tables
// that exist hold. A database svc never migrated is described, never created.
import type { PoolClient } from 'pg';
import { redactDatabaseUrl } from '../database-url.js';
import type { StoreStatus } from '../ledger.js';
import { OPEN } from '../intent-row.js';
import { POSTGRES_SCHEMA_VERSION, STEP_NAMES, schemaVersion } from './schema.js';

const COUNTS: readonly [name: string, table: string, sql: string][] = [
  ['receipts', 'svc_receipts', 'SELECT count(*) AS n FROM svc_receipts'],
  ['creditNotes', 'svc_credit_notes', 'SELECT count(*) AS n FROM svc_credit_notes'],
  ['openIntents', 'svc_intents', `SELECT count(*) AS n FROM svc_intents WHERE ${OPEN}`],
  ['queueItems', 'svc_queue_items', 'SELECT count(*) AS n FROM svc_queue_items'],
  ['acceptedParts', 'svc_accepted_parts', 'SELECT count(*) AS n FROM svc_accepted_parts'],
  ['webhookDeliveries', 'svc_webhook_deliveries', 'SELECT count(*) AS n FROM svc_webhook_deliveries'],
];

export interface DatabaseStatus extends StoreStatus {
  /** The steps this svc would apply (`svc db migrate`), by version. */
  pending: { version: number; does: string }[];
  /** This svc's schema version. */
  svcSchemaVersion: number;
}

export async function readDatabaseStatus(client: PoolClient, url: string): Promise<DatabaseStatus> {
  const version = await schemaVersion(client);
  const counts: Record<string, number> = {};
  for (const [name, table, sql] of COUNTS) {
    const present = (await client.query('SELECT to_regclass($1) IS NOT NULL AS present', [table])).rows[0] as { present: boolean };
    if (present.present) counts[name] = Number(((await client.query(sql)).rows[0] as { n: string }).n);
  }
  const pending = [];
  for (let v = version + 1; v <= POSTGRES_SCHEMA_VERSION; v++) pending.push({ version: v, does: STEP_NAMES[v - 1] ?? '' });
  return { engine: 'postgres', location: redactDatabaseUrl(url), schemaVersion: version, svcSchemaVersion: POSTGRES_SCHEMA_VERSION, pending, counts };
}
