// The part of a return request typed at triage's prompt: `issue --item`'s PRODUCT_ID:QTY,
// several separated by spaces or commas, checked as issue checks --item.
import { describe, expect, it } from 'vitest';
import type { ReturnRequest } from '../../src/contract/returns.js';
import { askedPart, parsePart, partProblem } from '../../src/credit-notes/part.js';
import { ValidationError } from '../../src/errors.js';

const request: ReturnRequest = {
  serviceReceiptId: 'sr-1',
  receiptId: 'R-1',
  lineItems: [
    { productId: 'MILK', quantity: 2, reasonCode: 'DAMAGED' },
    { productId: 'urn:sku:7', quantity: 0.5, reasonCode: 'OTHER' },
    { productId: 'MILK', quantity: 1, reasonCode: 'DEFECTIVE' },
  ],
  refundPreference: 'STORE_CREDIT',
};

describe('the part accepted', () => {
  it('starts from what the request asks, one entry per product', () => {
    expect(askedPart(request)).toBe('MILK:3 urn:sku:7:0.5');
  });

  it('reads spaces and commas, product IDs with colons, and what the part may be', () => {
    expect(parsePart(' MILK:2, urn:sku:7:0.25 ', 'req-1', request)).toEqual([
      { productId: 'MILK', quantity: 2 },
      { productId: 'urn:sku:7', quantity: 0.25 },
    ]);
    expect(partProblem('MILK:3', 'req-1', request)).toBe(true);
  });

  it('names what is wrong: more than asked, a product not asked for, not PRODUCT_ID:QTY, nothing', () => {
    expect(partProblem('MILK:4', 'req-1', request)).toBe('productId MILK: quantity 4 is more than the 3 the request asks for');
    expect(partProblem('BREAD:1', 'req-1', request)).toMatch(/^productId BREAD: is not a line of return request req-1/);
    expect(partProblem('MILK', 'req-1', request)).toBe('"MILK" is not PRODUCT_ID:QTY with a positive quantity');
    expect(partProblem('  ', 'req-1', request)).toMatch(/name the part you accepted/);
    expect(() => parsePart('MILK:4', 'req-1', request)).toThrow(ValidationError);
  });
});
