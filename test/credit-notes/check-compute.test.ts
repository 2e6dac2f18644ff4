import { describe, expect, it } from 'vitest';
import { CreditNoteTemplateRequest } from '../../src/contract/template.js';
import { checkReturn, type ReturnCheck } from '../../src/credit-notes/check.js';
import { computeCreditNote } from '../../src/credit-notes/compute.js';
import type { CreditNoteRecord } from '../../src/contract/records.js';
import { toMinor } from '../../src/crypto/money.js';
import { ValidationError } from '../../src/errors.js';
import { discountedLine, groceries, returnOf } from './fixtures.js';

const NOW = Date.parse('2025-03-20T12:00:00Z');
const DAY = 86_400_000;

function check(overrides: Partial<ReturnCheck> & Pick<ReturnCheck, 'returnRequest'>, receipt = groceries()): ReturnCheck {
  return {
    requestId: 'req-1',
    status: 'PENDING',
    serviceReceiptId: 'sr-1',
    original: { serviceReceiptId: 'sr-1', request: receipt },
    previous: [],
    grantFlag: '',
    now: NOW,
    windowDays: 30,
    ...overrides,
  };
}

function issuesOf(run: () => unknown): { path: string; message: string }[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return [...(error as ValidationError).issues];
  }
  throw new Error('expected a ValidationError');
}

/** An earlier credit note that took `quantity` of `originalLine`. */
function earlier(documentNumber: string, originalLine: number, productId: string, quantity: number, invoiceSubtotal = 0): CreditNoteRecord {
  return {
    serviceReceiptId: `cn-${documentNumber}`,
    requestId: `req-${documentNumber}`,
    documentNumber,
    issuedAt: '2025-03-15T00:00:00.000Z',
    lines: [{ originalLine, productId, quantity }],
    templateRequest: { documentNumber, currency: 'EUR', invoiceSubtotal, totalAmount: 0 },
    templateHash: 'a'.repeat(64),
    finalHash: 'b'.repeat(64),
    matchId: 'm-1',
    recipients: [],
    submission: { serviceReceiptId: `cn-${documentNumber}`, parentServiceReceiptId: 'sr-1', templateHash: 'a'.repeat(64), createdAt: '2025-03-15T00:00:00Z' },
  };
}

