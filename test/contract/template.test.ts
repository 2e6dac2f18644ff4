import { describe, expect, it } from 'vitest';
import {
  CreditNoteTemplateRequest,
  Product,
  ReceiptTemplateRequest,
  UNIT_CODES,
  UblDocument,
  templateWarnings,
} from '../../src/contract/template.js';
import { expectIssue, expectValid, issuesFor } from './issues.js';

function product(): Record<string, unknown> {
  return {
    name: 'Green tea',
    brand: 'Leafy',
    identifier: 'TEA-001',
    quantity: 2,
    unitCode: 'EA',
    unitPrice: 5,
    taxes: [{ rate: 19, type: 'VAT', amount: 1.9, taxableAmount: 10 }],
    subtotal: 10,
    total: 11.9,
  };
}

function creditNote(): Record<string, unknown> {
  return {
    documentNumber: 'CN-2024-0001',
    originatorDocumentReference: 'R-2024-0042',
    issueDate: '2024-05-01T12:00:00Z',
    currency: 'EUR',
    invoiceSubtotal: 10,
    totalBeforeTax: 10,
    totalTaxAmount: 1.9,
    totalAmount: 11.9,
    products: [product()],
    taxes: [{ rate: 19, type: 'VAT', amount: 1.9, taxableAmount: 10 }],
  };
}

/** A valid credit note template with one member replaced (undefined removes it). */
function with_(changes: Record<string, unknown>): Record<string, unknown> {
  const template = { ...creditNote(), ...changes };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete template[key];
  return template;
}

/** A valid template whose first product has members replaced. */
function withProduct(changes: Record<string, unknown>): Record<string, unknown> {
  const p = { ...product(), ...changes };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete p[key];
  return with_({ products: [p] });
}

