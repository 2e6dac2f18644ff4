// `svc credit-note issue [REQUEST_ID]`: the whole of INTERFACE.md "RETURN_REQUESTED"
// processing. The request (or the part of it named with --item, which a PARTIALLY_ACCEPTED
// request needs) is decrypted and checked against the merchant's own record of the
// receipt, the credit note is computed from that record (never from the customer's figures)
// and shown, and only after the merchant confirms does anything reach the service:
// template → resolve the owner's current devices → inject the customer → encrypt per device
// → submit with one Idempotency-Key → record in the ledger, so the next over-return is caught.
// The check is made again inside the ledger's transaction that reserves what the credit
// note takes (src/store/ledger.ts), counting every reservation still being submitted, so
// two issues against one receipt, on one machine or on several sharing a database, cannot
// both credit its last items. The exact request and its key are kept before they are sent:
// a run killed at any point, or whose answer was lost, is finished by running it again.
import type { Caller } from '../../api/caller.js';
import { pickRequestId } from '../../credit-notes/pick.js';
import { callerForRequests } from '../../credit-notes/request-grant.js';
import { mayBePrefix, resolveRequestIds } from '../../credit-notes/request-id.js';
import {
  RequestStateError,
  createCreditNoteTemplate,
  setReturnRequestStatus,
  submitEncryptedCreditNote,
} from '../../api/credit-note.js';
import { resolveRecipient } from '../../api/recipient.js';
import type { CreditNoteSubmission, CreditNoteSubmissionResult, EncryptedCreditNoteEntry } from '../../contract/credit-note.js';
import type { EncryptedReceiptEntry } from '../../contract/receipt.js';
import type { Recipient } from '../../contract/recipient.js';
import { ReturnRequest, type QueueItem } from '../../contract/returns.js';
import { CreditNoteTemplateRequest, ReceiptTemplateRequest } from '../../contract/template.js';
import { parseOrThrow, validate } from '../../contract/validate.js';
import { approvedPart, type ApprovedPart } from '../../credit-notes/approved.js';
import { checkReturn, quantityOf, type Allocation } from '../../credit-notes/check.js';
import { computeCreditNote, type ComputedCreditNote } from '../../credit-notes/compute.js';
import { encryptedPart } from '../../credit-notes/queue.js';
import type { CreditNoteRecord } from '../../credit-notes/records.js';
import { findQueueItem } from '../../credit-notes/queue-cache.js';
import { decryptOutcome } from '../../crypto/decrypt-batch.js';
import { keyFingerprint } from '../../crypto/keys.js';
import { loadKeyring } from '../../crypto/keystore.js';
import { formatMoney } from '../../crypto/money.js';
import { CancelError, DecryptError, NotFoundError, SvcError, UsageError, ValidationError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { inputName, readJsonInput } from '../../io/input.js';
import { writeJson } from '../../io/output.js';
import { maskLast4 } from '../../io/redact.js';
import { printable } from '../../io/printable.js';
import { wrapText } from '../../io/wrap.js';
import { withSpinner } from '../../io/spinner.js';
import { canPrompt, note, println } from '../../io/streams.js';
import { askPart, keepAcceptedPart, withinAcceptedPart } from '../../credit-notes/accepted-part.js';
import { supplierPartyIdOf } from '../../receipts/document.js';
import { encryptForRecipients } from '../../receipts/encrypt.js';
import { finalDocument } from '../../receipts/final-document.js';
import { loadReceiptRecord, ReceiptRecord } from '../../receipts/records.js';
import { checkIdempotencyKey, contentDigest, derivedIdempotencyKey, sendPrepared, startedBy } from '../../receipts/submission.js';
import { NotRecordedError } from '../../store/errors.js';
import type { Credited, Intent, LedgerStore, ReceiptCredits } from '../../store/ledger.js';
import { parseItem, type ItemQuantity } from '../item-flag.js';
import { hashedTemplate } from '../receipt/template-step.js';
import { counted } from '../../io/plural.js';

export interface IssueOptions {
  /** Undefined: chosen on a terminal among the open requests. */
  requestId?: string | undefined;
  /** A receipt record JSON file, for a receipt another machine issued. */
  original?: string | undefined;
  documentNumber?: string | undefined;
  /** PRODUCT_ID:QTY, repeatable: credit only these (required for a PARTIALLY_ACCEPTED request); none: all of the request. */
  item?: string[] | undefined;
  yes?: boolean | undefined;
  complete?: boolean | undefined;
  /** Overrides the key derived from the issuer and the document number. */
  idempotencyKey?: string | undefined;
  /** Closes a submission of this request's credit note left under way, instead of resuming it. */
  abandonPending?: boolean | undefined;
  /** Runs every check and shows the credit note, then stops: nothing is reserved or sent. */
  dryRun?: boolean | undefined;
  /** Not a flag: the caller (triage) has just shown this credit note, so it is not printed again. */
  previewShown?: boolean | undefined;
}

/** Days after the receipt's issue date within which a return is accepted; SVC_RETURN_WINDOW_DAYS overrides. */
export const DEFAULT_RETURN_WINDOW_DAYS = 30;
const WINDOW_VARIABLE = 'SVC_RETURN_WINDOW_DAYS';
/** The only algorithm CONTRACT.md §2 defines a wrap for. */
const SUPPORTED_ALGORITHM = 'RSA_2048';
/** Statuses after which the customer is owed nothing more for this request. */
const CLOSED = new Set(['REJECTED', 'CANCELLED', 'COMPLETED']);

interface Original {
  record: ReceiptRecord;
  request: ReceiptTemplateRequest;
}

/** The decrypted request, the part of it to credit and the receipt it is for: what the check starts from. */
interface Opened {
  item: QueueItem;
  returnRequest: ReturnRequest;
  approved: ApprovedPart;
  original: Original;
}

/** The request checked against the earlier credit notes, and the credit note computed from them. */
interface Prepared extends Opened {
  previous: readonly Credited[];
  allocations: Allocation[];
  credit: ComputedCreditNote;
}

/** What the check and the credit note depend on besides the request and the earlier credit notes. */
interface Terms {
  documentNumber: string | undefined;
  /** One instant for the preview and the check under the lock, so that both compute the same credit note from the same records. */
  now: number;
  windowDays: number;
}

interface Issued {
  result: CreditNoteSubmissionResult;
  finalHash: string;
  recipients: number;
}

/** What the record needs besides the reservation and the service's answer; kept with the prepared request. */
interface Built {
  templateHash: string;
  finalHash: string;
  matchId: string;
  recipients: CreditNoteRecord['recipients'];
}

export async function run(given: IssueOptions, f: Factory): Promise<void> {
  if (given.documentNumber !== undefined && given.documentNumber.trim() === '') {
    throw new UsageError('--document-number must not be empty');
  }
  if (given.idempotencyKey !== undefined) checkIdempotencyKey(given.idempotencyKey);
  const items = (given.item ?? []).map(parseItem);
  let opts: IssueOptions & { requestId: string } = {
    ...given,
    requestId: given.requestId ?? (await pickRequestId(f, { command: 'credit-note issue', usage: '[options] [request-id]', purpose: 'credit', verb: 'issue' })),
  };
  const terms: Terms = { documentNumber: opts.documentNumber?.trim(), now: f.clock.now(), windowDays: returnWindowDays(f) };
  const caller = await callerForRequests(f, [opts.requestId]);
  const ledger = await f.ledger();

  let intent = await ledger.openIntent('credit-note', opts.requestId);
  if (!intent && mayBePrefix(opts.requestId)) {
    // A unique prefix of the ID will do; from here on, the whole ID (its open intent too).
    opts = { ...opts, requestId: (await resolveRequestIds(f, caller, [opts.requestId]))[0] ?? opts.requestId };
    intent = await ledger.openIntent('credit-note', opts.requestId);
  }
  if (intent && opts.abandonPending) {
    await ledger.abandon(intent.id);
    note(f.io, `abandoned the submission of credit note ${intent.documentNumber} started ${startedBy(intent)}`);
    intent = undefined;
  }
  let item: QueueItem;
  let whole = true;
  if (intent && opts.dryRun) {
    note(f.io, `dry run: credit note ${intent.documentNumber} of request ${opts.requestId} is being submitted (${startedBy(intent)}); run without --dry-run to finish it`);
    return;
  }
  if (intent) {
    note(f.io, `resuming the submission of credit note ${intent.documentNumber} started ${startedBy(intent)}: the same request under the same Idempotency-Key`);
    item = await findQueueItem(f, caller, opts.requestId);
    // The same command again: the same --item flags as the run that reserved it.
    whole = item.status !== 'PARTIALLY_ACCEPTED' && items.length === 0;
  } else {
    const opened = await openRequest(f, caller, opts, items, canPrompt(f.io));
    ({ item } = opened);
    whole = opened.approved.whole;
    const receipt = item.serviceReceiptId;
    const shown = prepare(opened, creditedOf(await ledger.credits(receipt)), terms);
    if (!opts.previewShown) preview(f, shown.credit, shown.returnRequest, shown.previous, { issueDate: shown.original.request.issueDate, now: terms.now, windowDays: terms.windowDays });
    if (opts.dryRun) {
      if (f.io.json) writeJson(f.io, { dryRun: true, requestId: item.requestId, creditNote: shown.credit.request, totals: shown.credit.totals, currency: shown.credit.currency });
      note(f.io, `dry run: every check passed; credit note ${shown.credit.request.documentNumber} was not issued, nothing was reserved or sent`);
      return;
    }
    await confirm(f, opts, shown.credit);
    const reserved = await ledger.reserveCreditNote(receipt, item.requestId, (credits) => {
      // Another issue may have credited or reserved the receipt since the preview; none can now.
      const prepared = prepare(opened, creditedOf(credits), terms);
      if (!sameCreditNote(shown, prepared)) changedSincePreview(f, opts, shown, prepared);
      const reservation = creditedBy(prepared);
      return {
        kind: 'credit-note',
        subject: item.requestId,
        parent: receipt,
        documentNumber: reservation.documentNumber,
        digest: contentDigest(reservation),
        reservation,
        idempotencyKey: opts.idempotencyKey,
      };
    });
    intent = reserved.intent;
    if (!reserved.created) note(f.io, `another svc started the credit note of request ${item.requestId} ${startedBy(intent)}; finishing that one`);
  }
  const issued = await submit(f, caller, ledger, intent, opts.original);
  const status = opts.complete ? await completeRequest(f, caller, item, whole, issued.result) : undefined;
  report(f, intent, item.requestId, issued, status);
}

/** What `issue` would do, as `show --json` has it: shaped like `issue --dry-run --json`, with the checks' outcome. */
export type DecisionJson =
  | { requestId: string; checks: 'passed'; creditNote: unknown; totals: ComputedCreditNote['totals']; currency: string }
  | { requestId: string; checks: 'failed'; issues: { path: string; message: string }[] }
  | { requestId: string; checks: 'not run'; reason: string; hint?: string };

export interface Decision {
  json: DecisionJson;
  /** For a person: the credit note and its checks, or why `issue` would refuse it. */
  text: string;
}

/**
 * What `issue` would do with a request (or the part of it `items` name), for `show` and
 * `triage`: the credit note it would issue (lines with names, quantities bought and asked
 * for, amounts, total), the return window and what the receipt was already credited — or
 * the checks it would fail. Nothing is reserved or sent. `found`: the request's queue item, when the caller has it.
 */
export async function decisionOf(f: Factory, caller: Caller, requestId: string, items: readonly ItemQuantity[] = [], found?: QueueItem): Promise<Decision> {
  try {
    const opened = await openRequest(f, caller, { requestId, found }, items);
    const terms: Terms = { documentNumber: undefined, now: f.clock.now(), windowDays: returnWindowDays(f) };
    const ledger = await f.ledger();
    const shown = prepare(opened, creditedOf(await ledger.credits(opened.item.serviceReceiptId)), terms);
    const text = previewText(shown.credit, shown.returnRequest, shown.previous, { issueDate: shown.original.request.issueDate, now: terms.now, windowDays: terms.windowDays });
    const flags = items.map((i) => ` --item ${i.productId}:${i.quantity}`).join('');
    return {
      json: { requestId: opened.item.requestId, checks: 'passed', creditNote: shown.credit.request, totals: shown.credit.totals, currency: shown.credit.currency },
      text: `${text}\nchecks: all passed; \`svc credit-note issue ${requestId}${flags}\` would issue this (--dry-run shows it without issuing)`,
    };
  } catch (error) {
    if (error instanceof ValidationError) {
      const issues = error.issues.map((i) => ({ path: String(i.path), message: i.message }));
      // A customer's text (a product ID) can be in the path: made visible, never sent to the terminal as is.
      return { json: { requestId, checks: 'failed', issues }, text: `checks: \`issue\` would refuse it:\n${issues.map((i) => `  ${printable(i.path)}: ${printable(i.message)}`).join('\n')}` };
    }
    if (error instanceof SvcError) {
      return {
        json: { requestId, checks: 'not run', reason: error.message, ...(error.hint ? { hint: error.hint } : {}) },
        text: `checks: not run: ${printable(error.message)}${error.hint ? ` (${printable(error.hint)})` : ''}`,
      };
    }
    throw error;
  }
}

/** decisionOf, for a person, on stderr (triage, beside its prompts). */
export async function describeDecision(f: Factory, caller: Caller, requestId: string, items: readonly ItemQuantity[] = []): Promise<void> {
  note(f.io, (await decisionOf(f, caller, requestId, items)).text);
}

function creditedOf(credits: ReceiptCredits): Credited[] {
  return [...credits.issued, ...credits.reserved.flatMap((i) => (i.reservation ? [{ ...i.reservation, pending: { since: i.createdAt, pid: i.pid } }] : []))];
}

/** What the credit note takes from its receipt: its reservation while it is submitted. */
function creditedBy(prepared: Prepared): Credited {
  return {
    requestId: prepared.item.requestId,
    documentNumber: prepared.credit.request.documentNumber,
    lines: prepared.allocations.map((a) => ({ originalLine: a.originalLine, productId: a.productId, quantity: quantityOf(a.quantity) })),
    templateRequest: prepared.credit.request,
  };
}

/**
 * What to credit of a request accepted in part: the recorded part, or less (--item); more is
 * refused naming the part. With none recorded (accepted elsewhere, or by an older svc) the
 * part is --item's, or asked for on a terminal and then recorded as the decision.
 */
async function partToCredit(f: Factory, requestId: string, request: ReturnRequest, items: readonly ItemQuantity[], ask: boolean): Promise<readonly ItemQuantity[]> {
  const recorded = withinAcceptedPart(await (await f.ledger()).acceptedPart(requestId), items);
  if (recorded !== undefined) return recorded;
  if (items.length > 0 || !ask) return items;
  note(f.io, `return request ${requestId} was accepted in part, and no part is recorded (accepted on another machine, or by an older svc)`);
  const asked = await askPart(f, requestId, request);
  await keepAcceptedPart(f, requestId, asked);
  return asked;
}

async function openRequest(
  f: Factory,
  caller: Caller,
  opts: { requestId: string; original?: string | undefined; found?: QueueItem | undefined },
  items: readonly ItemQuantity[],
  ask = false,
): Promise<Opened> {
  const item = opts.found ?? (await findQueueItem(f, caller, opts.requestId));
  if (CLOSED.has(item.status)) {
    throw new RequestStateError(`return request ${item.requestId} is ${item.status}: there is nothing to credit`, {
      hint: 'see the open requests with `svc credit-note poll --status PENDING`',
    });
  }
  const returnRequest = await decryptRequest(f, item);
  const part = item.status === 'PARTIALLY_ACCEPTED' ? await partToCredit(f, item.requestId, returnRequest, items, ask) : items;
  const approved = approvedPart({ requestId: item.requestId, status: item.status, request: returnRequest, items: part });
  const original = await originalReceipt(f, opts.original, item.serviceReceiptId, item.requestId);
  return { item, returnRequest, approved, original };
}

/** The request checked against the earlier credit notes of its receipt, and the credit note computed from the merchant's record. */
function prepare(opened: Opened, previous: readonly Credited[], terms: Terms): Prepared {
  const { item, returnRequest, approved, original } = opened;
  const earlier = previous.find((n) => n.requestId === item.requestId);
  if (earlier) {
    throw new RequestStateError(`return request ${item.requestId} was already credited by ${earlier.documentNumber} (${earlier.serviceReceiptId ?? 'being submitted'})`, {
      hint: markDoneHint(item),
    });
  }
  const allocations = checkReturn({
    requestId: item.requestId,
    status: item.status,
    serviceReceiptId: item.serviceReceiptId,
    returnRequest,
    original: { serviceReceiptId: original.record.serviceReceiptId, request: original.request },
    previous,
    now: terms.now,
    windowDays: terms.windowDays,
    approved: approved.lines,
  });
  const credit = computeCreditNote({
    original: original.request,
    allocations,
    previous,
    documentNumber: documentNumberFor(original.request.documentNumber, previous, terms.documentNumber),
    issueDate: new Date(terms.now).toISOString(),
    note: `Credit for return request ${item.requestId}`,
  });
  return { ...opened, previous, allocations, credit };
}

/**
 * --document-number, or the next `CN-<receipt>-<n>`; never the number of an earlier credit
 * note of the receipt, which would leave two documents with one number in the books.
 */
function documentNumberFor(receiptNumber: string, previous: readonly Credited[], chosen: string | undefined): string {
  if (chosen !== undefined) {
    const earlier = previous.find((n) => n.documentNumber === chosen);
    if (earlier === undefined) return chosen;
    throw new UsageError(`--document-number ${chosen} is already the number of credit note ${earlier.serviceReceiptId ?? `(being submitted ${pendingSince(earlier)})`} of this receipt`, {
      hint: 'nothing was submitted; give another number, or leave out --document-number for the next free one',
    });
  }
  const taken = new Set(previous.map((n) => n.documentNumber));
  let n = previous.length + 1;
  while (taken.has(`CN-${receiptNumber}-${n}`)) n++;
  return `CN-${receiptNumber}-${n}`;
}

/** A credited request is closed with COMPLETED, which only an accepted one can move to (CONTRACT.md §6). */
function markDoneHint(item: QueueItem): string {
  const complete = `\`svc credit-note complete ${item.requestId}\``;
  if (item.status !== 'PENDING') return `mark it done with ${complete}`;
  return `mark it done: accept it with \`svc credit-note accept ${item.requestId}\` (add --partial if only part was credited), then ${complete}`;
}

function sameCreditNote(a: Prepared, b: Prepared): boolean {
  return JSON.stringify(a.credit.request) === JSON.stringify(b.credit.request);
}

/**
 * Credit notes recorded since the preview left enough to return, but changed the figures
 * (the document number, a cent of a prorated share). With --yes the new figures are shown
 * and issued; a merchant who confirmed the old ones is asked to look again.
 */
function changedSincePreview(f: Factory, opts: IssueOptions, shown: Prepared, prepared: Prepared): void {
  const seen = new Set(shown.previous.map((n) => n.documentNumber));
  const others = prepared.previous.filter((n) => !seen.has(n.documentNumber)).map((n) => (n.pending ? `${n.documentNumber} (being submitted ${pendingSince(n)})` : n.documentNumber));
  const receipt = prepared.item.serviceReceiptId;
  const what =
    others.length > 0
      ? `receipt ${receipt} was credited by ${others.join(', ')} after this credit note was shown`
      : `the credit note records of receipt ${receipt} changed after this credit note was shown`;
  if (!opts.yes) {
    throw new RequestStateError(`${what}, which changes it`, {
      hint: `nothing was submitted; run \`svc credit-note issue ${prepared.item.requestId}\` again to see the new figures`,
    });
  }
  note(f.io, `${what}; issuing it as it is now:`);
  preview(f, prepared.credit, prepared.returnRequest);
}

function pendingSince(credited: Credited): string {
  const { pending } = credited;
  return pending ? `since ${pending.since}${pending.pid === undefined ? '' : `, pid ${pending.pid}`}` : '';
}

/**
 * The issuance sequence under the intent: the request is built (template → devices →
 * encryption) and kept with its key unless an earlier run kept one; then it is sent and the
 * credit note recorded with the intent closed. Every step before the record can be killed
 * and run again.
 */
async function submit(f: Factory, caller: Caller, ledger: LedgerStore, intent: Intent, originalFile: string | undefined): Promise<Issued> {
  const reservation = reservationOf(intent);
  if (intent.body === undefined) {
    const built = await build(f, caller, intent, reservation, originalFile);
    intent = await ledger.prepare(intent.id, built);
  }
  const built = intent.context as Built;
  const what = `credit note ${intent.documentNumber}`;
  const result = await sendPrepared(ledger, intent, what, (body, key) =>
    withSpinner(f.io, `submitting for ${counted(built.recipients.length, 'device')}`, () => submitEncryptedCreditNote(caller, body as CreditNoteSubmission, key)),
  );
  if (result.templateHash !== built.templateHash) {
    note(f.io, `warning: the service reports templateHash ${result.templateHash}, this svc computed ${built.templateHash}`);
  }
  const record: CreditNoteRecord = {
    serviceReceiptId: result.serviceReceiptId,
    requestId: reservation.requestId,
    documentNumber: reservation.documentNumber,
    issuedAt: new Date(f.clock.now()).toISOString(),
    lines: reservation.lines,
    templateRequest: reservation.templateRequest,
    templateHash: built.templateHash,
    finalHash: built.finalHash,
    matchId: built.matchId,
    recipients: built.recipients,
    submission: result,
  };
  try {
    await ledger.complete(intent.id, { kind: 'credit-note', record });
  } catch (error) {
    throw new NotRecordedError(`${what} was issued as ${result.serviceReceiptId}, but it could not be recorded: ${error instanceof Error ? error.message : error}`, {
      hint: `run the same command again once the ledger can be written: it records the credit note without issuing it again`,
      cause: error,
    });
  }
  note(f.io, `${what} issued to ${counted(built.recipients.length, 'device')}; recorded in the ledger`);
  return { result, finalHash: built.finalHash, recipients: built.recipients.length };
}

function reservationOf(intent: Intent): Credited {
  if (intent.reservation === undefined || intent.parent === undefined) throw new Error(`credit-note intent ${intent.id} has no reservation`);
  return intent.reservation;
}

/** Template → the receipt's current devices → final document → encrypted per device, with the key it goes under. */
async function build(
  f: Factory,
  caller: Caller,
  intent: Intent,
  reservation: Credited,
  originalFile: string | undefined,
): Promise<{ idempotencyKey: string; body: string; context: Built }> {
  const parent = intent.parent as string;
  const request = parseOrThrow(CreditNoteTemplateRequest, reservation.templateRequest, `the reservation of credit note ${intent.documentNumber}`);
  const { document: template, templateHash, canonical } = await hashedTemplate(f, 'creating the credit note template', () =>
    createCreditNoteTemplate(caller, request),
  );
  const match = await withSpinner(f.io, `resolving the devices of receipt ${parent}`, () =>
    resolveRecipient(caller, { request: { serviceReceiptId: parent }, kind: 'receipt', display: parent }),
  );
  const recipients = encryptable(f, match.recipients);
  const { record: original } = await originalReceipt(f, originalFile, parent, reservation.requestId);
  const customer = original.customer;
  const finalDoc = finalDocument(canonical, customer);
  const submission: CreditNoteSubmission = {
    matchId: match.matchId,
    parentServiceReceiptId: parent,
    encryptedCreditNotes: encryptForRecipients(finalDoc, customer, recipients, supplierPartyIdOf(template)).map(asCreditNoteEntry),
    templateHash,
  };
  const context: Built = {
    templateHash,
    finalHash: finalDoc.finalHash,
    matchId: match.matchId,
    recipients: recipients.map((r) => ({ recipientId: r.recipientId, receiverType: r.receiverType, keyId: keyFingerprint(r.publicKey) })),
  };
  const idempotencyKey = intent.idempotencyKey ?? derivedIdempotencyKey(supplierPartyIdOf(template), 'credit-note', intent.documentNumber);
  return { idempotencyKey, body: JSON.stringify(submission), context };
}

function returnWindowDays(f: Factory): number {
  const value = f.env[WINDOW_VARIABLE];
  if (value === undefined || value === '') return DEFAULT_RETURN_WINDOW_DAYS;
  const days = Number(value);
  if (Number.isInteger(days) && days >= 0) return days;
  throw new UsageError(`${WINDOW_VARIABLE}=${value} is not a whole number of days`, { hint: `unset it for the default of ${DEFAULT_RETURN_WINDOW_DAYS} days` });
}

async function decryptRequest(f: Factory, item: QueueItem): Promise<ReturnRequest> {
  const outcome = decryptOutcome(encryptedPart(item), await loadKeyring(f));
  if (!outcome.ok) throw new DecryptError(`return request ${item.requestId}: ${outcome.error}`);
  return parseOrThrow(ReturnRequest, outcome.value, `return request ${item.requestId}`);
}

/** The local record of the receipt (or --original's); a receipt without one is not provably this merchant's. */
async function originalReceipt(f: Factory, file: string | undefined, serviceReceiptId: string, requestId: string): Promise<Original> {
  let record: ReceiptRecord;
  if (file !== undefined) {
    const parsed = validate(ReceiptRecord, await readJsonInput(file, f));
    if (!parsed.success) {
      throw new ValidationError(inputName(file), parsed.issues, {
        hint: '--original takes the receipt record `svc receipt send` kept: its element of `svc receipt list --json` on the machine that issued it',
      });
    }
    record = parsed.data;
  } else {
    try {
      record = await loadReceiptRecord(f, serviceReceiptId);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      throw new ValidationError(
        `return request ${requestId}`,
        [{ path: 'serviceReceiptId', message: `receipt ${serviceReceiptId} is not known as one of this merchant's receipts: this profile has no record of it` }],
        { hint: 'pass --original FILE with its receipt record if another machine issued it; records are kept per profile (--profile)' },
      );
    }
  }
  const request = parseOrThrow(ReceiptTemplateRequest, record.templateRequest, `the record of receipt ${record.serviceReceiptId}`);
  return { record, request };
}

/** The computed credit note on stderr, so that stdout keeps only the result. */
/** "27 days left (ends 2026-12-21)", or how long ago it closed. */
function windowState(window: { issueDate: string; now: number; windowDays: number }): string {
  const end = Date.parse(window.issueDate) + window.windowDays * 86_400_000;
  const days = Math.floor(Math.abs(end - window.now) / 86_400_000);
  const date = new Date(end).toISOString().slice(0, 10);
  return end >= window.now ? `${days} day${days === 1 ? '' : 's'} left (ends ${date})` : `closed ${days} day${days === 1 ? '' : 's'} ago (${date})`;
}

function preview(
  f: Factory,
  credit: ComputedCreditNote,
  request: ReturnRequest,
  previous: readonly Credited[] = [],
  window?: { issueDate: string; now: number; windowDays: number },
): void {
  const text = previewText(credit, request, previous, window);
  note(f.io, f.io.stderrIsTTY ? wrapText(text, f.io.columns, { hang: '  ' }) : text);
}

/** The computed credit note as lines of text. */
function previewText(
  credit: ComputedCreditNote,
  request: ReturnRequest,
  previous: readonly Credited[] = [],
  window?: { issueDate: string; now: number; windowDays: number },
): string {
  const { currency, totals } = credit;
  const amount = (minor: number) => formatMoney(minor, currency).slice(0, -(currency.length + 1));
  const rows = [
    ['#', 'PRODUCT', 'NAME', 'QTY', 'NET', 'TAX', 'TOTAL'],
    ...credit.lines.map((line, i) => [
      String(i + 1),
      line.productId,
      line.product.name,
      `${line.product.quantity} of ${line.boughtQuantity}`,
      amount(line.net),
      amount(line.tax),
      amount(line.total),
    ]),
  ];
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length))) ?? [];
  const numeric = new Set([3, 4, 5, 6]);
  const lines = rows.map((row) => `  ${row.map((cell, col) => (numeric.has(col) ? cell.padStart(widths[col] ?? 0) : cell.padEnd(widths[col] ?? 0))).join('  ')}`.trimEnd());
  const money = (minor: number) => formatMoney(minor, currency);
  const adjustments = [
    ...(totals.discounts > 0 ? [`discounts -${money(totals.discounts)}`] : []),
    ...(totals.charges > 0 ? [`charges ${money(totals.charges)}`] : []),
  ];
  const iban = request.refundBankAccount?.iban;
  const to = iban === undefined ? '' : ` to ${maskLast4(iban)}`;
  return [
    `credit note ${credit.request.documentNumber} for receipt ${credit.request.originatorDocumentReference}:`,
    ...lines,
    `  subtotal ${money(totals.subtotal)}${adjustments.map((a) => ` · ${a}`).join('')} · tax ${money(totals.tax)} · total ${money(totals.total)}`,
    `  refund requested: ${request.refundPreference}${to} (the customer's preference: refund as your policy says)`,
    ...(window ? [`  return window: ${windowState(window)}`] : []),
    ...(previous.length > 0 ? [`  already credited on this receipt: ${previous.map((p) => `${p.documentNumber} (${p.lines.map((l) => `${l.quantity} × ${l.productId}`).join(', ')})`).join('; ')}`] : []),
  ].join('\n');
}

