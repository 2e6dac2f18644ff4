// `POST /receipt/encrypted` and `POST /receipt/email` (docs/interface-decisions.md#receipt-email).
import * as z from './zod.js';
import { Base64, NonEmptyString, Sha256Hex } from './common.js';
import { EncryptedCreditNoteEntry } from './credit-note.js';
import { UblDocument } from './template.js';

/** docs/interface-decisions.md#receipt-template-and-submission: the credit note entry, carrying `encryptedReceipt` in place of `encryptedCreditNote`. */
export const EncryptedReceiptEntry = EncryptedCreditNoteEntry.omit({ encryptedCreditNote: true }).extend({
  encryptedReceipt: Base64,
});
export type EncryptedReceiptEntry = z.infer<typeof EncryptedReceiptEntry>;

export const ReceiptSubmission = z.looseObject({
  matchId: NonEmptyString,
  templateHash: Sha256Hex,
  encryptedReceipts: z.array(EncryptedReceiptEntry).min(1),
});
export type ReceiptSubmission = z.infer<typeof ReceiptSubmission>;

export const ReceiptSubmissionResult = z.looseObject({
  serviceReceiptId: NonEmptyString,
  templateHash: NonEmptyString,
  createdAt: NonEmptyString,
});
export type ReceiptSubmissionResult = z.infer<typeof ReceiptSubmissionResult>;

/** Plaintext of `encryptedCustomerDetails`, and the customer of an emailed receipt. */
export const CustomerDetails = z.looseObject({
  name: z.string().optional(),
  email: z.email().optional(),
  phone: z.e164().optional(),
  /** Postal address as it should be printed, lines separated by "\n". */
  address: z.string().optional(),
});
export type CustomerDetails = z.infer<typeof CustomerDetails>;

export const ReceiptEmailRequest = z.looseObject({
  to: z.email(),
  /** The template response document; the service renders it as a PDF. */
  template: UblDocument,
  customer: CustomerDetails.optional(),
});
export type ReceiptEmailRequest = z.infer<typeof ReceiptEmailRequest>;

export const ReceiptEmailResponse = z.looseObject({
  messageId: NonEmptyString,
  /** `QUEUED` in the sandbox. */
  status: NonEmptyString,
  /** Sandbox extension (a service need not send it): characters its PDF prints as U+FFFD. */
  replacedCharacters: z.int().nonnegative().optional(),
  /** Sandbox extension: texts cut short, and line lists left incomplete, in its PDF. */
  truncatedTexts: z.int().nonnegative().optional(),
});
export type ReceiptEmailResponse = z.infer<typeof ReceiptEmailResponse>;
