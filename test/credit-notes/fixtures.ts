// Receipts and return requests for the credit note tests: the groceries fixture, and a line
// of 3 items at 0.99 with a discount whose shares do not divide evenly into cents.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReturnRequest } from '../../src/contract/returns.js';
import type { ReceiptTemplateRequest } from '../../src/contract/template.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures');

export const groceries = (): ReceiptTemplateRequest =>
  JSON.parse(readFileSync(join(FIXTURES, 'receipts/groceries.json'), 'utf8')) as ReceiptTemplateRequest;

/** 3 × 0.99 = 2.97, less 0.50: net 2.47, VAT 19 % 0.47, total 2.94. */
export function discountedLine(): ReceiptTemplateRequest {
  return {
    documentNumber: 'R-2025-000900',
    issueDate: '2025-03-14T10:00:00Z',
    currency: 'EUR',
    invoiceSubtotal: 2.47,
    totalBeforeTax: 2.47,
    totalTaxAmount: 0.47,
    totalAmount: 2.94,
    products: [
      {
        name: 'Pencil, HB',
        brand: 'Graphit',
        identifier: 'PENCIL-HB',
        quantity: 3,
        unitCode: 'EA',
        unitPrice: 0.99,
        discounts: [{ amount: 0.5, label: 'Bundle' }],
        taxes: [{ rate: 19, type: 'VAT', amount: 0.47, taxableAmount: 2.47 }],
        subtotal: 2.47,
        total: 2.94,
      },
    ],
    taxes: [{ rate: 19, type: 'VAT', amount: 0.47, taxableAmount: 2.47 }],
  };
}

export function returnOf(receipt: ReceiptTemplateRequest, lines: [string, number][], changes: Partial<ReturnRequest> = {}): ReturnRequest {
  return {
    serviceReceiptId: 'sr-1',
    receiptId: receipt.documentNumber,
    lineItems: lines.map(([productId, quantity]) => ({ productId, quantity, reasonCode: 'DAMAGED' })),
    refundPreference: 'ORIGINAL_PAYMENT_METHOD',
    ...changes,
  };
}