async function confirm(f: Factory, opts: IssueOptions, credit: ComputedCreditNote): Promise<void> {
  if (opts.yes) return;
  const total = formatMoney(credit.totals.total, credit.currency);
  const ok = await f.prompter().confirm({ message: `Issue credit note ${credit.request.documentNumber} for ${total}?`, flag: '--yes' });
  if (!ok) throw new CancelError('cancelled: no credit note was issued');
}

/** Recipients whose key this svc can wrap for; the others are named on stderr and left out. */
function encryptable(f: Factory, recipients: readonly Recipient[]): Recipient[] {
  const usable = recipients.filter((r) => r.keyAlgorithm === SUPPORTED_ALGORITHM);
  for (const r of recipients) {
    if (r.keyAlgorithm !== SUPPORTED_ALGORITHM) note(f.io, `warning: skipping recipient ${r.recipientId}: key algorithm ${r.keyAlgorithm} is not supported`);
  }
  if (usable.length > 0) return usable;
  throw new NotFoundError('the customer has no device that can receive an encrypted credit note', {
    hint: 'nothing was submitted; refund the customer by other means and reject or complete the request',
  });
}

/** CONTRACT.md §6: the receipt entry and the credit note entry differ only in the document's field. */
function asCreditNoteEntry({ encryptedReceipt, ...entry }: EncryptedReceiptEntry): EncryptedCreditNoteEntry {
  return { ...entry, encryptedCreditNote: encryptedReceipt };
}

