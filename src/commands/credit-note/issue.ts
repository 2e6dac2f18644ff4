// `svc credit-note issue REQUEST_ID`: the whole of INTERFACE.md "RETURN_REQUESTED"
// processing. The request (or the part of it named with --item, which a PARTIALLY_ACCEPTED
// request needs) is decrypted and checked against the merchant's own record of the
// receipt, the credit note is computed from that record (never from the customer's figures)
// and shown, and only after the merchant confirms does anything reach the service:
// template → resolve the owner's current devices → inject the customer → encrypt per device
// → submit with one Idempotency-Key → record locally, so the next over-return is caught.
// From that check to the record the receipt's lock is held (and the check made again once
// it is), so two issues against one receipt at once cannot both credit its last items.
import { randomUUID } from 'node:crypto';
import { writeReceiptsCaller, type Caller } from '../../api/caller.js';
import {
  RequestStateError,
  createCreditNoteTemplate,
  findReturnRequest,
  setReturnRequestStatus,
  submitEncryptedCreditNote,
} from '../../api/credit-note.js';
import { resolveRecipient } from '../../api/recipient.js';
import type { CreditNoteSubmission, CreditNoteSubmissionResult, EncryptedCreditNoteEntry } from '../../contract/credit-note.js';
import type { EncryptedReceiptEntry } from '../../contract/receipt.js';
import type { Recipient } from '../../contract/recipient.js';
import { ReturnRequest, type QueueItem } from '../../contract/returns.js';
import { ReceiptTemplateRequest } from '../../contract/template.js';
import { parseOrThrow, validate } from '../../contract/validate.js';
import { approvedPart, type ApprovedPart } from '../../credit-notes/approved.js';
import { checkReturn, quantityOf, type Allocation } from '../../credit-notes/check.js';
import { computeCreditNote, type ComputedCreditNote } from '../../credit-notes/compute.js';
import { encryptedPart } from '../../credit-notes/queue.js';
import { loadCreditNotes, withCreditNoteLedger, type CreditNoteLedger, type CreditNoteRecord } from '../../credit-notes/records.js';
import { decryptOutcome } from '../../crypto/decrypt-batch.js';
import { keyFingerprint } from '../../crypto/keys.js';
import { loadKeyring } from '../../crypto/keystore.js';
import { formatMoney } from '../../crypto/money.js';
import { CancelError, DecryptError, NotFoundError, UsageError, ValidationError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { inputName, readJsonInput } from '../../io/input.js';
import { writeJson } from '../../io/output.js';
import { maskLast4 } from '../../io/redact.js';
import { withSpinner } from '../../io/spinner.js';
import { note, println } from '../../io/streams.js';
import { supplierPartyIdOf } from '../../receipts/document.js';
import { encryptForRecipients } from '../../receipts/encrypt.js';
import { finalDocument } from '../../receipts/final-document.js';
import { loadReceiptRecord, ReceiptRecord } from '../../receipts/records.js';
import { parseItem, type ItemQuantity } from '../item-flag.js';
import { hashedTemplate } from '../receipt/template-step.js';

export interface IssueOptions {
  requestId: string;
  /** A receipt record JSON file, for a receipt another machine issued. */
  original?: string | undefined;
  documentNumber?: string | undefined;
  /** PRODUCT_ID:QTY, repeatable: credit only these (required for a PARTIALLY_ACCEPTED request); none: all of the request. */
  item?: string[] | undefined;
  yes?: boolean | undefined;
  complete?: boolean | undefined;
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
  previous: readonly CreditNoteRecord[];
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

export async function run(opts: IssueOptions, f: Factory): Promise<void> {
  if (opts.documentNumber !== undefined && opts.documentNumber.trim() === '') {
    throw new UsageError('--document-number must not be empty');
  }
  const items = (opts.item ?? []).map(parseItem);
  const terms: Terms = { documentNumber: opts.documentNumber?.trim(), now: f.clock.now(), windowDays: returnWindowDays(f) };
  const caller = await writeReceiptsCaller(f);
  const opened = await openRequest(f, caller, opts, items);
  const receipt = opened.item.serviceReceiptId;
  const shown = prepare(opened, await loadCreditNotes(f, receipt), terms);
  preview(f, shown.credit, shown.returnRequest);
  await confirm(f, opts, shown.credit);
  const { prepared, issued } = await withCreditNoteLedger(
    f,
    receipt,
    async (ledger) => {
      // Another issue may have credited the receipt since the preview; none can now.
      const prepared = prepare(opened, ledger.previous, terms);
      if (!sameCreditNote(shown, prepared)) changedSincePreview(f, opts, shown, prepared);
      return { prepared, issued: await submit(f, caller, prepared, ledger) };
    },
    {
      onWait: (staleMs) =>
        note(f.io, `waiting for another credit note against receipt ${receipt} to be issued first (a lock left by a process that died is taken over after ${staleMs / 1000} s)`),
    },
  );
  const status = opts.complete ? await completeRequest(f, caller, prepared, issued.result) : undefined;
  report(f, prepared, issued, status);
}

async function openRequest(f: Factory, caller: Caller, opts: IssueOptions, items: readonly ItemQuantity[]): Promise<Opened> {
  const item = await findReturnRequest(caller, opts.requestId);
  if (CLOSED.has(item.status)) {
    throw new RequestStateError(`return request ${item.requestId} is ${item.status}: there is nothing to credit`, {
      hint: 'see the open requests with `svc credit-note poll --status PENDING`',
    });
  }
  const returnRequest = await decryptRequest(f, item);
  const approved = approvedPart({ requestId: item.requestId, status: item.status, request: returnRequest, items });
  const original = await originalReceipt(f, opts.original, item);
  return { item, returnRequest, approved, original };
}

/** The request checked against the earlier credit notes of its receipt, and the credit note computed from the merchant's record. */
function prepare(opened: Opened, previous: readonly CreditNoteRecord[], terms: Terms): Prepared {
  const { item, returnRequest, approved, original } = opened;
  const earlier = previous.find((n) => n.requestId === item.requestId);
  if (earlier) {
    throw new RequestStateError(`return request ${item.requestId} was already credited by ${earlier.documentNumber} (${earlier.serviceReceiptId})`, {
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
function documentNumberFor(receiptNumber: string, previous: readonly CreditNoteRecord[], chosen: string | undefined): string {
  if (chosen !== undefined) {
    const earlier = previous.find((n) => n.documentNumber === chosen);
    if (earlier === undefined) return chosen;
    throw new UsageError(`--document-number ${chosen} is already the number of credit note ${earlier.serviceReceiptId} of this receipt`, {
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
  const seen = new Set(shown.previous.map((n) => n.serviceReceiptId));
  const others = prepared.previous.filter((n) => !seen.has(n.serviceReceiptId)).map((n) => n.documentNumber);
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

/** The issuance sequence, then the local record that lets the next return be checked against this one. */
async function submit(f: Factory, caller: Caller, prepared: Prepared, ledger: CreditNoteLedger): Promise<Issued> {
  const { item, original, allocations, credit } = prepared;
  const { document: template, templateHash, canonical } = await hashedTemplate(f, 'creating the credit note template', () =>
    createCreditNoteTemplate(caller, credit.request),
  );
  const match = await withSpinner(f.io, `resolving the devices of receipt ${item.serviceReceiptId}`, () =>
    resolveRecipient(caller, {
      request: { serviceReceiptId: item.serviceReceiptId },
      kind: 'receipt',
      display: item.serviceReceiptId,
    }),
  );
  const recipients = encryptable(f, match.recipients);
  const customer = original.record.customer;
  const finalDoc = finalDocument(canonical, customer);
  const { finalHash } = finalDoc;
  const submission: CreditNoteSubmission = {
    matchId: match.matchId,
    parentServiceReceiptId: item.serviceReceiptId,
    encryptedCreditNotes: encryptForRecipients(finalDoc, customer, recipients, supplierPartyIdOf(template)).map(asCreditNoteEntry),
    templateHash,
  };
  const result = await withSpinner(f.io, `submitting for ${recipients.length} device(s)`, () =>
    submitEncryptedCreditNote(caller, submission, randomUUID()),
  );
  if (result.templateHash !== templateHash) {
    note(f.io, `warning: the service reports templateHash ${result.templateHash}, this svc computed ${templateHash}`);
  }
  const record: CreditNoteRecord = {
    serviceReceiptId: result.serviceReceiptId,
    requestId: item.requestId,
    documentNumber: credit.request.documentNumber,
    issuedAt: new Date(f.clock.now()).toISOString(),
    lines: allocations.map((a) => ({ originalLine: a.originalLine, productId: a.productId, quantity: quantityOf(a.quantity) })),
    templateRequest: credit.request,
    templateHash,
    finalHash,
    matchId: match.matchId,
    recipients: recipients.map((r) => ({ recipientId: r.recipientId, receiverType: r.receiverType, keyId: keyFingerprint(r.publicKey) })),
    submission: result,
  };
  const path = await ledger.record(record);
  note(f.io, `credit note ${record.documentNumber} issued to ${recipients.length} device(s); record saved in ${path}`);
  return { result, finalHash, recipients: recipients.length };
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
async function originalReceipt(f: Factory, file: string | undefined, item: QueueItem): Promise<Original> {
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
      record = await loadReceiptRecord(f, item.serviceReceiptId);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      throw new ValidationError(
        `return request ${item.requestId}`,
        [{ path: 'serviceReceiptId', message: `receipt ${item.serviceReceiptId} is not known as one of this merchant's receipts: this profile has no record of it` }],
        { hint: 'pass --original FILE with its receipt record if another machine issued it; records are kept per profile (--profile)' },
      );
    }
  }
  const request = parseOrThrow(ReceiptTemplateRequest, record.templateRequest, `the record of receipt ${record.serviceReceiptId}`);
  return { record, request };
}

/** The computed credit note on stderr, so that stdout keeps only the result. */
function preview(f: Factory, credit: ComputedCreditNote, request: ReturnRequest): void {
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
  note(
    f.io,
    [
      `credit note ${credit.request.documentNumber} for receipt ${credit.request.originatorDocumentReference}:`,
      ...lines,
      `  subtotal ${money(totals.subtotal)}${adjustments.map((a) => ` · ${a}`).join('')} · tax ${money(totals.tax)} · total ${money(totals.total)}`,
      `  refund requested: ${request.refundPreference}${to} (the customer's preference: refund as your policy says)`,
    ].join('\n'),
  );
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
async function completeRequest(f: Factory, caller: Caller, prepared: Prepared, result: CreditNoteSubmissionResult): Promise<string> {
  const { item, approved } = prepared;
  try {
    if (item.status === 'PENDING') await setReturnRequestStatus(caller, item.requestId, approved.whole ? 'ACCEPTED' : 'PARTIALLY_ACCEPTED');
    return (await setReturnRequestStatus(caller, item.requestId, 'COMPLETED')).status;
  } catch (error) {
    note(f.io, `the credit note was issued as ${result.serviceReceiptId}, but request ${item.requestId} was not marked COMPLETED`);
    throw error;
  }
}

function report(f: Factory, prepared: Prepared, issued: Issued, status: string | undefined): void {
  if (!f.io.json) return println(f.io, issued.result.serviceReceiptId);
  const { request, lines } = prepared.credit;
  writeJson(f.io, {
    ...issued.result,
    requestId: prepared.item.requestId,
    documentNumber: request.documentNumber,
    currency: request.currency,
    invoiceSubtotal: request.invoiceSubtotal,
    totalBeforeTax: request.totalBeforeTax,
    totalTaxAmount: request.totalTaxAmount,
    totalAmount: request.totalAmount,
    lines: lines.map((l) => ({
      productId: l.productId,
      quantity: l.product.quantity,
      subtotal: l.product.subtotal,
      total: l.product.total,
    })),
    finalHash: issued.finalHash,
    recipients: issued.recipients,
    ...(status === undefined ? {} : { status }),
  });
}
