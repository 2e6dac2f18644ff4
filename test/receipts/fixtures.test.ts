// The receipt fixtures are what demos, docs and end-to-end tests send: each must pass the
// contract and add up exactly in minor units, as a careful point-of-sale system's would.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CustomerDetails } from '../../src/contract/receipt.js';
import { ReceiptTemplateRequest, type Adjustment } from '../../src/contract/template.js';
import { parseOrThrow } from '../../src/contract/validate.js';
import { minorUnitExponent, prorate, toMinor } from '../../src/crypto/money.js';

const fixtures = join(import.meta.dirname, '../../fixtures');
const receipts = readdirSync(join(fixtures, 'receipts')).filter((name) => name.endsWith('.json'));

function read(path: string): unknown {
  return JSON.parse(readFileSync(join(fixtures, path), 'utf8'));
}

describe.each(receipts)('fixtures/receipts/%s', (name) => {
  const request = parseOrThrow(ReceiptTemplateRequest, read(`receipts/${name}`), name);
  const { currency } = request;
  const minor = (amount: number) => toMinor(amount, currency);
  const sum = (items: readonly { amount: number }[] | undefined) => (items ?? []).reduce((acc, item) => acc + minor(item.amount), 0);
  const adjustments = (discounts?: Adjustment[], charges?: Adjustment[]) => sum(charges) - sum(discounts);

  it('has totalTaxAmount = the sum of taxes[].amount', () => {
    expect(minor(request.totalTaxAmount)).toBe(sum(request.taxes));
  });

  it('has totalAmount = totalBeforeTax + totalTaxAmount', () => {
    expect(minor(request.totalAmount)).toBe(minor(request.totalBeforeTax) + minor(request.totalTaxAmount));
  });

  it('has invoiceSubtotal = the sum of the lines, and totalBeforeTax = that plus receipt-level adjustments', () => {
    expect(minor(request.invoiceSubtotal)).toBe(request.products.reduce((acc, p) => acc + minor(p.subtotal), 0));
    expect(minor(request.totalBeforeTax)).toBe(minor(request.invoiceSubtotal) + adjustments(request.discounts, request.charges));
  });

  it('has every line add up: quantity × unitPrice − discounts + charges, then its taxes', () => {
    for (const p of request.products) {
      expect(minor(p.subtotal), p.identifier).toBe(prorate(minor(p.unitPrice), p.quantity, 1) + adjustments(p.discounts, p.charges));
      expect(minor(p.total), p.identifier).toBe(minor(p.subtotal) + sum(p.taxes.map((t) => ({ amount: t.amount ?? 0 }))));
      for (const tax of p.taxes) {
        expect(minor(tax.taxableAmount), p.identifier).toBe(minor(p.subtotal));
        expect(minor(tax.amount ?? 0), p.identifier).toBe(prorate(minor(tax.taxableAmount), tax.rate, 100));
      }
    }
  });

  it('has one receipt-level tax per rate, adding up its lines', () => {
    for (const tax of request.taxes) {
      const lines = request.products.flatMap((p) => p.taxes.filter((t) => t.rate === tax.rate && t.type === tax.type));
      expect(minor(tax.taxableAmount)).toBe(lines.reduce((acc, t) => acc + minor(t.taxableAmount), 0));
      expect(minor(tax.amount)).toBe(lines.reduce((acc, t) => acc + minor(t.amount ?? 0), 0));
      expect(minor(tax.amount)).toBe(prorate(minor(tax.taxableAmount), tax.rate, 100));
    }
  });
});

describe('the fixture set', () => {
  const all = receipts.map((name) => ReceiptTemplateRequest.parse(read(`receipts/${name}`)));

  it('covers two VAT rates in EUR, a period, a discounted and a charged line, and a zero-decimal currency', () => {
    expect(all.some((r) => r.currency === 'EUR' && new Set(r.taxes.map((t) => t.rate)).size >= 2)).toBe(true);
    expect(all.some((r) => r.products.some((p) => p.period !== undefined))).toBe(true);
    expect(all.some((r) => r.products.some((p) => p.discounts?.length))).toBe(true);
    expect(all.some((r) => r.products.some((p) => p.charges?.length))).toBe(true);
    expect(all.some((r) => minorUnitExponent(r.currency) === 0)).toBe(true);
  });

  it('has amounts with no more decimals than their currency allows', () => {
    for (const r of all) {
      const places = minorUnitExponent(r.currency);
      const amounts = [r.invoiceSubtotal, r.totalBeforeTax, r.totalTaxAmount, r.totalAmount, ...r.products.flatMap((p) => [p.unitPrice, p.subtotal, p.total])];
      for (const amount of amounts) expect(Number(amount.toFixed(places)), `${r.documentNumber} ${amount}`).toBe(amount);
    }
  });
});

describe('fixtures/customers/alice.json', () => {
  it('is the sandbox customer Alice', () => {
    expect(parseOrThrow(CustomerDetails, read('customers/alice.json'), 'alice.json')).toMatchObject({ email: 'alice@example.com' });
  });
});
