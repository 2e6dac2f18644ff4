// What `receipt send` and `credit-note issue` share about submitting a document under an
// intent of the ledger (src/store/ledger.ts): a stable Idempotency-Key (docs/interface-decisions.md#idempotency-keys), the
// digest that tells a re-run of the same document from another document under the same
// number, and the send itself, where the service's "already submitted" answer ends the
// command without issuing anything again.
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { ApiError, ExitCode, SvcError, UsageError } from '../errors.js';
import type { DocumentKind, Intent, LedgerStore, StartedBy } from '../store/ledger.js';

/** The service already holds a document under this key or number (exit 7); nothing was issued again. */
export class AlreadySubmittedError extends SvcError {
  override readonly exitCode = ExitCode.conflict;
  /** The receipt held under this document number, when the service or the ledger names it. */
  readonly serviceReceiptId: string | undefined;
  constructor(message: string, options: { hint?: string; cause?: unknown; serviceReceiptId?: string | undefined } = {}) {
    super(message, options);
    this.serviceReceiptId = options.serviceReceiptId;
  }
}

/**
 * docs/interface-decisions.md#idempotency-keys: derived from what identifies the document (issuer, document type, document
 * number), so that a retry from another machine, or after the local ledger was lost, carries
 * the same key and the service recognises it.
 */
export function derivedIdempotencyKey(issuer: string, kind: DocumentKind, documentNumber: string): string {
  const digest = createHash('sha256').update(`svc/v1\0${issuer}\0${kind}\0${documentNumber}`).digest('hex');
  return `svc-${kind}-${digest.slice(0, 40)}`;
}

/** SHA-256 of a value's JSON with members in name order: equal for equal content, whatever the order it was built in. */
export function contentDigest(value: unknown): string {
  return createHash('sha256').update(sortedJson(value)).digest('hex');
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * "pid 4242 on this machine", "pid 4242 on laptop-7", or "pid 4242, its machine not recorded"
 * (an older svc's intent): this machine is said as such, another by its name; "" when
 * neither is known.
 */
export function startedOn({ pid, host }: StartedBy, here = hostname()): string {
  const where = host === undefined ? undefined : host === here ? 'this machine' : host;
  if (pid === undefined) return where === undefined ? '' : `on ${where}`;
  return where === undefined ? `pid ${pid}, its machine not recorded` : `pid ${pid} on ${where}`;
}

/**
 * "since 2026-11-23T10:00:00.000Z (pid 4242 on laptop-7)": when and by which process, on which
 * machine ("this machine" for this one), a submission started.
 */
export function startedBy(intent: Pick<Intent, 'createdAt' | 'pid' | 'host'>): string {
  const who = startedOn(intent);
  return `since ${intent.createdAt}${who === '' ? '' : ` (${who})`}`;
}

/**
 * Sends an intent's kept request with its kept key. The service replays its first answer to
 * the same key and body; a 409 `idempotency_key_reused` means it holds a document under this
 * key from other bytes (another machine's run): reported, never issued again, and the intent
 * is closed so that it holds nothing back.
 */
export async function sendPrepared<T>(
  ledger: LedgerStore,
  intent: Intent,
  what: string,
  send: (body: unknown, idempotencyKey: string) => Promise<T>,
): Promise<T> {
  if (intent.body === undefined || intent.idempotencyKey === undefined) throw new Error(`intent ${intent.id} has no prepared request`);
  try {
    return await send(JSON.parse(intent.body), intent.idempotencyKey);
  } catch (error) {
    if (error instanceof ApiError && error.status === 409 && error.code === 'idempotency_key_reused') {
      await ledger.abandon(intent.id);
      const first = error.details.find((d) => d.path === 'serviceReceiptId')?.message;
      throw new AlreadySubmittedError(
        `${what} was already submitted${first === undefined ? '' : ` as ${first}`} (Idempotency-Key ${intent.idempotencyKey}); it was not issued again`,
        {
          hint:
            'the service holds this document already (another machine, or a run whose record this ledger lacks): do not issue it again under another number; finish it where it was started, or `svc db import` that machine\'s ledger',
          cause: error,
          serviceReceiptId: first,
        },
      );
    }
    throw error;
  }
}

/** What the sandbox and common services accept as an Idempotency-Key: 1 to 255 visible ASCII characters. */
export function checkIdempotencyKey(key: string): string {
  if (/^[\x21-\x7e]{1,255}$/.test(key)) return key;
  throw new UsageError('--idempotency-key must be 1 to 255 visible ASCII characters (letters, digits, punctuation; no spaces)', {
    hint: 'for example a UUID, or leave it out for the key derived from the issuer and the document number',
  });
}
