// The credit note `issue` would make, for a person: its lines (names, quantities bought and
// credited, amounts), totals, the refund asked for, the return window and what the receipt
// was already credited.
import type { ReturnRequest } from '../contract/returns.js';
import { formatMoney } from '../crypto/money.js';
import type { Factory } from '../factory.js';
import { maskLast4 } from '../io/redact.js';
import { note } from '../io/streams.js';
import { wrapText } from '../io/wrap.js';
import { displayWidth, fitWidth, padWidth } from '../io/width.js';
import type { Credited } from '../store/ledger.js';
import type { ComputedCreditNote } from './compute.js';
import { returnWindowEnd } from './check.js';

/** The receipt's return window as of `now`; `askedAt`: when the customer asked (the queue item's createdAt). */
export interface WindowTerms {
  issueDate: string;
  now: number;
  windowDays: number;
  askedAt?: number | undefined;
}

const DAY_MS = 86_400_000;
const days = (n: number) => `${n} day${n === 1 ? '' : 's'}`;

/** "27 days left (ends 2026-12-21)", or how long ago it closed (and, for a request asked in time, that it was). */
function windowState(window: WindowTerms): string {
  const end = returnWindowEnd(window.issueDate, window.windowDays);
  const date = new Date(end).toISOString().slice(0, 10);
  if (end >= window.now) return `${days(Math.floor((end - window.now) / DAY_MS))} left (ends ${date})`;
  const closed = `closed ${days(Math.floor((window.now - end) / DAY_MS))} ago (${date})`;
  const { askedAt } = window;
  if (askedAt === undefined || !Number.isFinite(askedAt) || askedAt > end) return closed;
  return `${closed}; asked ${days(Math.max(0, Math.floor((askedAt - Date.parse(window.issueDate)) / DAY_MS)))} after the purchase, within it`;
}

/** The computed credit note on stderr, so that stdout keeps only the result. */
export function preview(
  f: Factory,
  credit: ComputedCreditNote,
  request: ReturnRequest,
  previous: readonly Credited[] = [],
  window?: WindowTerms,
): void {
  const text = previewText(credit, request, previous, window, f.io.stderrIsTTY ? f.io.columns : undefined);
  note(f.io, f.io.stderrIsTTY ? wrapText(text, f.io.columns, { hang: '  ' }) : text);
}

/** The computed credit note as lines of text. */
export function previewText(
  credit: ComputedCreditNote,
  request: ReturnRequest,
  previous: readonly Credited[] = [],
  window?: WindowTerms,
  /** On a terminal, its width: the table's names are cut so that each row fits, its columns kept aligned. */
  columns?: number,
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
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => displayWidth(row[col] ?? '')))) ?? [];
  // Wider than the terminal: the names give way first, then the product IDs, never the figures.
  const NAME = 2;
  const PRODUCT = 1;
  let over = columns === undefined ? 0 : 2 + widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) - columns;
  for (const col of [NAME, PRODUCT]) {
    if (over <= 0) break;
    const cut = Math.min(over, Math.max(0, (widths[col] ?? 0) - 4));
    widths[col] = (widths[col] ?? 0) - cut;
    over -= cut;
  }
  const numeric = new Set([3, 4, 5, 6]);
  const lines = rows.map((row) => `  ${row.map((cell, col) => (numeric.has(col) ? padWidth(cell, widths[col] ?? 0, 'right') : padWidth(fitWidth(cell, widths[col] ?? 0), widths[col] ?? 0))).join('  ')}`.trimEnd());
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
