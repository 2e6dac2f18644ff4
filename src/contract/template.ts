// Template requests of `POST /credit-note/template` and `POST /receipt/template`
// (docs/interface-decisions.md#recipients-receipts-and-credit-notes, #receipt-template-and-submission), and the UBL document they return.
import * as z from './zod.js';
import { formatMoney, toMinor } from '../crypto/money.js';
import { Amount, NonEmptyString } from './common.js';
import { countableQuantityProblem } from './units.js';

export const UNIT_CODES = [
  'C62', 'EA', 'KGM', 'GRM', 'MGM', 'TNE', 'LBR', 'ONZ', 'LTR', 'MLT', 'CLT', 'HLT', 'MTQ', 'CMQ',
  'GLL', 'GLI', 'MTR', 'CMT', 'MMT', 'KMT', 'INH', 'FOT', 'YRD', 'SMI', 'MTK', 'CMK', 'FTK', 'INK',
  'SEC', 'MIN', 'HUR', 'DAY', 'WEE', 'MON', 'ANN', 'SET', 'PR', 'DZN', 'NMP', 'XPK', 'BX', 'CT',
  'CS', 'PK', 'PF', 'BO', 'CA', 'BG', 'E48', 'ACT', 'E51', 'AD', '2P', '4L',
] as const;

export const UnitCode = z.enum(UNIT_CODES, {
  // Listing 54 codes in the message would drown the one that is wrong.
  error: (issue) =>
    issue.code === 'invalid_value' && issue.input !== undefined
      ? `unknown unit code ${quoted(issue.input)}; see the unit code list`
      : undefined,
});
export type UnitCode = z.infer<typeof UnitCode>;

const OptionalString = z.string().optional();

export const Identifier = z.looseObject({
  value: OptionalString,
  schemeAgencyID: OptionalString,
  schemeAgencyName: OptionalString,
  schemeDataURI: OptionalString,
  schemeID: OptionalString,
  schemeName: OptionalString,
  schemeURI: OptionalString,
  schemeVersionID: OptionalString,
});
export type Identifier = z.infer<typeof Identifier>;

export const Period = z.looseObject({
  startDate: OptionalString,
  startTime: OptionalString,
  endDate: OptionalString,
  endTime: OptionalString,
  durationMeasure: z
    .looseObject({ unitCode: OptionalString, unitCodeListVersionID: OptionalString })
    .optional(),
  descriptionCode: z
    .looseObject({
      languageID: OptionalString,
      listAgencyID: OptionalString,
      listAgencyName: OptionalString,
      listID: OptionalString,
      listName: OptionalString,
      listSchemeURI: OptionalString,
      listURI: OptionalString,
      listVersionID: OptionalString,
      name: OptionalString,
    })
    .optional(),
  description: OptionalString,
});
export type Period = z.infer<typeof Period>;

/** A discount or charge; `amount` is its size, the list it is in says which way it counts. */
export const Adjustment = z.looseObject({
  amount: Amount,
  percentage: Amount.optional(),
  label: OptionalString,
});
export type Adjustment = z.infer<typeof Adjustment>;

export const ProductTax = z.looseObject({
  /** Percent, e.g. 19 for 19 %. */
  rate: Amount,
  type: NonEmptyString,
  amount: Amount.optional(),
  taxableAmount: Amount,
  label: OptionalString,
});
export type ProductTax = z.infer<typeof ProductTax>;

/** Entry of the receipt-level `taxes`; its `amount` is what `totalTaxAmount` adds up. */
export const ReceiptTax = ProductTax.extend({ amount: Amount });
export type ReceiptTax = z.infer<typeof ReceiptTax>;

export const Product = z.looseObject({
  name: NonEmptyString,
  // Required by the interface, yet unbranded goods have no brand to give.
  brand: z.string(),
  // Return requests name the product by this identifier, and their productId is at most 255.
  identifier: NonEmptyString.max(255),
  description: OptionalString,
  quantity: z.number().positive(),
  baseQuantity: z.number().positive().optional(),
  unitCode: UnitCode,
  period: Period.optional(),
  unitPrice: Amount,
  discounts: z.array(Adjustment).optional(),
  charges: z.array(Adjustment).optional(),
  taxes: z.array(ProductTax),
  subtotal: Amount,
  total: Amount,
}).check((ctx) => {
  const problem = countableQuantityProblem(ctx.value.unitCode, ctx.value.quantity);
  if (problem !== undefined) ctx.issues.push({ code: 'custom', input: ctx.value.quantity, path: ['quantity'], message: problem });
});
export type Product = z.infer<typeof Product>;

const ISO_4217 = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 currency code in capitals, such as EUR');

const receiptTemplateShape = {
  documentNumber: NonEmptyString,
  identifiers: z.array(Identifier).optional(),
  issueDate: z.iso.datetime({ offset: true }),
  currency: ISO_4217,
  invoiceSubtotal: Amount,
  totalBeforeTax: Amount,
  totalTaxAmount: Amount,
  totalAmount: Amount,
  products: z.array(Product).min(1),
  discounts: z.array(Adjustment).optional(),
  charges: z.array(Adjustment).optional(),
  taxes: z.array(ReceiptTax),
  note: OptionalString,
  /** docs/interface-decisions.md#store-restriction: required when the Grant restricts stores. */
  storeId: NonEmptyString.optional(),
};

