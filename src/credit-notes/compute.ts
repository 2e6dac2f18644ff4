// The credit note's figures, from the merchant's own record of the receipt and never from
// the customer's request: every line amount (net, discounts, charges, taxes) is the credited
// share of the original line by quantity, in integer minor units, rounded half away from
// zero (docs/interface-decisions.md#money). A share is taken as the difference of cumulative shares, so that
// the credit notes of a line, however it is split, add up exactly to the line.
import { CreditNoteTemplateRequest, type Adjustment, type Product, type ProductTax, type ReceiptTax, type ReceiptTemplateRequest } from '../contract/template.js';
import { parseOrThrow } from '../contract/validate.js';
import { fromMinor, prorate, toMinor } from '../crypto/money.js';
import { quantityOf, scaledQuantity, type Allocation } from './check.js';
import type { Credited } from '../store/ledger.js';

export interface CreditInput {
  original: ReceiptTemplateRequest;
  allocations: readonly Allocation[];
  /** Earlier credit notes of the receipt, for the share of receipt-level discounts and charges. */
  previous: readonly Credited[];
  documentNumber: string;
  /** ISO 8601 date-time of the credit note. */
  issueDate: string;
  note?: string;
}

export interface ComputedLine {
  originalLine: number;
  productId: string;
  /** The credit note's product: the original line with the credited quantity and amounts. */
  product: Product;
  boughtQuantity: number;
  /** Minor units. */
  net: number;
  tax: number;
  total: number;
}

export interface ComputedCreditNote {
  request: CreditNoteTemplateRequest;
  lines: ComputedLine[];
  currency: string;
  /** Minor units. */
  totals: { subtotal: number; discounts: number; charges: number; beforeTax: number; tax: number; total: number };
}

export function computeCreditNote(input: CreditInput): ComputedCreditNote {
  const { original } = input;
  const currency = original.currency;
  const minor = (amount: number) => toMinor(amount, currency);
  const money = (amountMinor: number) => fromMinor(amountMinor, currency);

  const lines = input.allocations.map((allocation): ComputedLine => {
    const product = original.products[allocation.originalLine];
    if (product === undefined) throw new RangeError(`no line ${allocation.originalLine} on receipt ${original.documentNumber}`);
    const whole = scaledQuantity(product.quantity);
    const before = allocation.creditedBefore;
    const after = before + allocation.quantity;
    const share = (amountMinor: number) => prorate(amountMinor, after, whole) - prorate(amountMinor, before, whole);
    const adjust = (list: Adjustment[] | undefined) => list?.map((a) => ({ ...a, amount: money(share(minor(a.amount))) }));

    const net = share(minor(product.subtotal));
    const taxes = product.taxes.map((t): ProductTax & { amount: number } => {
      const taxable = share(minor(t.taxableAmount));
      // A line tax without an amount is the rate applied to the credited base.
      const amount = t.amount === undefined ? prorate(taxable, t.rate, 100) : share(minor(t.amount));
      return { ...t, taxableAmount: money(taxable), amount: money(amount) };
    });
    const tax = taxes.reduce((sum, t) => sum + minor(t.amount), 0);
    const discounts = adjust(product.discounts);
    const charges = adjust(product.charges);
    const credited: Product = {
      ...product,
      quantity: quantityOf(allocation.quantity),
      taxes,
      subtotal: money(net),
      total: money(net + tax),
    };
    if (discounts) credited.discounts = discounts;
    if (charges) credited.charges = charges;
    return {
      originalLine: allocation.originalLine,
      productId: allocation.productId,
      product: credited,
      boughtQuantity: product.quantity,
      net,
      tax,
      total: net + tax,
    };
  });

  const subtotal = lines.reduce((sum, l) => sum + l.net, 0);
  // Receipt-level discounts and charges are credited in proportion to the net credited.
  const wholeSubtotal = minor(original.invoiceSubtotal);
  const subtotalBefore = input.previous.reduce((sum, n) => sum + minor(n.templateRequest.invoiceSubtotal), 0);
  const receiptShare = (amountMinor: number) =>
    wholeSubtotal === 0
      ? 0
      : prorate(amountMinor, subtotalBefore + subtotal, wholeSubtotal) - prorate(amountMinor, subtotalBefore, wholeSubtotal);
  const receiptAdjust = (list: Adjustment[] | undefined) => list?.map((a) => ({ ...a, amount: money(receiptShare(minor(a.amount))) }));
  const discounts = receiptAdjust(original.discounts);
  const charges = receiptAdjust(original.charges);
  const discountTotal = (discounts ?? []).reduce((sum, a) => sum + minor(a.amount), 0);
  const chargeTotal = (charges ?? []).reduce((sum, a) => sum + minor(a.amount), 0);
  const beforeTax = subtotal - discountTotal + chargeTotal;

  const taxes = taxBreakdown(lines, currency);
  const tax = taxes.reduce((sum, t) => sum + minor(t.amount), 0);

  const request: Record<string, unknown> = {
    documentNumber: input.documentNumber,
    originatorDocumentReference: original.documentNumber,
    issueDate: input.issueDate,
    currency,
    invoiceSubtotal: money(subtotal),
    totalBeforeTax: money(beforeTax),
    totalTaxAmount: money(tax),
    totalAmount: money(beforeTax + tax),
    products: lines.map((l) => l.product),
    taxes,
  };
  if (discounts) request.discounts = discounts;
  if (charges) request.charges = charges;
  if (input.note !== undefined) request.note = input.note;
  // A Grant restricted to stores needs the store of the original receipt.
  if (original.storeId !== undefined) request.storeId = original.storeId;

  return {
    // The same schema the service applies: a mistake here stops before anything is sent.
    request: parseOrThrow(CreditNoteTemplateRequest, request, 'the computed credit note'),
    lines,
    currency,
    totals: { subtotal, discounts: discountTotal, charges: chargeTotal, beforeTax, tax, total: beforeTax + tax },
  };
}

/** The receipt-level `taxes`: the credited line taxes summed per type, rate and label. */
function taxBreakdown(lines: readonly ComputedLine[], currency: string): ReceiptTax[] {
  const groups = new Map<string, { tax: ProductTax; amount: number; taxable: number }>();
  for (const line of lines) {
    for (const tax of line.product.taxes) {
      const key = JSON.stringify([tax.type, tax.rate, tax.label ?? null]);
      const group = groups.get(key) ?? { tax, amount: 0, taxable: 0 };
      group.amount += toMinor(tax.amount ?? 0, currency);
      group.taxable += toMinor(tax.taxableAmount, currency);
      groups.set(key, group);
    }
  }
  return [...groups.values()].map(({ tax, amount, taxable }) => {
    const entry: ReceiptTax = { rate: tax.rate, type: tax.type, amount: fromMinor(amount, currency), taxableAmount: fromMinor(taxable, currency) };
    if (tax.label !== undefined) entry.label = tax.label;
    return entry;
  });
}