describe('CreditNoteTemplateRequest', () => {
  it('accepts a complete template and keeps unknown members', () => {
    const parsed = CreditNoteTemplateRequest.parse({ ...creditNote(), futureMember: { x: 1 } });
    expect(parsed).toMatchObject({ documentNumber: 'CN-2024-0001', futureMember: { x: 1 } });
  });

  it('accepts every optional member', () => {
    expectValid(
      CreditNoteTemplateRequest,
      with_({
        identifiers: [{ value: 'PO-7', schemeID: 'PO', schemeAgencyName: 'Shop' }],
        discounts: [{ amount: 1, percentage: 10, label: 'Loyalty' }],
        charges: [{ amount: 0.5, label: 'Packaging' }],
        note: 'Thank you',
        storeId: 'store-1',
      }),
    );
  });

  it.each(['documentNumber', 'originatorDocumentReference', 'issueDate', 'currency', 'invoiceSubtotal',
    'totalBeforeTax', 'totalTaxAmount', 'totalAmount', 'products', 'taxes'])('requires %s', (member) => {
    expectIssue(CreditNoteTemplateRequest, with_({ [member]: undefined }), member, 'is required');
  });

  it.each(['documentNumber', 'originatorDocumentReference', 'storeId'])('refuses an empty %s', (member) => {
    expectIssue(CreditNoteTemplateRequest, with_({ [member]: '' }), member, 'must not be empty');
  });

  describe('issueDate is an ISO 8601 date-time', () => {
    it.each(['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.123Z', '2024-05-01T14:00:00+02:00'])('accepts %s', (date) => {
      expectValid(CreditNoteTemplateRequest, with_({ issueDate: date }));
    });
    it.each(['2024-05-01', 'yesterday', '01.05.2024 12:00', '2024-13-01T12:00:00Z'])('refuses %s', (date) => {
      expectIssue(CreditNoteTemplateRequest, with_({ issueDate: date }), 'issueDate', /ISO 8601 date-time/);
    });
  });

  describe('currency is a three-letter ISO 4217 code', () => {
    it.each(['EUR', 'JPY', 'BHD'])('accepts %s', (currency) => {
      expectValid(
        CreditNoteTemplateRequest,
        with_({ currency, totalTaxAmount: 2, totalAmount: 12, taxes: [{ rate: 19, type: 'VAT', amount: 2, taxableAmount: 10 }] }),
      );
    });
    it.each(['eur', 'EURO', 'E', '€', ''])('refuses %j', (currency) => {
      expectIssue(CreditNoteTemplateRequest, with_({ currency }), 'currency', /ISO 4217/);
    });
  });

  describe('amounts are finite, non-negative numbers', () => {
    const amounts = ['invoiceSubtotal', 'totalBeforeTax', 'totalTaxAmount', 'totalAmount'];
    it.each(amounts)('%s may not be a string', (member) => {
      expectIssue(CreditNoteTemplateRequest, with_({ [member]: '10' }), member, 'must be a number, not a string');
    });
    it.each(amounts)('%s may not be negative', (member) => {
      expectIssue(CreditNoteTemplateRequest, with_({ [member]: -1 }), member, 'must not be negative');
    });
    it.each(amounts)('%s must be finite', (member) => {
      expectIssue(CreditNoteTemplateRequest, with_({ [member]: Number.POSITIVE_INFINITY }), member, 'finite');
      expectIssue(CreditNoteTemplateRequest, with_({ [member]: Number.NaN }), member, 'finite');
    });
  });

  it('needs at least one product', () => {
    expectIssue(CreditNoteTemplateRequest, with_({ products: [] }), 'products', 'must have at least one entry');
  });

  it('checks receipt-level discounts and charges: amount required', () => {
    expectIssue(CreditNoteTemplateRequest, with_({ discounts: [{ label: 'x' }] }), 'discounts.0.amount', 'is required');
    expectIssue(CreditNoteTemplateRequest, with_({ charges: [{ amount: -1 }] }), 'charges.0.amount', 'must not be negative');
    expectIssue(CreditNoteTemplateRequest, with_({ charges: [{ amount: 1, percentage: 'ten' }] }), 'charges.0.percentage');
    expectIssue(CreditNoteTemplateRequest, with_({ discounts: [{ amount: 1, label: 3 }] }), 'discounts.0.label');
  });

  it('checks receipt-level taxes: amount, rate, type and taxableAmount required', () => {
    for (const member of ['amount', 'rate', 'type', 'taxableAmount']) {
      const tax: Record<string, unknown> = { rate: 19, type: 'VAT', amount: 1.9, taxableAmount: 10 };
      delete tax[member];
      expectIssue(CreditNoteTemplateRequest, with_({ taxes: [tax] }), `taxes.0.${member}`, 'is required');
    }
  });

  it('refuses identifiers that are not strings', () => {
    expectIssue(CreditNoteTemplateRequest, with_({ identifiers: [{ value: 7 }] }), 'identifiers.0.value', 'must be a string');
  });

  it('refuses a note that is not a string', () => {
    expectIssue(CreditNoteTemplateRequest, with_({ note: 42 }), 'note', 'must be a string, not a number');
  });

  describe('totalTaxAmount equals the sum of taxes[].amount in minor units', () => {
    it('accepts sums that differ only by binary noise', () => {
      expectValid(
        CreditNoteTemplateRequest,
        with_({
          totalTaxAmount: 0.3,
          totalAmount: 10.3,
          taxes: [
            { rate: 7, type: 'VAT', amount: 0.1, taxableAmount: 1 },
            { rate: 19, type: 'VAT', amount: 0.2, taxableAmount: 1 },
          ],
        }),
      );
    });

    it('reports a mismatch at totalTaxAmount with both values', () => {
      expectIssue(
        CreditNoteTemplateRequest,
        with_({ totalTaxAmount: 2, totalAmount: 12 }),
        'totalTaxAmount',
        'it is 2.00 EUR, the taxes add up to 1.90 EUR',
      );
    });

    it('compares in the currency\'s own minor unit', () => {
      const jpy = { currency: 'JPY', totalTaxAmount: 100, totalAmount: 1100, taxes: [{ rate: 10, type: 'JCT', amount: 100.4, taxableAmount: 1000 }] };
      expectValid(CreditNoteTemplateRequest, with_(jpy));
      expectIssue(CreditNoteTemplateRequest, with_({ ...jpy, totalTaxAmount: 101 }), 'totalTaxAmount', '101 JPY');
      const bhd = { currency: 'BHD', totalTaxAmount: 0.1, totalAmount: 10.1, taxes: [{ rate: 1, type: 'VAT', amount: 0.101, taxableAmount: 10 }] };
      expectIssue(CreditNoteTemplateRequest, with_(bhd), 'totalTaxAmount', 'it is 0.100 BHD, the taxes add up to 0.101 BHD');
    });

    it('is reported together with problems elsewhere', () => {
      const issues = issuesFor(CreditNoteTemplateRequest, { ...withProduct({ unitCode: 'XYZ' }), totalTaxAmount: 5 });
      expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['products.0.unitCode', 'totalTaxAmount']));
    });
  });

  it('does not refuse a totalAmount other than totalBeforeTax + totalTaxAmount', () => {
    expectValid(CreditNoteTemplateRequest, with_({ totalAmount: 99 }));
  });
});

