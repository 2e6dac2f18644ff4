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

/** The quantities asked for, summed, and the number of lines when there are several. */
export function itemsSummary(request: ReturnRequest): string {
  const total = quantityOf(request.lineItems.reduce((sum, line) => sum + scaledQuantity(line.quantity), 0));
  const lines = request.lineItems.length;
  return lines === 1 ? String(total) : `${total} (${lines} lines)`;
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
