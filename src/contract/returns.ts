// Customer return requests: the decrypted plaintext, the polling queue item and its status
// updates (docs/interface-decisions.md#return-requests, #return-request-moves).
import * as z from './zod.js';
import { NonEmptyString, OpenEnum } from './common.js';

export const KNOWN_REASON_CODES = [
  'DAMAGED',
  'DEFECTIVE',
  'WRONG_ITEM',
  'NOT_AS_DESCRIBED',
  'NO_LONGER_NEEDED',
  'OTHER',
] as const;
export type KnownReasonCode = (typeof KNOWN_REASON_CODES)[number];

/** The interface does not list every code, so an unknown one is kept and shown as it is. */
export const ReasonCode = OpenEnum;
export type ReasonCode = z.infer<typeof ReasonCode>;

export function isKnownReasonCode(code: string): code is KnownReasonCode {
  return (KNOWN_REASON_CODES as readonly string[]).includes(code);
}

export const RefundPreference = z.enum(['ORIGINAL_PAYMENT_METHOD', 'BANK_TRANSFER', 'STORE_CREDIT']);
export type RefundPreference = z.infer<typeof RefundPreference>;

/** Its fields are not shown in the interface; these are the ones a refund by transfer needs. */
export const RefundBankAccount = z.looseObject({
  iban: z.string().optional(),
  accountHolder: z.string().optional(),
  bic: z.string().optional(),
});
export type RefundBankAccount = z.infer<typeof RefundBankAccount>;

export const ReturnLineItem = z.looseObject({
  /** The `identifier` of the product on the original receipt; may repeat across lines. */
  productId: NonEmptyString.max(255),
  quantity: z.number().positive(),
  reasonCode: ReasonCode,
  reasonDescription: z.string().max(1000).optional(),
});
export type ReturnLineItem = z.infer<typeof ReturnLineItem>;

// The bank account rule needs only a valid preference, so it still runs (and is reported)
// when other members are wrong.
const BankAccountRuleInputs = z.looseObject({ refundPreference: RefundPreference });

export const ReturnRequest = z
  .looseObject({
    serviceReceiptId: NonEmptyString,
    /** The merchant's own receipt identifier. */
    receiptId: NonEmptyString,
    customerNote: z.string().max(1000).optional(),
    lineItems: z.array(ReturnLineItem).min(1),
    refundPreference: RefundPreference,
    // A device may spell "no account" as null.
    refundBankAccount: RefundBankAccount.nullable().optional(),
  })
  .superRefine(
    (request, ctx) => {
      const hasAccount = request.refundBankAccount !== undefined && request.refundBankAccount !== null;
      if (request.refundPreference === 'BANK_TRANSFER' && !hasAccount) {
        ctx.addIssue({
          code: 'custom',
          path: ['refundBankAccount'],
          message: 'is required when refundPreference is BANK_TRANSFER',
        });
      } else if (request.refundPreference !== 'BANK_TRANSFER' && hasAccount) {
        ctx.addIssue({
          code: 'custom',
          path: ['refundBankAccount'],
          message: `must be absent when refundPreference is ${request.refundPreference}; it is only for BANK_TRANSFER`,
        });
      }
    },
    { when: (payload) => BankAccountRuleInputs.safeParse(payload.value).success },
  );
export type ReturnRequest = z.infer<typeof ReturnRequest>;

export const QueueItemStatus = z.enum([
  'PENDING',
  'ACCEPTED',
  'PARTIALLY_ACCEPTED',
  'REJECTED',
  'COMPLETED',
  'CANCELLED',
]);
export type QueueItemStatus = z.infer<typeof QueueItemStatus>;

/** The statuses an issuer may set; `PENDING` and `CANCELLED` are not its to give. */
export const SettableQueueItemStatus = QueueItemStatus.extract(['ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED', 'COMPLETED']);
export type SettableQueueItemStatus = z.infer<typeof SettableQueueItemStatus>;

/**
 * Element of `GET /credit-note` (the polling shape). Ciphertexts are plain strings here: a bad
 * one makes that item undecryptable (docs/interface-decisions.md#hybrid-encryption), not the whole answer unreadable.
 */
export const QueueItem = z.looseObject({
  requestId: NonEmptyString,
  serviceReceiptId: NonEmptyString,
  encryptedSymmetricKey: z.string(),
  // docs/interface-decisions.md#which-key-decrypts: without it the receiver tries each of its keys.
  publicKey: z.string().optional(),
  /** One of `QueueItemStatus`, or a newer status shown as it is. */
  status: OpenEnum,
  createdAt: NonEmptyString,
  encryptedCreditNoteInitiationRequest: z.string(),
});
export type QueueItem = z.infer<typeof QueueItem>;

export const QueueItems = z.array(QueueItem);
export type QueueItems = z.infer<typeof QueueItems>;

export const StatusUpdateRequest = z.looseObject({ status: SettableQueueItemStatus });
export type StatusUpdateRequest = z.infer<typeof StatusUpdateRequest>;

export const StatusUpdateResponse = z.looseObject({
  requestId: NonEmptyString,
  status: OpenEnum,
  updatedAt: NonEmptyString,
});
export type StatusUpdateResponse = z.infer<typeof StatusUpdateResponse>;
