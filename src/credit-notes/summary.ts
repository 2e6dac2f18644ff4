// A return request in one phrase, for a confirmation: the receipt's document number (what the
// customer reads out), what is asked back by name, and about how much:
// "R-2026-0008 (2 × Milk, 1 × Bread, 6.07 EUR)". Names and the amount come from this
// profile's record of the receipt (never the customer's figures): each line's share of the
// receipt line's total, by quantity; without a record, the product IDs and no amount.
// A credit note `issue` computed is named in the same words, with its own figures.
import type { ReturnRequest } from '../contract/returns.js';
import { formatMoney, prorate, toMinor } from '../crypto/money.js';
import { oneLine } from '../io/output.js';
import type { ReceiptRecord } from '../contract/records.js';
import type { ComputedCreditNote } from './compute.js';

/** Lines by product and quantity: a request's, or the part of it accepted. */
type Lines = readonly { productId: string; quantity: number }[];

interface RecordedProduct {
  identifier: string;
  name: string;
  quantity: number;
  total: number;
}

export function requestSummary(request: ReturnRequest, receipt: ReceiptRecord | undefined): string {
  return `${oneLine(request.receiptId)} (${askedText(request, receipt)})`;
}

/** What a request asks back, by name, and about how much: "2 × Milk, 1 × Bread, 6.07 EUR" (the picker's lines, a confirmation's parenthesis). */
export function askedText(request: ReturnRequest, receipt: ReceiptRecord | undefined): string {
  return linesText(request.lineItems, receipt);
}

/** Some lines (a part accepted) in the same words: "1 × Milk, 1.28 EUR". */
export function linesText(items: Lines, receipt: ReceiptRecord | undefined): string {
  const { lines, money } = asked(items, receipt);
  return [...lines, ...money].join(', ');
}

/** A computed credit note's lines as a question names them: "1 × Whole milk 3.5% 1 l". */
export function creditLines(credit: ComputedCreditNote): string[] {
  return credit.lines.map((line) => `${line.product.quantity} × ${oneLine(line.product.name)}`);
}

/** A computed credit note in the words of a request's summary, its lines and its total (what `issue --dry-run` shows): "1 × Milk, 1.28 EUR". */
export function creditText(credit: ComputedCreditNote): string {
  return [...creditLines(credit), formatMoney(credit.totals.total, credit.currency)].join(', ');
}

/** The product's name on this profile's record of the receipt; undefined without a record, or for a product it does not list. */
export function recordedName(receipt: ReceiptRecord | undefined, productId: string): string | undefined {
  return recordedProducts(receipt).find((p) => p.identifier === productId)?.name;
}

function recordedProducts(receipt: ReceiptRecord | undefined): RecordedProduct[] {
  return (receipt?.templateRequest as { products?: RecordedProduct[] } | undefined)?.products ?? [];
}

/** How much a request asks, briefly, beside a credit note for part of it: "6 lines, 15.20 EUR". */
export function requestAskedBrief(request: ReturnRequest, receipt: ReceiptRecord | undefined): string {
  const { lines, money } = asked(request.lineItems, receipt);
  return [`${lines.length} line${lines.length === 1 ? '' : 's'}`, ...money].join(', ');
}

/** What lines ask back, apart: by name ("2 × Milk") and about how much (one amount, or none without a record). */
export function asked(items: Lines, receipt: ReceiptRecord | undefined): { lines: string[]; money: string[] } {
  const template = receipt?.templateRequest as { currency: string } | undefined;
  const products = recordedProducts(receipt);
  let amount: number | undefined = template === undefined ? undefined : 0;
  const lines = items.map((line) => {
    const product = products.find((p) => p.identifier === line.productId);
    const part = product === undefined || template === undefined ? undefined : share(product, line.quantity, template.currency);
    amount = amount === undefined || part === undefined ? undefined : amount + part;
    return `${line.quantity} × ${oneLine(product?.name ?? line.productId)}`;
  });
  return { lines, money: amount === undefined || template === undefined ? [] : [formatMoney(amount, template.currency)] };
}

/** The line's share of the receipt line's total; none for a record whose figures cannot be read. */
function share(product: RecordedProduct, quantity: number, currency: string): number | undefined {
  try {
    return prorate(toMinor(product.total, currency), quantity, product.quantity);
  } catch {
    return undefined;
  }
}

/** The request's products one a line, by ID and name, as a part prompt lists them: "  4001234567890  Whole milk 3.5% 1 l (asked: 2)". */
export function askedProducts(request: ReturnRequest, receipt: ReceiptRecord | undefined): string {
  const ids = request.lineItems.map((line) => oneLine(line.productId));
  const width = Math.max(...ids.map((id) => id.length));
  return request.lineItems
    .map((line, i) => {
      const name = recordedName(receipt, line.productId);
      return `  ${ids[i]!.padEnd(width)}  ${name === undefined ? '(not in this profile\'s record of the receipt)' : oneLine(name)} (asked: ${line.quantity})`;
    })
    .join('\n');
}
