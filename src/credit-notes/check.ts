// docs/interface-decisions.md#return-requests processing: a decrypted return request is checked against
// the merchant's own record of the receipt before any credit note is built. Every problem
// is collected, so the merchant sees them all at once, each at the line it concerns.
import type { ReturnRequest } from '../contract/returns.js';
import type { ReceiptTemplateRequest } from '../contract/template.js';
import type { Issue } from '../contract/validate.js';
import { ValidationError } from '../errors.js';
import { maskLast4 } from '../io/redact.js';
import { compactIban, ibanProblem } from '../contract/iban.js';
import { countableQuantityProblem } from '../contract/units.js';
import type { Credited } from '../store/ledger.js';

/** Quantities may be fractional (1.25 KGM); they are added and compared in millionths. */
export const QTY_SCALE = 1_000_000;
const DAY_MS = 86_400_000;

export function scaledQuantity(quantity: number): number {
  return Math.round(quantity * QTY_SCALE);
}

export function quantityOf(scaled: number): number {
  return scaled / QTY_SCALE;
}

/** When the return window of a receipt issued at `issueDate` ends. */
export function returnWindowEnd(issueDate: string, windowDays: number): number {
  return Date.parse(issueDate) + windowDays * DAY_MS;
}

export interface ReturnCheck {
  requestId: string;
  /** The queue item's status: what the merchant can still do with a refused request depends on it. */
  status: string;
  /** The queue item's receipt. */
  serviceReceiptId: string;
  returnRequest: ReturnRequest;
  /** The local record's receipt and its template request. */
  original: { serviceReceiptId: string; request: ReceiptTemplateRequest };
  /** Credit notes this machine already issued against the receipt. */
  previous: readonly Credited[];
  /** ` --grant …` in the commands a refusal names, when the request's company is not the default. */
  grantFlag: string;
  now: number;
  windowDays: number;
  /**
   * When the customer asked (the queue item's createdAt, set by the service): the window is
   * kept by that, so a request asked in time stays good however long it waits in the queue.
   * Undefined or unreadable: now.
   */
  askedAt?: number | undefined;
  /** The part of the request to credit (see approved.ts); default: every line as requested. */
  approved?: readonly ApprovedLine[];
}

/** How much of one line of the return request is credited. */
export interface ApprovedLine {
  /** Index in the request's `lineItems`. */
  line: number;
  quantity: number;
}

/** The part of one original line a credit note takes, in scaled quantities. */
export interface Allocation {
  /** Index in the original's `products`. */
  originalLine: number;
  productId: string;
  quantity: number;
  /** Already credited by earlier credit notes. */
  creditedBefore: number;
}

