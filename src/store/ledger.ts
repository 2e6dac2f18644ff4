// The merchant's ledger: every receipt and credit note this profile issued, the submissions
// under way (intents) and the return requests seen in the queue. One interface, two engines:
// embedded SQLite (one machine, the default) and PostgreSQL (a team, SVC_DATABASE_URL).
//
// Callers say what they mean (reserveCreditNote, prepare, complete), never how it is kept.
// Every method that changes something is one transaction: a process killed at any
// instruction leaves either all of a change or none of it, and two processes at once see
// each other's changes whole.
//
// A submission is recorded before anything is sent (an intent), then submitted, then
// completed with the service's answer:
//
//   reserve*  ──► intent "reserved"   (checked: quantities left, counting every open intent)
//   prepare   ──► intent "prepared"   (the exact bytes and Idempotency-Key to send, kept)
//   complete  ──► intent "done"       + the receipt or credit note record, in one transaction
//   abandon   ──► intent "abandoned"  (the explicit way out, --abandon-pending)
//
// A re-run finds its open intent and sends the kept bytes with the kept key again, so the
// service replays its first answer: however often a command is killed or its answer lost,
// one document is issued and the ledger ends equal to the service.
import type { QueueItem } from '../contract/returns.js';
import type { CreditNoteRecord, ReceiptRecord, Rejection } from '../contract/records.js';

export type DocumentKind = 'receipt' | 'credit-note';

/** The process that started a submission, and its machine: on a team's database a pid alone names no process. */
export interface StartedBy {
  pid: number | undefined;
  /** os.hostname() of its machine; undefined where an older svc did not record it. */
  host: string | undefined;
}

export type IntentState = 'reserved' | 'prepared' | 'done' | 'abandoned';

/** What a credit note takes (or will take) from its receipt: enough to check the next return against it. */
export interface Credited {
  requestId: string;
  documentNumber: string;
  lines: CreditNoteRecord['lines'];
  templateRequest: CreditNoteRecord['templateRequest'];
  /** The credit note's own ID; undefined while its submission is under way. */
  serviceReceiptId?: string | undefined;
  /** When the service accepted it (its record's); undefined while its submission is under way. */
  issuedAt?: string | undefined;
  /** Set for a reservation: the submission under way (when it started, and which process on which machine). */
  pending?: ({ since: string } & StartedBy) | undefined;
}

export interface Intent {
  id: string;
  kind: DocumentKind;
  /** What the submission is about, unique among open intents of a kind: the receipt's document number, the credit note's request ID. */
  subject: string;
  /** The receipt a credit note is for. */
  parent: string | undefined;
  documentNumber: string;
  /** SHA-256 of what the document says (not of its encryption): a re-run with other content is not a resume. */
  digest: string;
  state: IntentState;
  createdAt: string;
  /** The process that recorded it. */
  pid: number | undefined;
  /** Its machine (os.hostname()); undefined for an intent an older svc recorded. */
  host: string | undefined;
  /** For a credit note: what it takes from its receipt. */
  reservation: Credited | undefined;
  /** Set by `prepare`: the request exactly as sent, and its key. */
  idempotencyKey: string | undefined;
  body: string | undefined;
  /** Set by `prepare`: what the record will need besides the service's answer. */
  context: unknown;
  /** Set by `complete`: the issued document's serviceReceiptId. */
  result: string | undefined;
}

export interface NewIntent {
  kind: DocumentKind;
  subject: string;
  parent?: string | undefined;
  documentNumber: string;
  digest: string;
  reservation?: Credited | undefined;
  /** Set when the key is known before the body (`--idempotency-key`). */
  idempotencyKey?: string | undefined;
  /** The request already built: the intent is recorded prepared, in one step (a receipt reserves nothing). */
  prepared?: Prepared | undefined;
  /**
   * For a receipt: the company the service names as its supplier. A receipt its issuer
   * already recorded under the number (issued elsewhere, imported) is refused before sending.
   */
  issuer?: string | undefined;
}

export interface Prepared {
  idempotencyKey: string;
  body: string;
  context: unknown;
}

/** A receipt's credit notes and open reservations, as the check inside `reserveCreditNote` sees them. */
export interface ReceiptCredits {
  parent: string;
  /** Issued credit notes, oldest first. */
  issued: readonly CreditNoteRecord[];
  /** Open credit-note intents of the receipt, oldest first. */
  reserved: readonly Intent[];
}

/**
 * The part of a return request the merchant accepted (docs/interface-decisions.md#partial-acceptance): the
 * service's PATCH takes only the status, so the part is a decision of record kept here, and
 * `issue` credits at most it.
 */
/** Why `keepAcceptedPart` kept nothing: the request's credit note, or the part recorded since the caller read it. */
export type PartNotKept = { creditNote: string } | { changed: AcceptedPart | undefined };

export interface AcceptedPart {
  requestId: string;
  /** Product by product, in the request's units (as `--item PRODUCT_ID:QTY` names them). */
  items: { productId: string; quantity: number }[];
  acceptedAt: string;
  /** Who recorded it: user@host (a colleague on another machine reads it). */
  acceptedBy: string | undefined;
}

export interface Reserved {
  intent: Intent;
  /** False: the intent was already open (another run's), and is to be resumed, not started again. */
  created: boolean;
}

export type Completion =
  | { kind: 'receipt'; record: ReceiptRecord }
  | { kind: 'credit-note'; record: CreditNoteRecord };

