// The UBL documents `POST /receipt/template` and `POST /credit-note/template` answer with
// (docs/interface-decisions.md#recipients-receipts-and-credit-notes, #final-documents): the request's figures laid out as
// an invoice or a credit note of the calling company, with an empty customer party that the
// SDK fills in on the customer's behalf. Pure: the caller supplies the nonce.
import type { Adjustment, CreditNoteTemplateRequest, Product, ReceiptTemplateRequest, UblDocument } from '../contract/template.js';
import { templateWarnings } from '../contract/template.js';
import { fromMinor, toMinor } from '../crypto/money.js';
import type { Company } from './state.js';

type LineQuantityKey = 'invoicedQuantity' | 'creditedQuantity';

export function receiptDocument(request: ReceiptTemplateRequest, supplier: Company, verificationNonce: string): UblDocument {
  const { head, tail } = documentParts(request, supplier, verificationNonce);
  return { ...head, invoiceLine: lines(request, 'invoicedQuantity'), ...tail };
}

export function creditNoteDocument(request: CreditNoteTemplateRequest, supplier: Company, verificationNonce: string): UblDocument {
  const { head, tail } = documentParts(request, supplier, verificationNonce);
  return {
    ...head,
    originatorDocumentReference: [{ id: { value: request.originatorDocumentReference } }],
    creditNoteLine: lines(request, 'creditedQuantity'),
    ...tail,
  };
}

/** What both documents share, split where the kind-specific members go so that member order stays readable. */
function documentParts(request: ReceiptTemplateRequest, supplier: Company, verificationNonce: string) {
  const currency = request.currency;
  const money = (value: number) => ({ value, currencyID: currency });
  // The date and time as the seller wrote them: converting to UTC could move the receipt to another day.
  const [issueDate = request.issueDate, issueTime] = request.issueDate.split('T');
  const documentAdjustments = adjustments(request.discounts, request.charges, currency);
  const head = {
    id: { value: request.documentNumber },
    issueDate,
    ...(issueTime === undefined ? {} : { issueTime }),
    documentCurrencyCode: currency,
    ...(request.note === undefined ? {} : { note: request.note }),
    ...(request.identifiers?.length ? { additionalDocumentReference: request.identifiers.map((id) => ({ id })) } : {}),
    accountingSupplierParty: supplierParty(supplier),
    // Present and empty: customer data never reaches the service in plaintext.
    accountingCustomerParty: {},
    ...(documentAdjustments.length > 0 ? { allowanceCharge: documentAdjustments } : {}),
    taxTotal: [
      {
        taxAmount: money(request.totalTaxAmount),
        taxSubtotal: request.taxes.map((tax) => ({
          taxableAmount: money(tax.taxableAmount),
          taxAmount: money(tax.amount),
          percent: tax.rate,
          taxCategory: {
            percent: tax.rate,
            ...(tax.label === undefined ? {} : { name: tax.label }),
            taxScheme: { taxTypeCode: tax.type },
          },
        })),
      },
    ],
    legalMonetaryTotal: {
      lineExtensionAmount: money(request.invoiceSubtotal),
      taxExclusiveAmount: money(request.totalBeforeTax),
      taxInclusiveAmount: money(request.totalAmount),
      allowanceTotalAmount: money(sum(request.discounts, currency)),
      chargeTotalAmount: money(sum(request.charges, currency)),
      payableAmount: money(request.totalAmount),
    },
  };
  const tail = { verificationNonce, warnings: templateWarnings(request) };
  return { head, tail };
}

function supplierParty(company: Company) {
  return {
    // The CLI stores this value as each entry's supplierPartyId.
    partyIdentification: [{ id: { value: company.id } }],
    partyName: { name: company.legalName },
    postalAddress: {
      streetName: company.address.streetName,
      buildingNumber: company.address.buildingNumber,
      cityName: company.address.cityName,
      postalZone: company.address.postalZone,
      country: { identificationCode: company.address.countryCode },
    },
    partyTaxScheme: [{ companyID: company.taxId, taxScheme: { taxTypeCode: 'VAT' } }],
    partyLegalEntity: { registrationName: company.legalName },
  };
}

function lines(request: ReceiptTemplateRequest, quantityKey: LineQuantityKey) {
  return request.products.map((product, index) => line(product, index, request.currency, quantityKey));
}

function line(product: Product, index: number, currency: string, quantityKey: LineQuantityKey) {
  const lineAdjustments = adjustments(product.discounts, product.charges, currency);
  return {
    id: { value: String(index + 1) },
    [quantityKey]: { value: product.quantity, unitCode: product.unitCode },
    lineExtensionAmount: { value: product.subtotal, currencyID: currency },
    ...(product.period === undefined ? {} : { invoicePeriod: product.period }),
    ...(lineAdjustments.length > 0 ? { allowanceCharge: lineAdjustments } : {}),
    item: {
      name: product.name,
      ...(product.brand === '' ? {} : { brandName: [product.brand] }),
      ...(product.description === undefined ? {} : { description: [product.description] }),
      sellersItemIdentification: { id: { value: product.identifier } },
      classifiedTaxCategory: product.taxes.map((tax) => ({
        percent: tax.rate,
        ...(tax.label === undefined ? {} : { name: tax.label }),
        taxScheme: { taxTypeCode: tax.type },
      })),
    },
    price: {
      priceAmount: { value: product.unitPrice, currencyID: currency },
      ...(product.baseQuantity === undefined ? {} : { baseQuantity: { value: product.baseQuantity, unitCode: product.unitCode } }),
    },
  };
}

/** UBL allowances (discounts, `chargeIndicator: false`) then charges. */
function adjustments(discounts: readonly Adjustment[] | undefined, charges: readonly Adjustment[] | undefined, currency: string) {
  const entry = (adjustment: Adjustment, chargeIndicator: boolean) => ({
    chargeIndicator,
    ...(adjustment.label === undefined ? {} : { allowanceChargeReason: [adjustment.label] }),
    ...(adjustment.percentage === undefined ? {} : { multiplierFactorNumeric: adjustment.percentage }),
    amount: { value: adjustment.amount, currencyID: currency },
  });
  return [...(discounts ?? []).map((d) => entry(d, false)), ...(charges ?? []).map((c) => entry(c, true))];
}

function sum(list: readonly Adjustment[] | undefined, currency: string): number {
  return fromMinor((list ?? []).reduce((total, a) => total + toMinor(a.amount, currency), 0), currency);
}