/** The allocations of an acceptable return; ValidationError (exit 2) naming every problem otherwise. */
export function checkReturn(check: ReturnCheck): Allocation[] {
  const { returnRequest: request, original } = check;
  const products = original.request.products;
  const document = original.request.documentNumber;
  const issues: Issue[] = [];

  if (request.serviceReceiptId !== check.serviceReceiptId) {
    issues.push({ path: 'serviceReceiptId', message: `is ${request.serviceReceiptId}, but the queue item is for receipt ${check.serviceReceiptId}` });
  }
  if (original.serviceReceiptId !== check.serviceReceiptId) {
    issues.push({ path: 'serviceReceiptId', message: `the receipt record given is for receipt ${original.serviceReceiptId}, not ${check.serviceReceiptId}` });
  }
  if (request.receiptId !== document) {
    issues.push({ path: 'receiptId', message: `is "${request.receiptId}", but receipt ${check.serviceReceiptId} is this merchant's document ${document}` });
  }
  const windowEnd = returnWindowEnd(original.request.issueDate, check.windowDays);
  const asked = check.askedAt !== undefined && Number.isFinite(check.askedAt) ? check.askedAt : undefined;
  if ((asked ?? check.now) > windowEnd) {
    issues.push({
      path: 'receipt',
      message: `${asked === undefined ? '' : `asked for ${new Date(asked).toISOString()}, after `}the return window of ${check.windowDays} days ended ${new Date(windowEnd).toISOString()}; receipt ${document} was issued ${original.request.issueDate}`,
    });
  }

  const credited = products.map(() => 0);
  const creditedBy = products.map(() => new Set<string>());
  for (const note of check.previous) {
    for (const line of note.lines) {
      if (line.originalLine >= products.length) continue;
      credited[line.originalLine] = (credited[line.originalLine] ?? 0) + scaledQuantity(line.quantity);
      creditedBy[line.originalLine]?.add(note.pending ? `${note.documentNumber} (being submitted)` : note.documentNumber);
    }
  }
  const remaining = products.map((p, i) => scaledQuantity(p.quantity) - (credited[i] ?? 0));
  const requestedEarlier = new Map<string, number>();
  const allocations = new Map<number, Allocation>();

  const approved = check.approved ?? request.lineItems.map((item, line) => ({ line, quantity: item.quantity }));
  // What can still be credited of the products asked for, scaled (a line refused for being
  // more than is left adds what is left): the hint's --item when something is refused.
  const creditable = new Map<string, number>();
  // A quantity the merchant named with --item, not the customer's: its faults are the flag's.
  const itemIssues: Issue[] = [];
  for (const { line: index, quantity } of approved) {
    const item = request.lineItems[index];
    if (item === undefined) throw new RangeError(`no line ${index} in return request ${check.requestId}`);
    const path = `lineItems.${index} (productId ${item.productId})`;
    const lines = products.flatMap((p, i) => (p.identifier === item.productId ? [i] : []));
    if (lines.length === 0) {
      issues.push({ path, message: `is not a product of receipt ${document}` });
      continue;
    }
    const unit = products[lines[0] ?? 0]?.unitCode;
    const counted = countableQuantityProblem(unit, quantity);
    if (counted !== undefined) {
      if (check.approved !== undefined && quantity !== item.quantity) itemIssues.push({ path: `${item.productId}:${quantity}`, message: `quantity ${counted}` });
      else issues.push({ path, message: `quantity ${counted}` });
      continue;
    }
    const wanted = scaledQuantity(quantity);
    const available = lines.reduce((sum, i) => sum + Math.max(0, remaining[i] ?? 0), 0);
    const earlier = requestedEarlier.get(item.productId) ?? 0;
    requestedEarlier.set(item.productId, earlier + wanted);
    if (wanted > available) {
      if (available > 0) creditable.set(item.productId, (creditable.get(item.productId) ?? 0) + available);
      const bought = lines.reduce((sum, i) => sum + scaledQuantity(products[i]?.quantity ?? 0), 0);
      const already = lines.reduce((sum, i) => sum + (credited[i] ?? 0), 0);
      const notes = [...new Set(lines.flatMap((i) => [...(creditedBy[i] ?? [])]))];
      const parts = [`bought ${quantityOf(bought)}`];
      if (already > 0) parts.push(`${quantityOf(already)} already credited by ${notes.join(', ')}`);
      if (earlier > 0) parts.push(`${quantityOf(earlier)} asked for on earlier lines of this request`);
      issues.push({
        path,
        message: `quantity ${quantity} is more than the ${quantityOf(Math.max(0, available))} that can still be returned (${parts.join('; ')})`,
      });
      continue;
    }
    creditable.set(item.productId, (creditable.get(item.productId) ?? 0) + wanted);
    let left = wanted;
    for (const line of lines) {
      const take = Math.min(left, Math.max(0, remaining[line] ?? 0));
      if (take <= 0) continue;
      remaining[line] = (remaining[line] ?? 0) - take;
      left -= take;
      const allocation = allocations.get(line) ?? { originalLine: line, productId: item.productId, quantity: 0, creditedBefore: credited[line] ?? 0 };
      allocation.quantity += take;
      allocations.set(line, allocation);
      if (left === 0) break;
    }
  }

  if (itemIssues.length > 0) {
    throw new ValidationError('--item', itemIssues, { hint: 'nothing was submitted; name a whole quantity of a product counted in pieces, e.g. --item PRODUCT_ID:1' });
  }
  issues.push(...bankIssues(request));
  if (issues.length > 0) {
    // --item can credit what is left only when the refusal is about the lines alone.
    const part = issues.every((issue) => issue.path.startsWith('lineItems.')) ? [...creditable].map(([productId, scaled]) => `--item ${productId}:${quantityOf(scaled)}`) : [];
    const recordDisagrees = issues.some((issue) => issue.path === 'serviceReceiptId' || issue.path === 'receiptId');
    throw new ReturnRefusedError(check.requestId, issues, refusedWay(`${check.requestId}${check.grantFlag}`, check.status, part, recordDisagrees));
  }
  return [...allocations.values()];
}