describe('Product', () => {
  it.each(['name', 'brand', 'identifier', 'quantity', 'unitCode', 'unitPrice', 'taxes', 'subtotal', 'total'])(
    'requires %s',
    (member) => {
      expectIssue(CreditNoteTemplateRequest, withProduct({ [member]: undefined }), `products.0.${member}`, 'is required');
    },
  );

  it('allows an empty brand but not an empty name or identifier', () => {
    expectValid(CreditNoteTemplateRequest, withProduct({ brand: '' }));
    expectIssue(CreditNoteTemplateRequest, withProduct({ name: '' }), 'products.0.name', 'must not be empty');
    expectIssue(CreditNoteTemplateRequest, withProduct({ identifier: '' }), 'products.0.identifier', 'must not be empty');
  });

  it('limits identifier to 255 characters, like a return request\'s productId', () => {
    expectValid(CreditNoteTemplateRequest, withProduct({ identifier: 'x'.repeat(255) }));
    expectIssue(
      CreditNoteTemplateRequest,
      withProduct({ identifier: 'x'.repeat(256) }),
      'products.0.identifier',
      'must be at most 255 characters',
    );
  });

  it('takes a positive quantity, fractional too where the unit is measured; whole where it is counted', () => {
    expectValid(CreditNoteTemplateRequest, withProduct({ quantity: 0.25, unitCode: 'KGM' }));
    expectIssue(CreditNoteTemplateRequest, withProduct({ quantity: 0.25, unitCode: 'C62' }), 'products.0.quantity', 'must be a whole number: C62 is a unit that is counted, not measured (got 0.25)');
    expectIssue(CreditNoteTemplateRequest, withProduct({ quantity: 0 }), 'products.0.quantity', 'must be greater than 0');
    expectIssue(CreditNoteTemplateRequest, withProduct({ quantity: -1 }), 'products.0.quantity', 'must be greater than 0');
  });

  it('takes an optional positive baseQuantity', () => {
    expectValid(CreditNoteTemplateRequest, withProduct({ baseQuantity: 1 }));
    expectIssue(CreditNoteTemplateRequest, withProduct({ baseQuantity: 0 }), 'products.0.baseQuantity', 'must be greater than 0');
  });

  it('accepts every listed unit code', () => {
    expect(UNIT_CODES).toHaveLength(54);
    for (const unitCode of UNIT_CODES) expect(Product.safeParse({ ...product(), unitCode }).success, unitCode).toBe(true);
  });

  it.each(['XYZ', 'ea', 'PCE', ''])('refuses the unit code %j by name', (unitCode) => {
    expectIssue(
      CreditNoteTemplateRequest,
      withProduct({ unitCode }),
      'products.0.unitCode',
      `unknown unit code ${JSON.stringify(unitCode)}; see the unit code list`,
    );
  });

  it('takes a period of strings', () => {
    expectValid(
      CreditNoteTemplateRequest,
      withProduct({
        period: {
          startDate: '2024-05-01',
          endDate: '2024-05-31',
          durationMeasure: { unitCode: 'DAY' },
          descriptionCode: { listID: 'x', name: 'month' },
          description: 'May',
        },
      }),
    );
    expectIssue(CreditNoteTemplateRequest, withProduct({ period: { startDate: 20240501 } }), 'products.0.period.startDate');
    expectIssue(CreditNoteTemplateRequest, withProduct({ period: 'May' }), 'products.0.period', 'must be an object');
  });

  it('refuses a negative unitPrice, subtotal or total', () => {
    for (const member of ['unitPrice', 'subtotal', 'total']) {
      expectIssue(CreditNoteTemplateRequest, withProduct({ [member]: -0.01 }), `products.0.${member}`, 'must not be negative');
    }
  });

  it('checks product discounts and charges: amount required, percentage a number, label a string', () => {
    expectValid(CreditNoteTemplateRequest, withProduct({ discounts: [{ amount: 1, percentage: 10, label: 'x' }], charges: [{ amount: 2 }] }));
    expectIssue(CreditNoteTemplateRequest, withProduct({ discounts: [{ percentage: 10 }] }), 'products.0.discounts.0.amount', 'is required');
    expectIssue(CreditNoteTemplateRequest, withProduct({ charges: [{ label: 'x' }] }), 'products.0.charges.0.amount', 'is required');
    expectIssue(CreditNoteTemplateRequest, withProduct({ charges: [{ amount: 1, percentage: '5' }] }), 'products.0.charges.0.percentage');
    expectIssue(CreditNoteTemplateRequest, withProduct({ discounts: [{ amount: 1, label: 5 }] }), 'products.0.discounts.0.label');
  });

  it('checks product taxes: rate, type and taxableAmount required, amount optional', () => {
    expectValid(CreditNoteTemplateRequest, withProduct({ taxes: [{ rate: 19, type: 'VAT', taxableAmount: 10, label: 'standard' }] }));
    expectValid(CreditNoteTemplateRequest, withProduct({ taxes: [] }));
    expectIssue(CreditNoteTemplateRequest, withProduct({ taxes: [{ type: 'VAT', taxableAmount: 10 }] }), 'products.0.taxes.0.rate', 'is required');
    expectIssue(CreditNoteTemplateRequest, withProduct({ taxes: [{ rate: 19, taxableAmount: 10 }] }), 'products.0.taxes.0.type', 'is required');
    expectIssue(CreditNoteTemplateRequest, withProduct({ taxes: [{ rate: 19, type: 'VAT' }] }), 'products.0.taxes.0.taxableAmount', 'is required');
    expectIssue(CreditNoteTemplateRequest, withProduct({ taxes: [{ rate: 19, type: '', taxableAmount: 1 }] }), 'products.0.taxes.0.type', 'must not be empty');
  });
});