// The parts the tax total rule reads; the rule runs whenever these are valid, so that a bad
// product elsewhere does not hide a wrong total.
const TaxTotalInputs = z.looseObject({
  currency: ISO_4217,
  totalTaxAmount: Amount,
  taxes: z.array(z.looseObject({ amount: Amount })),
});

function checkTaxTotal(template: z.infer<typeof TaxTotalInputs>, ctx: z.core.$RefinementCtx): void {
  const { currency } = template;
  const sum = template.taxes.reduce((acc, tax) => acc + toMinor(tax.amount, currency), 0);
  const total = toMinor(template.totalTaxAmount, currency);
  if (sum !== total) {
    ctx.addIssue({
      code: 'custom',
      path: ['totalTaxAmount'],
      message: `must equal the sum of taxes[].amount: it is ${formatMoney(total, currency)}, the taxes add up to ${formatMoney(sum, currency)}`,
    });
  }
}

const taxTotalRule = { when: (payload: { value: unknown }) => TaxTotalInputs.safeParse(payload.value).success };

export const ReceiptTemplateRequest = z.looseObject(receiptTemplateShape).superRefine(checkTaxTotal, taxTotalRule);
export type ReceiptTemplateRequest = z.infer<typeof ReceiptTemplateRequest>;

export const CreditNoteTemplateRequest = z
  .looseObject({
    ...receiptTemplateShape,
    /** Document number of the original receipt. */
    originatorDocumentReference: NonEmptyString,
  })
  .superRefine(checkTaxTotal, taxTotalRule);
export type CreditNoteTemplateRequest = z.infer<typeof CreditNoteTemplateRequest>;

/**
 * Inconsistencies the interface only says "should" about: the template is still accepted,
 * and the sandbox reports these in the response's `warnings`.
 */
export function templateWarnings(
  template: Pick<ReceiptTemplateRequest, 'currency' | 'totalAmount' | 'totalBeforeTax' | 'totalTaxAmount'>,
): string[] {
  const { currency } = template;
  const total = toMinor(template.totalAmount, currency);
  const beforeTax = toMinor(template.totalBeforeTax, currency);
  const tax = toMinor(template.totalTaxAmount, currency);
  if (total === beforeTax + tax) return [];
  return [
    `totalAmount ${formatMoney(total, currency)} is not totalBeforeTax + totalTaxAmount ` +
      `(${formatMoney(beforeTax, currency)} + ${formatMoney(tax, currency)} = ${formatMoney(beforeTax + tax, currency)})`,
  ];
}

// The UBL document of a template response. Every member is optional in the interface; the
// ones the CLI reads are typed, everything else is kept as it came.

/** A UBL amount or quantity: `{ value, currencyID }` or `{ value, unitCode }`. */
export const UblAmount = z.looseObject({ value: z.number().optional(), currencyID: OptionalString });
export type UblAmount = z.infer<typeof UblAmount>;

export const UblQuantity = z.looseObject({ value: z.number().optional(), unitCode: OptionalString });
export type UblQuantity = z.infer<typeof UblQuantity>;

export const UblParty = z.looseObject({});
export type UblParty = z.infer<typeof UblParty>;

/** `creditNoteLine[]` of a credit note and `invoiceLine[]` of a receipt. */
export const UblLine = z.looseObject({
  id: Identifier.optional(),
  creditedQuantity: UblQuantity.optional(),
  invoicedQuantity: UblQuantity.optional(),
  lineExtensionAmount: UblAmount.optional(),
  item: z
    .looseObject({
      name: OptionalString,
      sellersItemIdentification: z.looseObject({ id: Identifier.optional() }).optional(),
    })
    .optional(),
  price: z.looseObject({ priceAmount: UblAmount.optional(), baseQuantity: UblQuantity.optional() }).optional(),
});
export type UblLine = z.infer<typeof UblLine>;

export const UblDocumentReference = z.looseObject({
  id: Identifier.optional(),
  uuid: OptionalString,
  documentTypeCode: OptionalString,
});
export type UblDocumentReference = z.infer<typeof UblDocumentReference>;

export const UblMonetaryTotal = z.looseObject({
  lineExtensionAmount: UblAmount.optional(),
  taxExclusiveAmount: UblAmount.optional(),
  taxInclusiveAmount: UblAmount.optional(),
  allowanceTotalAmount: UblAmount.optional(),
  chargeTotalAmount: UblAmount.optional(),
  prepaidAmount: UblAmount.optional(),
  payableRoundingAmount: UblAmount.optional(),
  payableAmount: UblAmount.optional(),
});
export type UblMonetaryTotal = z.infer<typeof UblMonetaryTotal>;

export const UblDocument = z.looseObject({
  id: Identifier.optional(),
  issueDate: OptionalString,
  issueTime: OptionalString,
  documentCurrencyCode: OptionalString,
  note: OptionalString,
  accountingSupplierParty: UblParty.optional(),
  accountingCustomerParty: UblParty.optional(),
  legalMonetaryTotal: UblMonetaryTotal.optional(),
  creditNoteLine: z.array(UblLine).optional(),
  invoiceLine: z.array(UblLine).optional(),
  originatorDocumentReference: z.array(UblDocumentReference).optional(),
  verificationNonce: OptionalString,
  /** Sandbox addition: see `templateWarnings`. */
  warnings: z.array(z.string()).optional(),
});
export type UblDocument = z.infer<typeof UblDocument>;

function quoted(input: unknown): string {
  const text = typeof input === 'string' ? input : String(input);
  return JSON.stringify(text.length > 20 ? `${text.slice(0, 20)}…` : text);
}