/** --complete: PENDING must be accepted (in part, when only part was credited) before it can be completed (CONTRACT.md §6). */
async function completeRequest(f: Factory, caller: Caller, item: QueueItem, whole: boolean, result: CreditNoteSubmissionResult): Promise<string> {
  try {
    if (item.status === 'PENDING') await setReturnRequestStatus(caller, item.requestId, whole ? 'ACCEPTED' : 'PARTIALLY_ACCEPTED');
    return (await setReturnRequestStatus(caller, item.requestId, 'COMPLETED')).status;
  } catch (error) {
    note(f.io, `the credit note was issued as ${result.serviceReceiptId}, but request ${item.requestId} was not marked COMPLETED`);
    throw error;
  }
}

function report(f: Factory, intent: Intent, requestId: string, issued: Issued, status: string | undefined): void {
  if (!f.io.json) {
    if (status !== undefined) note(f.io, `request ${requestId} is ${status}`);
    return println(f.io, issued.result.serviceReceiptId);
  }
  const request = reservationOf(intent).templateRequest as CreditNoteTemplateRequest;
  writeJson(f.io, {
    ...issued.result,
    requestId,
    documentNumber: request.documentNumber,
    currency: request.currency,
    invoiceSubtotal: request.invoiceSubtotal,
    totalBeforeTax: request.totalBeforeTax,
    totalTaxAmount: request.totalTaxAmount,
    totalAmount: request.totalAmount,
    lines: request.products.map((p) => ({ productId: p.identifier, quantity: p.quantity, subtotal: p.subtotal, total: p.total })),
    finalHash: issued.finalHash,
    recipients: issued.recipients,
    ...(status === undefined ? {} : { status }),
  });
}