describe('ReceiptTemplateRequest', () => {
  it('is the credit note template without originatorDocumentReference', () => {
    const { originatorDocumentReference: _dropped, ...receipt } = creditNote();
    expectValid(ReceiptTemplateRequest, receipt);
    expectIssue(CreditNoteTemplateRequest, receipt, 'originatorDocumentReference', 'is required');
  });

  it('applies the same rules', () => {
    expectIssue(ReceiptTemplateRequest, with_({ products: [] }), 'products', 'must have at least one entry');
    expectIssue(ReceiptTemplateRequest, with_({ totalTaxAmount: 3 }), 'totalTaxAmount', 'the taxes add up to 1.90 EUR');
  });
});

describe('templateWarnings', () => {
  it('is empty when totalAmount = totalBeforeTax + totalTaxAmount, to the minor unit', () => {
    expect(templateWarnings({ currency: 'EUR', totalBeforeTax: 0.1, totalTaxAmount: 0.2, totalAmount: 0.3 })).toEqual([]);
  });

  it('names the three amounts when they disagree', () => {
    expect(templateWarnings({ currency: 'EUR', totalBeforeTax: 10, totalTaxAmount: 1.9, totalAmount: 12 })).toEqual([
      'totalAmount 12.00 EUR is not totalBeforeTax + totalTaxAmount (10.00 EUR + 1.90 EUR = 11.90 EUR)',
    ]);
  });
});

describe('UblDocument', () => {
  it('parses a template response and keeps every member it does not type', () => {
    const doc = {
      id: { value: 'CN-1', schemeID: 'x' },
      issueDate: '2024-05-01',
      documentCurrencyCode: 'EUR',
      creditNoteTypeCode: { listID: 'UNCL1001', name: '381' },
      accountingSupplierParty: { partyLegalEntity: { registrationName: 'Shop GmbH' } },
      accountingCustomerParty: {},
      legalMonetaryTotal: { payableAmount: { value: 11.9, currencyID: 'EUR' } },
      creditNoteLine: [{ id: { value: '1' }, creditedQuantity: { value: 2, unitCode: 'EA' }, item: { name: 'Tea' } }],
      originatorDocumentReference: [{ id: { value: 'R-1' }, copyIndicator: false }],
      verificationNonce: 'n',
      warnings: ['totalAmount ...'],
    };
    expect(UblDocument.parse(doc)).toEqual(doc);
    expectValid(UblDocument, {});
  });

  it('refuses typed members of the wrong shape', () => {
    expectIssue(UblDocument, { creditNoteLine: {} }, 'creditNoteLine', 'must be an array');
    expectIssue(UblDocument, { invoiceLine: [{ lineExtensionAmount: { value: '1' } }] }, 'invoiceLine.0.lineExtensionAmount.value');
    expectIssue(UblDocument, { warnings: [1] }, 'warnings.0');
  });
});
