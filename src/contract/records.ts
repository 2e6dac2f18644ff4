// The merchant's own records, as the ledger keeps them (src/store/, owner-only): every
// receipt and credit note the profile issued, and the reason of a rejection the service never
// hears. Schemas only, beside the contract, so that the state layer below the factory can
// parse what it reads without importing the rooms that use the records.
import * as z from './zod.js';
import { NonEmptyString, Sha256Hex } from './common.js';
import { CreditNoteSubmissionResult } from './credit-note.js';
import { CustomerDetails, ReceiptSubmissionResult } from './receipt.js';
import { UblDocument } from './template.js';

/**
 * A receipt the profile issued: return requests and credit notes are later checked against
 * it, and it holds the customer details the merchant supplied.
 */
export const ReceiptRecord = z.looseObject({
  version: z.literal(1),
  serviceReceiptId: NonEmptyString,
  /** ISO 8601, from the CLI's clock when the service accepted the submission. */
  issuedAt: NonEmptyString,
  /** The template request as sent (with `storeId` when --store was given). */
  templateRequest: z.looseObject({ documentNumber: z.string(), currency: z.string(), totalAmount: z.number() }),
  /** The template response body, as the service returned it. */
  template: UblDocument,
  templateHash: Sha256Hex,
  finalHash: Sha256Hex,
  matchId: NonEmptyString,
  /** How the customer was identified; card numbers and IBANs only as their last 4. */
  lookup: z.looseObject({ by: NonEmptyString, display: z.string() }),
  recipients: z.array(
    z.looseObject({ recipientId: NonEmptyString, receiverType: z.string().optional(), keyId: NonEmptyString }),
  ),
  /** The customer details the merchant supplied (--customer), as encrypted for the devices. */
  customer: CustomerDetails,
  submission: ReceiptSubmissionResult,
});
export type ReceiptRecord = z.infer<typeof ReceiptRecord>;

/**
 * A credit note the profile issued. The next return against a receipt is checked against
 * them, and against the credit notes still being submitted (the ledger's reservations).
 */
/** What one credit note took from one line of the original receipt. */
export const CreditedLine = z.looseObject({
  /** Index of the line in the original receipt's `products`. */
  originalLine: z.number().int().nonnegative(),
  productId: NonEmptyString,
  quantity: z.number().positive(),
});
export type CreditedLine = z.infer<typeof CreditedLine>;

export const CreditNoteRecord = z.looseObject({
  /** The credit note's own identifier. */
  serviceReceiptId: NonEmptyString,
  /** The return request it answered. */
  requestId: NonEmptyString,
  documentNumber: NonEmptyString,
  /** ISO 8601, from the CLI's clock when the service accepted the submission. */
  issuedAt: NonEmptyString,
  /** Who issued it, user@host (src/credit-notes/accepted-part.ts recorder); absent in records an older svc kept. */
  issuedBy: z.string().min(1).optional(),
  lines: z.array(CreditedLine).min(1),
  /** The template request as sent: every amount of the credit note. */
  templateRequest: z.looseObject({ documentNumber: z.string(), currency: z.string(), invoiceSubtotal: z.number(), totalAmount: z.number() }),
  templateHash: Sha256Hex,
  finalHash: Sha256Hex,
  matchId: NonEmptyString,
  recipients: z.array(z.looseObject({ recipientId: NonEmptyString, receiverType: z.string().optional(), keyId: NonEmptyString })),
  submission: CreditNoteSubmissionResult,
});
export type CreditNoteRecord = z.infer<typeof CreditNoteRecord>;

/**
 * Why the merchant rejected a return request. `PATCH /credit-note/requests/{id}/status` takes
 * only `{ status }`, so it is kept in the ledger beside the kept queue item.
 */
export const Rejection = z.looseObject({
  reason: z.string().min(1),
  /** ISO 8601, from the CLI's clock. */
  rejectedAt: z.string().min(1),
  /** Who rejected it, user@host (src/credit-notes/accepted-part.ts recorder); absent in rejections an older svc kept. */
  rejectedBy: z.string().min(1).optional(),
});
export type Rejection = z.infer<typeof Rejection>;