export interface ImportedRecords {
  receipts: readonly ReceiptRecord[];
  creditNotes: readonly { parent: string; record: CreditNoteRecord }[];
  /**
   * Submissions under way (open intents) with their kept bytes and key: carried, so that the
   * command run again on any machine of the ledger finishes them (the service replays its
   * answer) and their reservations count meanwhile.
   */
  intents?: readonly Intent[] | undefined;
}

export interface ImportResult {
  inserted: number;
  skipped: number;
  /** What stayed as it was because the ledger holds other content under the same ID. */
  conflicts: { kind: DocumentKind; serviceReceiptId: string }[];
  /** Open intents carried over (new ones; an intent already there, or whose document is recorded, is not counted). */
  carried?: number;
  /** Open intents not carried: the ledger has another submission of the same document under way. */
  intentConflicts?: { kind: DocumentKind; subject: string; documentNumber: string }[];
}

export interface StoreStatus {
  engine: 'sqlite' | 'postgres';
  /** A file path, or the database URL with its password removed. */
  location: string;
  schemaVersion: number;
  counts: Record<string, number>;
}

export interface LedgerStore {
  readonly engine: 'sqlite' | 'postgres';

  /** The open intent (reserved or prepared) of a kind and subject, if any. */
  openIntent(kind: DocumentKind, subject: string): Promise<Intent | undefined>;
  /** The last intent of a kind and subject whatever its state (the done one of a re-run). */
  lastIntent(kind: DocumentKind, subject: string): Promise<Intent | undefined>;

  /**
   * In one transaction: reads the receipt's credit notes and open reservations, lets `decide`
   * check the return against them (it throws to refuse) and records the intent it returns.
   * Two calls for one receipt never run at once. When the subject already has an open intent
   * (a run that was killed, or one under way), `decide` is not called and that intent is
   * returned with `created: false`, to be resumed.
   */
  reserveCreditNote(parent: string, subject: string, decide: (credits: ReceiptCredits, acceptedPart: AcceptedPart | undefined) => NewIntent): Promise<Reserved>;
  /**
   * Records a receipt intent, or returns the subject's open one (`created: false`), or its
   * last done one when another process finished it meanwhile (`created: false`, state done).
   * Refuses (NumberTakenError, exit 7) when the ledger records a receipt of the draft's issuer
   * under its number without a submission of it (imported from another machine).
   */
  reserveReceipt(intent: NewIntent): Promise<Reserved>;
  /**
   * Keeps the exact request for an intent that has none yet, and returns the intent as stored:
   * of two processes preparing one intent, the first one's bytes win and both send those.
   */
  prepare(id: string, prepared: Prepared): Promise<Intent>;
  /** Marks the intent done and writes its record, in one transaction; doing it twice is harmless. */
  complete(id: string, completion: Completion): Promise<void>;
  /** Closes an open intent without a document: its reservation stops counting. */
  abandon(id: string): Promise<void>;

  receipt(serviceReceiptId: string): Promise<ReceiptRecord | undefined>;
  /** Newest first. */
  receipts(): Promise<ReceiptRecord[]>;
  /** Issued credit notes of a receipt, oldest first. */
  creditNotes(parent: string): Promise<CreditNoteRecord[]>;
  /** A receipt's credit notes and open reservations as they are now (what `reserveCreditNote` will check again). */
  credits(parent: string): Promise<ReceiptCredits>;

  /** Keeps queue items as they were first seen (docs/interface-decisions.md#outstanding-queue); later sightings refresh them. */
  rememberQueueItems(items: readonly QueueItem[]): Promise<void>;
  queueItem(requestId: string): Promise<QueueItem | undefined>;
  /**
   * Keeps why the merchant rejected a request (the service takes no reason) with its kept item:
   * remember that first. A request is rejected once: the first rejection kept stands, and a
   * later one is not kept over it. Answers `{ earlier }`, the rejection kept before (a
   * colleague's perhaps), which stands, or `{}` when this one was kept; undefined when no item
   * is kept.
   */
  keepRejection(requestId: string, rejection: Rejection): Promise<{ earlier?: Rejection } | undefined>;
  rejection(requestId: string): Promise<Rejection | undefined>;
  /**
   * Records (or replaces) the part of a request the merchant accepted, unless the request has
   * a credit note, issued or being submitted (`{ creditNote }`), or `unchanged` says the part
   * recorded now is not the one the caller decided from (`{ changed }`, a colleague's since):
   * then nothing is kept. Undefined when kept. `reserveCreditNote` hands `decide` the part as
   * it is under the same lock, so a part and a credit note of one request never pass each other.
   */
  keepAcceptedPart(part: AcceptedPart, unchanged?: (now: AcceptedPart | undefined) => boolean): Promise<PartNotKept | undefined>;
  acceptedPart(requestId: string): Promise<AcceptedPart | undefined>;

  /**
   * Adds records issued elsewhere (the JSON files of an older svc, another machine's ledger),
   * in one transaction. A record already there is skipped; one whose ID is there with other
   * content is reported as a conflict and left as it is, never overwritten.
   */
  importRecords(records: ImportedRecords): Promise<ImportResult>;
  /** Every receipt and credit note, for `svc db import` into another ledger. */
  allRecords(): Promise<ImportedRecords>;
  /** Every submission under way (open intents), oldest first. */
  openIntents(): Promise<Intent[]>;

  status(): Promise<StoreStatus>;
  close(): Promise<void>;
}
