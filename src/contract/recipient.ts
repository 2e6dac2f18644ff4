// `POST /recipient/resolve` (docs/interface-decisions.md#recipient-resolution).
import * as z from './zod.js';
import { ibanProblem } from './iban.js';
import { NonEmptyString, OpenEnum } from './common.js';
import { passesLuhn } from './luhn.js';

export const ReceiverType = z.enum(['DEVICE', 'WEBHOOK']);
export type ReceiverType = z.infer<typeof ReceiverType>;

/** Keys of a `ReceiptEnvelope`'s `documents`, and what a recipient can accept. */
export const DocumentFormat = z.enum(['SERVICE', 'UBL_CREDIT_NOTE']);
export type DocumentFormat = z.infer<typeof DocumentFormat>;

const LOOKUP_KEYS = ['email', 'phone', 'iban', 'cardNumber', 'serviceReceiptId'] as const;

export const ResolveRecipientRequest = z
  .looseObject({
    email: z.email().optional(),
    phone: z.e164().optional(),
    // Spaces are for people; the lookup compares the compact form.
    iban: z
      .string()
      .check((ctx) => {
        if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(ctx.value)) {
          ctx.issues.push({ code: 'custom', input: ctx.value, message: 'must be an IBAN in capitals without spaces, such as DE89370400440532013000' });
          return;
        }
        const problem = ibanProblem(ctx.value);
        if (problem !== undefined) ctx.issues.push({ code: 'custom', input: ctx.value, message: `is not a valid IBAN: it ${problem}` });
      })
      .optional(),
    cardNumber: z
      .string()
      .check((ctx) => {
        if (!/^[0-9]{12,19}$/.test(ctx.value)) ctx.issues.push({ code: 'custom', input: ctx.value, message: 'must be 12 to 19 digits without spaces' });
        else if (!passesLuhn(ctx.value)) ctx.issues.push({ code: 'custom', input: ctx.value, message: 'is not a card number: its check digit (Luhn) does not match' });
      })
      .optional(),
    /** Resolves the current devices of that receipt's owner. */
    serviceReceiptId: NonEmptyString.optional(),
  })
  .refine((request) => LOOKUP_KEYS.some((key) => request[key] !== undefined), {
    message: `give at least one of ${LOOKUP_KEYS.join(', ')}`,
  });
export type ResolveRecipientRequest = z.infer<typeof ResolveRecipientRequest>;

export const Recipient = z.looseObject({
  recipientId: NonEmptyString,
  receiverType: OpenEnum,
  /** Base64 of the DER SubjectPublicKeyInfo. */
  publicKey: NonEmptyString,
  keyAlgorithm: OpenEnum,
});
export type Recipient = z.infer<typeof Recipient>;

export const ResolveRecipientResponse = z.looseObject({
  matchId: NonEmptyString,
  recipients: z.array(Recipient),
  acceptedFormats: z.array(OpenEnum),
});
export type ResolveRecipientResponse = z.infer<typeof ResolveRecipientResponse>;
