// Sandbox-only inspection endpoints (docs/interface-decisions.md#sandbox-endpoints) for issue 4: what the simulated devices
// made of each delivery, and the email outbox. Shared by the sandbox and `svc sandbox
// deliveries` / `svc sandbox outbox`.
import * as z from './zod.js';
import { NonEmptyString, OpenEnum } from './common.js';

/** DELIVERED: the device opened its entry; UNDECRYPTABLE: it could not, and `reason` says why. */
export const DeliveryStatus = z.enum(['DELIVERED', 'UNDECRYPTABLE']);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/** An element of `GET /sandbox/deliveries[?serviceReceiptId=]`: one per device and submission. */
export const SandboxDelivery = z.looseObject({
  serviceReceiptId: NonEmptyString,
  /** `RECEIPT` or `CREDIT_NOTE`. */
  kind: OpenEnum,
  recipientId: NonEmptyString,
  customerId: NonEmptyString,
  status: OpenEnum,
  reason: z.string().optional(),
  /** Whether the decrypted document hashes to the entry's finalHash; absent without one. */
  hashMatches: z.boolean().optional(),
  deliveredAt: NonEmptyString,
  /** The entry as submitted (ciphertexts only). */
  entry: z.looseObject({}),
});
export type SandboxDelivery = z.infer<typeof SandboxDelivery>;

export const SandboxDeliveryList = z.array(SandboxDelivery);

/** An element of `GET /sandbox/outbox`; the PDF is `GET /sandbox/outbox/{messageId}.pdf`. */
export const OutboxMessage = z.looseObject({
  messageId: NonEmptyString,
  to: NonEmptyString,
  documentNumber: z.string(),
  createdAt: NonEmptyString,
  /** Bytes of the PDF. */
  size: z.int().nonnegative(),
  /** Characters the PDF's font has no glyph for (CJK, emoji), printed as U+FFFD and listed in a note. */
  replacedCharacters: z.int().nonnegative().optional(),
  /** Texts cut short (and line lists left incomplete) to bound the rendering. */
  truncatedTexts: z.int().nonnegative().optional(),
});
export type OutboxMessage = z.infer<typeof OutboxMessage>;

export const OutboxMessageList = z.array(OutboxMessage);
