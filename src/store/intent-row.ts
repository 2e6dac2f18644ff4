// The intents table as both engines store it (same columns; SQLite keeps times and JSON as
// text, PostgreSQL as timestamptz and jsonb), and how a row reads back as an Intent.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DocumentKind, Intent, NewIntent } from './ledger.js';

export interface IntentRow {
  id: string;
  kind: DocumentKind;
  subject: string;
  parent: string | null;
  document_number: string;
  digest: string;
  state: Intent['state'];
  created_at: string | Date;
  pid: number | null;
  /** The machine that recorded it; null in rows an older svc wrote. */
  host: string | null;
  reservation: unknown;
  idempotency_key: string | null;
  body: string | null;
  context: unknown;
  result: string | null;
}

/** Open intents: reserved or prepared, not yet done or abandoned. */
export const OPEN = "state IN ('reserved', 'prepared')";

export function intentOf(row: IntentRow): Intent {
  return {
    id: row.id,
    kind: row.kind,
    subject: row.subject,
    parent: row.parent ?? undefined,
    documentNumber: row.document_number,
    digest: row.digest,
    state: row.state,
    createdAt: row.created_at instanceof Date ? row.created_at.toISOString() : row.created_at,
    pid: row.pid ?? undefined,
    host: row.host ?? undefined,
    reservation: jsonOf(row.reservation) as Intent['reservation'],
    idempotencyKey: row.idempotency_key ?? undefined,
    body: row.body ?? undefined,
    context: jsonOf(row.context),
    result: row.result ?? undefined,
  };
}

/** A JSON column as stored: text in SQLite, the value itself from PostgreSQL's jsonb. */
export function jsonOf(stored: unknown): unknown {
  if (stored === null || stored === undefined) return undefined;
  return typeof stored === 'string' ? JSON.parse(stored) : stored;
}

/** The columns a new intent is inserted with, in the order of INTENT_COLUMNS. */
export const INTENT_COLUMNS = 'id, kind, subject, parent, document_number, digest, state, created_at, pid, host, reservation, idempotency_key, body, context';

export function newIntentValues(draft: NewIntent): unknown[] {
  return [
    randomUUID(),
    draft.kind,
    draft.subject,
    draft.parent ?? null,
    draft.documentNumber,
    draft.digest,
    draft.prepared ? 'prepared' : 'reserved',
    new Date().toISOString(),
    process.pid,
    hostname(),
    draft.reservation === undefined ? null : JSON.stringify(draft.reservation),
    draft.prepared?.idempotencyKey ?? draft.idempotencyKey ?? null,
    draft.prepared?.body ?? null,
    draft.prepared ? JSON.stringify(draft.prepared.context) : null,
  ];
}

/** The columns of an intent as it stands, for carrying it into another ledger (`svc db import`). */
export function intentValues(intent: Intent): unknown[] {
  return [
    intent.id,
    intent.kind,
    intent.subject,
    intent.parent ?? null,
    intent.documentNumber,
    intent.digest,
    intent.state,
    intent.createdAt,
    intent.pid ?? null,
    intent.host ?? null,
    intent.reservation === undefined ? null : JSON.stringify(intent.reservation),
    intent.idempotencyKey ?? null,
    intent.body ?? null,
    intent.context === undefined ? null : JSON.stringify(intent.context),
  ];
}