describe('checkReturn', () => {
  it('allocates an acceptable return to the original lines', () => {
    const request = returnOf(groceries(), [['4001234567890', 1], ['4001111222333', 6]]);
    expect(checkReturn(check({ returnRequest: request }))).toEqual([
      { originalLine: 0, productId: '4001234567890', quantity: 1_000_000, creditedBefore: 0 },
      { originalLine: 5, productId: '4001111222333', quantity: 6_000_000, creditedBefore: 0 },
    ]);
  });

  it('refuses half a piece: a product counted by the piece (EA) is returned whole, a measured one (KGM) in fractions', () => {
    const request = returnOf(groceries(), [['4001234567890', 0.5], ['PLU-4011', 0.5]]);
    expect(issuesOf(() => checkReturn(check({ returnRequest: request })))).toEqual([
      { path: 'lineItems.0 (productId 4001234567890)', message: 'quantity must be a whole number: EA is a unit that is counted, not measured (got 0.5)' },
    ]);
  });

  it('half a piece named with --item is the flag\'s fault, not the request\'s', () => {
    const request = returnOf(groceries(), [['4001234567890', 1]]);
    let caught: unknown;
    try {
      checkReturn(check({ returnRequest: request, approved: [{ line: 0, quantity: 0.5 }] }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).message).toBe('--item is invalid:\n  4001234567890:0.5: quantity must be a whole number: EA is a unit that is counted, not measured (got 0.5)');
    expect((caught as ValidationError).hint).not.toContain('reject');
  });

  it('adds up a product that repeats across request lines, fractional quantities exactly', () => {
    const request = returnOf(groceries(), [['PLU-4011', 0.1], ['PLU-4011', 0.2], ['PLU-4011', 0.95]]);
    expect(checkReturn(check({ returnRequest: request }))).toEqual([
      { originalLine: 1, productId: 'PLU-4011', quantity: 1_250_000, creditedBefore: 0 },
    ]);
  });

  it('takes only the approved part, naming each line by its place in the request', () => {
    const request = returnOf(groceries(), [['4001234567890', 2], ['4009876543210', 2]]);
    expect(checkReturn(check({ returnRequest: request, approved: [{ line: 0, quantity: 1 }] }))).toEqual([
      { originalLine: 0, productId: '4001234567890', quantity: 1_000_000, creditedBefore: 0 },
    ]);
    const previous = [earlier('CN-1', 0, '4001234567890', 1)];
    expect(issuesOf(() => checkReturn(check({ returnRequest: request, previous, approved: [{ line: 0, quantity: 2 }, { line: 1, quantity: 1 }] })))).toEqual([
      { path: 'lineItems.0 (productId 4001234567890)', message: 'quantity 2 is more than the 1 that can still be returned (bought 2; 1 already credited by CN-1)' },
    ]);
  });

  it('names an unknown product, an over-return and the receipt id, each at its line', () => {
    const request = returnOf(groceries(), [['4001234567890', 1], ['NOT-SOLD', 1], ['4009876543210', 2]], { receiptId: 'R-OTHER' });
    expect(issuesOf(() => checkReturn(check({ returnRequest: request })))).toEqual([
      { path: 'receiptId', message: 'is "R-OTHER", but receipt sr-1 is this merchant\'s document R-2025-000871' },
      { path: 'lineItems.1 (productId NOT-SOLD)', message: 'is not a product of receipt R-2025-000871' },
      { path: 'lineItems.2 (productId 4009876543210)', message: 'quantity 2 is more than the 1 that can still be returned (bought 1)' },
    ]);
  });

  it('counts what earlier credit notes and earlier lines of the request took', () => {
    const request = returnOf(groceries(), [['4001111222333', 2], ['4001111222333', 2]]);
    const previous = [earlier('CN-1', 5, '4001111222333', 3)];
    expect(issuesOf(() => checkReturn(check({ returnRequest: request, previous })))).toEqual([
      {
        path: 'lineItems.1 (productId 4001111222333)',
        message: 'quantity 2 is more than the 1 that can still be returned (bought 6; 3 already credited by CN-1; 2 asked for on earlier lines of this request)',
      },
    ]);
  });

  it('refuses a return after the window, by the injected clock', () => {
    const request = returnOf(groceries(), [['4001234567890', 1]]);
    const issued = Date.parse('2025-03-14T17:42:05+01:00');
    expect(() => checkReturn(check({ returnRequest: request, now: issued + 30 * DAY }))).not.toThrow();
    expect(issuesOf(() => checkReturn(check({ returnRequest: request, now: issued + 30 * DAY + 1 })))).toEqual([
      {
        path: 'receipt',
        message: 'the return window of 30 days ended 2025-04-13T16:42:05.000Z; receipt R-2025-000871 was issued 2025-03-14T17:42:05+01:00',
      },
    ]);
  });

  it('keeps the window by when the customer asked: asked in time stays good however long it waited, asked late is refused', () => {
    const request = returnOf(groceries(), [['4001234567890', 1]]);
    const issued = Date.parse('2025-03-14T17:42:05+01:00');
    const later = issued + 60 * DAY;
    expect(() => checkReturn(check({ returnRequest: request, now: later, askedAt: issued + 30 * DAY }))).not.toThrow();
    expect(issuesOf(() => checkReturn(check({ returnRequest: request, now: later, askedAt: issued + 30 * DAY + 1 })))).toEqual([
      {
        path: 'receipt',
        message: 'asked for 2025-04-13T16:42:05.001Z, after the return window of 30 days ended 2025-04-13T16:42:05.000Z; receipt R-2025-000871 was issued 2025-03-14T17:42:05+01:00',
      },
    ]);
  });

  it('wants a valid IBAN for a bank transfer, and never shows it in full', () => {
    const base = returnOf(groceries(), [['4001234567890', 1]], { refundPreference: 'BANK_TRANSFER' });
    expect(issuesOf(() => checkReturn(check({ returnRequest: { ...base, refundBankAccount: { accountHolder: 'Alice' } } })))).toEqual([
      { path: 'refundBankAccount.iban', message: 'is required for a BANK_TRANSFER refund' },
    ]);
    const bad = issuesOf(() => checkReturn(check({ returnRequest: { ...base, refundBankAccount: { iban: 'DE89370400440532013001' } } })));
    expect(bad).toEqual([{ path: 'refundBankAccount.iban', message: '•••• 3001 is not a valid IBAN: it has check digits that do not match (ISO 13616 MOD 97)' }]);
    expect(() => checkReturn(check({ returnRequest: { ...base, refundBankAccount: { iban: 'DE89 3704 0044 0532 0130 00' } } }))).not.toThrow();
  });

  it('refuses a request for another receipt than the record', () => {
    const request = returnOf(groceries(), [['4001234567890', 1]]);
    const issues = issuesOf(() => checkReturn(check({ returnRequest: request, original: { serviceReceiptId: 'sr-9', request: groceries() } })));
    expect(issues).toEqual([{ path: 'serviceReceiptId', message: 'the receipt record given is for receipt sr-9, not sr-1' }]);
  });
});

describe('computeCreditNote', () => {
  const compute = (receipt: ReturnType<typeof discountedLine>, quantity: number, previous: CreditNoteRecord[] = []) => {
    const allocations = checkReturn(check({ returnRequest: returnOf(receipt, [['PENCIL-HB', quantity]]), previous }, receipt));
    return computeCreditNote({ original: receipt, allocations, previous, documentNumber: 'CN-1', issueDate: '2025-03-20T12:00:00.000Z' });
  };

  it('prorates a discounted line by quantity in exact cents: 1 of 3 at 0.99 less 0.50', () => {
    const credit = compute(discountedLine(), 1);
    const [product] = credit.request.products;
    expect(product).toMatchObject({
      identifier: 'PENCIL-HB',
      quantity: 1,
      unitPrice: 0.99,
      discounts: [{ amount: 0.17, label: 'Bundle' }],
      taxes: [{ rate: 19, type: 'VAT', amount: 0.16, taxableAmount: 0.82 }],
      subtotal: 0.82,
      total: 0.98,
    });
    expect(credit.request).toMatchObject({
      originatorDocumentReference: 'R-2025-000900',
      invoiceSubtotal: 0.82,
      totalBeforeTax: 0.82,
      totalTaxAmount: 0.16,
      totalAmount: 0.98,
      taxes: [{ rate: 19, type: 'VAT', amount: 0.16, taxableAmount: 0.82 }],
    });
    expect(credit.totals).toEqual({ subtotal: 82, discounts: 0, charges: 0, beforeTax: 82, tax: 16, total: 98 });
  });

  it('credits the rest so that all credit notes of a line add up to the line exactly', () => {
    const first = compute(discountedLine(), 1);
    const second = compute(discountedLine(), 2, [{ ...earlier('CN-1', 0, 'PENCIL-HB', 1, 0.82) }]);
    expect(second.request.products[0]).toMatchObject({ quantity: 2, subtotal: 1.65, total: 1.96, discounts: [{ amount: 0.33 }] });
    const sum = (pick: (c: typeof first) => number) => toMinor(pick(first), 'EUR') + toMinor(pick(second), 'EUR');
    expect(sum((c) => c.request.invoiceSubtotal)).toBe(247);
    expect(sum((c) => c.request.totalTaxAmount)).toBe(47);
    expect(sum((c) => c.request.totalAmount)).toBe(294);
  });

  // Milk 1 of 2 (tax 0.17 → 0.085 → 0.09), bananas 0.5 of 1.25 kg (0.17 → 0.068 → 0.07), soap 1 of 1.
  it('builds a template request the schema accepts, taxes summed per rate', () => {
    const receipt = groceries();
    const allocations = checkReturn(check({ returnRequest: returnOf(receipt, [['4001234567890', 1], ['PLU-4011', 0.5], ['4012345000500', 1]]) }));
    const credit = computeCreditNote({ original: receipt, allocations, previous: [], documentNumber: 'CN-R-2025-000871-1', issueDate: '2025-03-20T12:00:00.000Z' });
    expect(CreditNoteTemplateRequest.safeParse(credit.request).success).toBe(true);
    expect(credit.request.taxes).toEqual([
      { rate: 7, type: 'VAT', amount: 0.16, taxableAmount: 2.19, label: 'VAT 7%' },
      { rate: 19, type: 'VAT', amount: 0.56, taxableAmount: 2.95, label: 'VAT 19%' },
    ]);
    expect(credit.request).toMatchObject({ invoiceSubtotal: 5.14, totalTaxAmount: 0.72, totalAmount: 5.86, currency: 'EUR' });
  });

  it('credits receipt-level discounts in proportion to the net credited', () => {
    const receipt = { ...discountedLine(), discounts: [{ amount: 0.3, label: 'Coupon' }], totalBeforeTax: 2.17, totalAmount: 2.64 };
    const credit = compute(receipt, 1);
    expect(credit.request.discounts).toEqual([{ amount: 0.1, label: 'Coupon' }]);
    expect(credit.request).toMatchObject({ invoiceSubtotal: 0.82, totalBeforeTax: 0.72, totalAmount: 0.88 });
  });
});
