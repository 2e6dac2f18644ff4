import { describe, expect, it } from 'vitest';
import { CreditNoteTemplateRequest, ReceiptTemplateRequest, UblDocument } from '../../src/contract/template.js';
import { bundledFixturePath, loadFixture } from '../../src/sandbox/fixture.js';
import { createSandboxState } from '../../src/sandbox/state.js';
import { creditNoteDocument, receiptDocument } from '../../src/sandbox/ubl.js';
import { RETAIL, templateRequest } from './receipt-helpers.js';

const state = createSandboxState(await loadFixture(bundledFixturePath()));
const company = state.companies.get(RETAIL);
if (!company) throw new Error('fixture company missing');

const EUR = (value: number) => ({ value, currencyID: 'EUR' });

describe('receiptDocument', () => {
  it('lays the request out as a UBL invoice of the company, with an empty customer party', () => {
    const doc = receiptDocument(ReceiptTemplateRequest.parse(templateRequest({ note: 'Thank you' })), company, 'nonce-1');
    expect(doc).toEqual({
      id: { value: 'R-2030-0001' },
      issueDate: '2030-06-01',
      issueTime: '14:00:00+02:00',
      documentCurrencyCode: 'EUR',
      note: 'Thank you',
      accountingSupplierParty: {
        partyIdentification: [{ id: { value: RETAIL } }],
        partyName: { name: 'Example Retail Ltd' },
        postalAddress: {
          streetName: 'Market Street',
          buildingNumber: '1',
          cityName: 'Sampletown',
          postalZone: '10115',
          country: { identificationCode: 'DE' },
        },
        partyTaxScheme: [{ companyID: 'EU000000001', taxScheme: { taxTypeCode: 'VAT' } }],
        partyLegalEntity: { registrationName: 'Example Retail Ltd' },
      },
      accountingCustomerParty: {},
      taxTotal: [
        {
          taxAmount: EUR(3.35),
          taxSubtotal: [
            { taxableAmount: EUR(25), taxAmount: EUR(1.75), percent: 7, taxCategory: { percent: 7, taxScheme: { taxTypeCode: 'VAT' } } },
            { taxableAmount: EUR(8.4), taxAmount: EUR(1.6), percent: 19, taxCategory: { percent: 19, taxScheme: { taxTypeCode: 'VAT' } } },
          ],
        },
      ],
      legalMonetaryTotal: {
        lineExtensionAmount: EUR(33.4),
        taxExclusiveAmount: EUR(33.4),
        taxInclusiveAmount: EUR(36.75),
        allowanceTotalAmount: EUR(0),
        chargeTotalAmount: EUR(0),
        payableAmount: EUR(36.75),
      },
      invoiceLine: [
        {
          id: { value: '1' },
          invoicedQuantity: { value: 2, unitCode: 'KGM' },
          lineExtensionAmount: EUR(25),
          item: {
            name: 'Coffee beans',
            brandName: ['Roastery'],
            sellersItemIdentification: { id: { value: 'SKU-BEANS-1KG' } },
            classifiedTaxCategory: [{ percent: 7, taxScheme: { taxTypeCode: 'VAT' } }],
          },
          price: { priceAmount: EUR(12.5) },
        },
        {
          id: { value: '2' },
          invoicedQuantity: { value: 1, unitCode: 'C62' },
          lineExtensionAmount: EUR(8.4),
          item: {
            name: 'Enamel mug',
            sellersItemIdentification: { id: { value: 'SKU-MUG' } },
            classifiedTaxCategory: [{ percent: 19, taxScheme: { taxTypeCode: 'VAT' } }],
          },
          price: { priceAmount: EUR(8.4) },
        },
      ],
      verificationNonce: 'nonce-1',
      warnings: [],
    });
    expect(UblDocument.safeParse(doc).success).toBe(true);
  });

  it('carries discounts, charges, periods, descriptions, identifiers and the base quantity', () => {
    const base = templateRequest();
    const [beans, mug] = base.products;
    if (!beans || !mug) throw new Error('template products missing');
    const request = ReceiptTemplateRequest.parse({
      ...base,
      identifiers: [{ value: 'PO-77', schemeName: 'purchase order' }],
      discounts: [
        { amount: 0.1, label: 'loyalty' },
        { amount: 0.2, percentage: 1 },
      ],
      charges: [{ amount: 1.5, label: 'delivery' }],
      products: [
        {
          ...beans,
          description: 'Whole beans, medium roast',
          baseQuantity: 1,
          period: { startDate: '2030-06-01', endDate: '2030-06-30' },
          discounts: [{ amount: 1, percentage: 4, label: 'promo' }],
        },
        mug,
      ],
    });
    const doc = receiptDocument(request, company, 'n');
    expect(doc.additionalDocumentReference).toEqual([{ id: { value: 'PO-77', schemeName: 'purchase order' } }]);
    expect(doc.allowanceCharge).toEqual([
      { chargeIndicator: false, allowanceChargeReason: ['loyalty'], amount: EUR(0.1) },
      { chargeIndicator: false, multiplierFactorNumeric: 1, amount: EUR(0.2) },
      { chargeIndicator: true, allowanceChargeReason: ['delivery'], amount: EUR(1.5) },
    ]);
    // Summed in cents: 0.1 + 0.2 is 0.3 here, not 0.30000000000000004.
    expect(doc.legalMonetaryTotal?.allowanceTotalAmount).toEqual(EUR(0.3));
    expect(doc.legalMonetaryTotal?.chargeTotalAmount).toEqual(EUR(1.5));
    expect(doc.invoiceLine?.[0]).toMatchObject({
      invoicePeriod: { startDate: '2030-06-01', endDate: '2030-06-30' },
      allowanceCharge: [{ chargeIndicator: false, allowanceChargeReason: ['promo'], multiplierFactorNumeric: 4, amount: EUR(1) }],
      item: { description: ['Whole beans, medium roast'] },
      price: { priceAmount: EUR(12.5), baseQuantity: { value: 1, unitCode: 'KGM' } },
    });
  });

  it('keeps the date and time as the seller wrote them, time zone included', () => {
    const utc = receiptDocument(ReceiptTemplateRequest.parse(templateRequest({ issueDate: '2030-12-31T23:30:00Z' })), company, 'n');
    expect([utc.issueDate, utc.issueTime]).toEqual(['2030-12-31', '23:30:00Z']);
  });

  it('warns, without refusing, when totalAmount is not totalBeforeTax + totalTaxAmount', () => {
    const doc = receiptDocument(ReceiptTemplateRequest.parse(templateRequest({ totalAmount: 36.7 })), company, 'n');
    expect(doc.warnings).toEqual(['totalAmount 36.70 EUR is not totalBeforeTax + totalTaxAmount (33.40 EUR + 3.35 EUR = 36.75 EUR)']);
    expect(doc.legalMonetaryTotal?.payableAmount).toEqual(EUR(36.7));
  });
});

describe('creditNoteDocument', () => {
  it('is the same document with credit note lines and a reference to the original receipt', () => {
    const request = CreditNoteTemplateRequest.parse({ ...templateRequest({ documentNumber: 'CN-1' }), originatorDocumentReference: 'R-2030-0001' });
    const doc = creditNoteDocument(request, company, 'n');
    const receipt = receiptDocument(ReceiptTemplateRequest.parse(templateRequest({ documentNumber: 'CN-1' })), company, 'n');
    expect(doc.originatorDocumentReference).toEqual([{ id: { value: 'R-2030-0001' } }]);
    expect(doc.invoiceLine).toBeUndefined();
    expect(doc.creditNoteLine?.map((l) => l.creditedQuantity)).toEqual([
      { value: 2, unitCode: 'KGM' },
      { value: 1, unitCode: 'C62' },
    ]);
    const { originatorDocumentReference: _ref, creditNoteLine, ...rest } = doc;
    const { invoiceLine, ...receiptRest } = receipt;
    expect(rest).toEqual(receiptRest);
    expect(creditNoteLine?.map(({ creditedQuantity: _q, ...line }) => line)).toEqual(invoiceLine?.map(({ invoicedQuantity: _q, ...line }) => line));
  });
});
