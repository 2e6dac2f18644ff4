// `POST /credit-note/encrypted` (docs/interface-decisions.md#recipients-receipts-and-credit-notes).
import * as z from './zod.js';
import { Base64, NonEmptyString, Sha256Hex, Uuid } from './common.js';
import { ReceiverType } from './recipient.js';

export const EncryptedCreditNoteEntry = z.looseObject({
  recipientId: NonEmptyString,
  creditNoteId: Uuid.optional(),
  originalReceiptId: Uuid.optional(),
  receiverType: ReceiverType.optional(),
  encryptedCreditNote: Base64,
  /** Content key wrapped for this recipient's device key. */
  encryptedSymmetricKey: Base64,
  encryptedCustomerDetails: Base64,
  encryptedCustomerAesKey: Base64,
  finalHash: Sha256Hex.optional(),
  /** The recipient public key the entry was encrypted for. */
  publicKey: Base64,
  supplierPartyId: NonEmptyString,
});
export type EncryptedCreditNoteEntry = z.infer<typeof EncryptedCreditNoteEntry>;

export const CreditNoteSubmission = z.looseObject({
  matchId: NonEmptyString,
  parentServiceReceiptId: NonEmptyString,
  encryptedCreditNotes: z.array(EncryptedCreditNoteEntry).min(1),
  templateHash: Sha256Hex,
});
export type CreditNoteSubmission = z.infer<typeof CreditNoteSubmission>;

export const CreditNoteSubmissionResult = z.looseObject({
  /** Identifier of the credit note. */
  serviceReceiptId: NonEmptyString,
  parentServiceReceiptId: NonEmptyString,
  templateHash: NonEmptyString,
  createdAt: NonEmptyString,
});
export type CreditNoteSubmissionResult = z.infer<typeof CreditNoteSubmissionResult>;
