// The merchant's own record of every credit note the profile issued, kept in its ledger
// (src/store/). The next return against a receipt is checked against them, and against the
// credit notes still being submitted (the ledger's reservations).
import * as z from 'zod';
import { NonEmptyString, Sha256Hex } from '../contract/common.js';
import { CreditNoteSubmissionResult } from '../contract/credit-note.js';
import type { Factory } from '../factory.js';

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

/** The credit notes issued against a receipt, oldest first, from the profile's ledger. */
export async function loadCreditNotes(f: Factory, parentServiceReceiptId: string): Promise<CreditNoteRecord[]> {
  return (await f.ledger()).creditNotes(parentServiceReceiptId);
}