/**
 * A return request `issue` refuses, as checkReturn found it. Its hint starts "nothing was
 * submitted"; `lead` and `ways` are the way forward it names, for what does not submit (show,
 * accept's note): `lead` says what the request's status leaves ("the request is ACCEPTED, so
 * it can no longer be rejected: "; nothing for a PENDING one) and `ways` the commands.
 */
export class ReturnRefusedError extends ValidationError {
  readonly lead: string;
  readonly ways: string;
  constructor(requestId: string, issues: readonly Issue[], way: { lead: string; ways: string }) {
    super(`return request ${requestId}`, issues, { hint: `nothing was submitted; ${way.lead}${way.ways}` });
    this.lead = way.lead;
    this.ways = way.ways;
  }
}

/**
 * Only a PENDING request can still be rejected (docs/interface-decisions.md#return-request-moves);
 * an accepted one can only be completed: credited in part (when a part passes), or closed with
 * `complete --credited-elsewhere`, which is what completes a request no credit note credits. A
 * PENDING one can be credited in part too: `issue --item … --complete` accepts it in part and
 * completes it. The receipt record is named only when it is what disagrees (another receipt's
 * record, another document number), never for a refusal a correct record makes.
 * `request`: the request as its commands name it (its ID, and --grant for another company's).
 */
function refusedWay(request: string, status: string, creditable: readonly string[], recordDisagrees: boolean): { lead: string; ways: string } {
  const record = recordDisagrees ? ', or fix the receipt record' : '';
  if (status === 'ACCEPTED' || status === 'PARTIALLY_ACCEPTED') {
    return {
      lead: `the request is ${status}, so it can no longer be rejected: `,
      ways:
        // Whole commands: from the queue screen or triage, whose `i` takes no part, they work as typed in a shell.
        (creditable.length > 0 ? `credit only what can still be returned with \`svc credit-note issue ${request} ${creditable.join(' ')}\`, ` : '') +
        `settle it another way and run \`svc credit-note complete ${request} --credited-elsewhere\`${record}`,
    };
  }
  const part = creditable.length > 0 ? `credit only what can still be returned with \`svc credit-note issue ${request} ${creditable.join(' ')} --complete\` (accepted in part, then completed), ` : '';
  return { lead: '', ways: `${part}${part === '' ? '' : 'or '}reject it with \`svc credit-note reject ${request}\`${record}` };
}

/** The refund preference is the customer's request, but an IBAN to pay to must be a real one. */
function bankIssues(request: ReturnRequest): Issue[] {
  if (request.refundPreference !== 'BANK_TRANSFER') return [];
  const iban = request.refundBankAccount?.iban;
  if (iban === undefined || compactIban(iban) === '') {
    return [{ path: 'refundBankAccount.iban', message: 'is required for a BANK_TRANSFER refund' }];
  }
  const problem = ibanProblem(iban);
  if (problem !== undefined) {
    return [{ path: 'refundBankAccount.iban', message: `${maskLast4(iban)} is not a valid IBAN: it ${problem}` }];
  }
  return [];
}
