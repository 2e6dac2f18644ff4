// How return requests read in a terminal: short ages, item counts, truncated notes, and
// bank details masked unless the merchant asks to see them.
import type { RefundBankAccount, ReturnRequest } from '../contract/returns.js';
import { maskLast4 } from '../io/redact.js';
import { quantityOf, scaledQuantity } from './check.js';

/** "45s", "12m", "3h", "2d" since `iso`; "-" when it is not a date. */
export function age(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '-';
  const seconds = Math.max(0, Math.floor((now - at) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/**
 * One line: the quantity asked for. Several: how many lines, not a sum of their quantities,
 * which would add kilograms to pieces (1 kg of bananas and 5 bottles is not "6").
 */
export function itemsSummary(request: ReturnRequest): string {
  const lines = request.lineItems;
  return lines.length === 1 ? String(quantityOf(scaledQuantity(lines[0]!.quantity))) : `${lines.length} lines`;
}

export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

// Names and bank codes identify no account; every other member (IBAN, account numbers, and
// whatever a newer device sends) is masked.
const UNMASKED = new Set(['accountHolder', 'bic', 'bankName']);

export function maskBankAccount(account: RefundBankAccount): RefundBankAccount {
  return Object.fromEntries(
    Object.entries(account).map(([key, value]) => [
      key,
      UNMASKED.has(key) || value === null || value === undefined ? value : maskLast4(typeof value === 'string' ? value : JSON.stringify(value)),
    ]),
  );
}

/** The request with its bank account masked (see maskBankAccount). */
export function maskedRequest(request: ReturnRequest): ReturnRequest {
  const account = request.refundBankAccount;
  return account === undefined || account === null ? request : { ...request, refundBankAccount: maskBankAccount(account) };
}
