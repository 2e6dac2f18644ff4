// Webhook subscriptions, event deliveries and the envelope plaintext (docs/interface-decisions.md#events-and-delivery-rules;
// docs/interface-decisions.md#webhook-signatures, #receipt-envelope). Ciphertexts in events are plain strings: a bad one makes that event
// undecryptable (docs/interface-decisions.md#hybrid-encryption), it does not make the delivery unreadable.
import * as z from './zod.js';
import { NonEmptyString, OpenEnum } from './common.js';
import { UblDocument } from './template.js';

export const KNOWN_WEBHOOK_EVENTS = ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED'] as const;
export const KnownWebhookEventName = z.enum(KNOWN_WEBHOOK_EVENTS);
export type KnownWebhookEventName = z.infer<typeof KnownWebhookEventName>;

/** Receipt event names are not shown in the interface, so any name is accepted and shown. */
export const WebhookEventName = OpenEnum;
export type WebhookEventName = z.infer<typeof WebhookEventName>;

export function isKnownWebhookEventName(name: string): name is KnownWebhookEventName {
  return (KNOWN_WEBHOOK_EVENTS as readonly string[]).includes(name);
}

export const WebhookSubscriptionRequest = z.looseObject({
  name: NonEmptyString,
  notificationUrl: z.url({ protocol: /^https?$/ }),
  events: z.array(WebhookEventName).min(1),
});
export type WebhookSubscriptionRequest = z.infer<typeof WebhookSubscriptionRequest>;

/** 201 answer of `POST /webhook/subscription`; `secret` is shown this once. */
export const WebhookSubscription = z.looseObject({
  id: NonEmptyString,
  name: z.string(),
  notificationUrl: NonEmptyString,
  events: z.array(WebhookEventName),
  secret: NonEmptyString,
  createdAt: NonEmptyString,
});
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

export const CreditNoteInitiationRequest = z.looseObject({
  clientId: z.string().nullish(),
  companyId: z.string().optional(),
  userId: z.string().optional(),
  created_at: NonEmptyString,
  /** The original receipt. */
  serviceReceiptId: NonEmptyString,
  // docs/interface-decisions.md#which-key-decrypts: without it the receiver tries each of its keys.
  publicKey: z.string().optional(),
  encryptedCreditNoteInitiationRequest: z.string(),
  encryptedSymmetricKey: z.string(),
});
export type CreditNoteInitiationRequest = z.infer<typeof CreditNoteInitiationRequest>;

export const ReturnRequestedData = z.looseObject({ creditNoteInitiationRequest: CreditNoteInitiationRequest });
export type ReturnRequestedData = z.infer<typeof ReturnRequestedData>;

export const EncryptedCreditNoteDelivery = z.looseObject({
  // A company integrating with an API key has no client application.
  clientId: z.string().nullish(),
  companyId: NonEmptyString,
  created_at: NonEmptyString,
  /** The credit note. */
  serviceReceiptId: NonEmptyString,
  /** Ciphertext of a `ReceiptEnvelope`. */
  encryptedEnvelope: z.string(),
  encryptedEnvelopeKey: z.string(),
  // docs/interface-decisions.md#which-key-decrypts: without it the receiver tries each of its keys.
  publicKey: z.string().optional(),
  recipientKeyAlgorithm: OpenEnum,
  envelopeVersion: z.int(),
  receiptGeneratorVersion: z.string(),
  finalHash: NonEmptyString,
});
export type EncryptedCreditNoteDelivery = z.infer<typeof EncryptedCreditNoteDelivery>;

export const CreditNoteCreatedData = z.looseObject({ encryptedCreditNote: EncryptedCreditNoteDelivery });
export type CreditNoteCreatedData = z.infer<typeof CreditNoteCreatedData>;

export const ReturnRequestedEvent = z.looseObject({
  event: z.literal('RETURN_REQUESTED'),
  data: ReturnRequestedData,
});
export type ReturnRequestedEvent = z.infer<typeof ReturnRequestedEvent>;

export const CreditNoteCreatedEvent = z.looseObject({
  event: z.literal('CREDIT_NOTE_CREATED'),
  data: CreditNoteCreatedData,
});
export type CreditNoteCreatedEvent = z.infer<typeof CreditNoteCreatedEvent>;

export const UnknownWebhookEvent = z.looseObject({
  // Aborting, so that a known event with a wrong `data` reports the problems in its data.
  event: NonEmptyString.refine((name) => !isKnownWebhookEventName(name), {
    message: 'is a known event, so its data must match that event',
    abort: true,
  }),
  data: z.unknown(),
});
export type UnknownWebhookEvent = z.infer<typeof UnknownWebhookEvent>;

export const KnownWebhookEvent = z.discriminatedUnion('event', [ReturnRequestedEvent, CreditNoteCreatedEvent]);
export type KnownWebhookEvent = z.infer<typeof KnownWebhookEvent>;

/** Body of a delivery; events of other names parse as `UnknownWebhookEvent`. */
export const WebhookEvent = z.union([KnownWebhookEvent, UnknownWebhookEvent]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/**
 * TypeScript cannot narrow `WebhookEvent` on `event` alone, since an unknown event's name is
 * any string; after this guard a switch on `event` types `data`.
 */
export function isKnownWebhookEvent(event: WebhookEvent): event is KnownWebhookEvent {
  return isKnownWebhookEventName(event.event);
}

/** Plaintext of `encryptedEnvelope` (docs/interface-decisions.md#receipt-envelope); `documents` is authoritative. */
export const ReceiptEnvelope = z.looseObject({
  envelopeVersion: z.int().positive(),
  documents: z.looseObject({
    SERVICE: UblDocument,
    UBL_CREDIT_NOTE: UblDocument.optional(),
  }),
});
export type ReceiptEnvelope = z.infer<typeof ReceiptEnvelope>;
