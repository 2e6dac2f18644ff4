// The check of `credit-note issue`: the opened request against the earlier credit notes of
// its receipt (issued, and reserved while being submitted), and the credit note computed from
// the merchant's record, never from the customer's figures. Run once for the preview and
// again inside the ledger's transaction that reserves what the credit note takes.
import { RequestStateError } from '../api/credit-note.js';
import type { QueueItem } from '../contract/returns.js';
import { UsageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { startedOn } from '../receipts/submission.js';
import type { Credited, ReceiptCredits } from '../store/ledger.js';
import { checkReturn, quantityOf, type Allocation } from './check.js';
import { computeCreditNote, type ComputedCreditNote } from './compute.js';
import type { Opened } from './open-request.js';

/** Days after the receipt's issue date within which a return is accepted; SVC_RETURN_WINDOW_DAYS overrides. */
export const DEFAULT_RETURN_WINDOW_DAYS = 30;
const WINDOW_VARIABLE = 'SVC_RETURN_WINDOW_DAYS';

/** The request has a credit note already, issued or being submitted (`earlier`): nothing more is credited (exit 7). */
export class AlreadyCreditedError extends RequestStateError {
  readonly earlier: Credited;
  constructor(item: QueueItem, earlier: Credited, grantFlag: string) {
    super(`return request ${item.requestId} was already credited by ${earlier.documentNumber} (${earlier.serviceReceiptId ?? 'being submitted'})`, {
      hint: markDoneHint(`${item.requestId}${grantFlag}`, item.status, earlier.serviceReceiptId === undefined),
    });
    this.earlier = earlier;
  }
}

/** The request checked against the earlier credit notes, and the credit note computed from them. */
export interface Prepared extends Opened {
  previous: readonly Credited[];
  allocations: Allocation[];
  credit: ComputedCreditNote;
}

/** What the check and the credit note depend on besides the request and the earlier credit notes. */
export interface Terms {
  documentNumber: string | undefined;
  /** One instant for the preview and the check under the lock, so that both compute the same credit note from the same records. */
  now: number;
  windowDays: number;
}

export function creditedOf(credits: ReceiptCredits): Credited[] {
  return [...credits.issued, ...credits.reserved.flatMap((i) => (i.reservation ? [{ ...i.reservation, pending: { since: i.createdAt, pid: i.pid, host: i.host } }] : []))];
}

/** What the credit note takes from its receipt: its reservation while it is submitted. */
export function creditedBy(prepared: Prepared): Credited {
  return {
    requestId: prepared.item.requestId,
    documentNumber: prepared.credit.request.documentNumber,
    lines: prepared.allocations.map((a) => ({ originalLine: a.originalLine, productId: a.productId, quantity: quantityOf(a.quantity) })),
    templateRequest: prepared.credit.request,
  };
}

/** The request checked against the earlier credit notes of its receipt, and the credit note computed from the merchant's record. */
export function prepare(opened: Opened, previous: readonly Credited[], terms: Terms): Prepared {
  const { item, returnRequest, approved, original, grantFlag } = opened;
  const earlier = previous.find((n) => n.requestId === item.requestId);
  if (earlier) throw new AlreadyCreditedError(item, earlier, grantFlag);
  const allocations = checkReturn({
    requestId: item.requestId,
    status: item.status,
    serviceReceiptId: item.serviceReceiptId,
    returnRequest,
    original: { serviceReceiptId: original.record.serviceReceiptId, request: original.request },
    previous,
    grantFlag,
    now: terms.now,
    windowDays: terms.windowDays,
    askedAt: Date.parse(item.createdAt),
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

/**
 * A credited request is closed with COMPLETED, which only an accepted one can move to (docs/interface-decisions.md#return-request-moves).
 * `complete` takes an accepted request whose credit note is issued. A PENDING one, or one whose
 * credit note is still being submitted (a run killed or under way, which `complete` refuses), is
 * closed by `issue --complete`: it resumes the submission, or issues nothing again, and accepts
 * the request as its credit note credited it (whole or in part) before completing it.
 * `request`: the request as its commands name it (its ID, and --grant for another company's).
 */
export function markDoneHint(request: string, status: string | undefined, submitting = false): string {
  const issue = `\`svc credit-note issue ${request} --complete\``;
  if (submitting) return `its submission is under way or was stopped: ${issue} resumes it (the same credit note, nothing issued twice) and completes the request`;
  if (status !== 'PENDING') return `mark it done with \`svc credit-note complete ${request}\``;
  return `mark it done with ${issue}: it issues nothing again, accepts the request as it was credited (whole or in part) and completes it`;
}

export function sameCreditNote(a: Prepared, b: Prepared): boolean {
  return JSON.stringify(a.credit.request) === JSON.stringify(b.credit.request);
}

/** "since T, pid 4242 on laptop-7": when and by which process, on which machine, a reservation's submission started. */
export function pendingSince(credited: Credited): string {
  const { pending } = credited;
  if (!pending) return '';
  const who = startedOn(pending);
  return `since ${pending.since}${who === '' ? '' : `, ${who}`}`;
}

export function returnWindowDays(f: Factory): number {
  const value = f.env[WINDOW_VARIABLE];
  if (value === undefined || value === '') return DEFAULT_RETURN_WINDOW_DAYS;
  const days = Number(value);
  if (Number.isInteger(days) && days >= 0) return days;
  throw new UsageError(`${WINDOW_VARIABLE}=${value} is not a whole number of days`, { hint: `unset it for the default of ${DEFAULT_RETURN_WINDOW_DAYS} days` });
}
