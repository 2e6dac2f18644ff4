// Sandbox-only return request triggers (docs/interface-decisions.md#sandbox-endpoints), shared by the sandbox and
// `svc sandbox trigger return-request | cancel`. The trigger says what the customer wants;
// the sandbox's device turns it into the return request plaintext, and the rules of that
// plaintext (`ReturnRequest`) are the ones enforced, so members here are only typed.
import * as z from './zod.js';
import { NonEmptyString } from './common.js';
import { RefundBankAccount } from './returns.js';

export const ReturnRequestTriggerItem = z.looseObject({
  productId: z.string(),
  quantity: z.number(),
  reasonCode: z.string().optional(),
  reasonDescription: z.string().optional(),
});
export type ReturnRequestTriggerItem = z.infer<typeof ReturnRequestTriggerItem>;

/** `POST /sandbox/receipts/{serviceReceiptId}/return-requests`; an absent body takes every default. */
export const ReturnRequestTrigger = z.looseObject({
  /** Default: every line of the receipt, once. */
  items: z.array(ReturnRequestTriggerItem).optional(),
  /** For items without their own; default DAMAGED. */
  reasonCode: z.string().optional(),
  /** Default ORIGINAL_PAYMENT_METHOD. */
  refundPreference: z.string().optional(),
  customerNote: z.string().optional(),
  /** Default for BANK_TRANSFER: the customer's own IBAN and name. */
  refundBankAccount: RefundBankAccount.nullable().optional(),
  /** For an aged queue: when the customer asked (not before the purchase, not after the sandbox clock's now); default now. */
  createdAt: z.iso.datetime({ offset: true }).optional(),
  /** Or: that many seconds before the sandbox clock's now. */
  ageSeconds: z.int().min(0).optional(),
});
export type ReturnRequestTrigger = z.infer<typeof ReturnRequestTrigger>;

export const MAX_BULK_RETURN_REQUESTS = 100_000;

/** `POST /sandbox/return-requests/bulk`: load for polling benchmarks. */
export const BulkReturnRequestTrigger = ReturnRequestTrigger.extend({
  serviceReceiptId: NonEmptyString,
  count: z.int().min(1).max(MAX_BULK_RETURN_REQUESTS),
  /**
   * Spread the requests in turn over this many companies: the receipt's own, then the
   * other companies that granted the receipt's client application, each holding a copy of
   * the receipt as if it had issued it (default 1: the receipt's company only).
   */
  companies: z.int().min(1).max(MAX_BULK_RETURN_REQUESTS).optional(),
  /** Also record a RETURN_REQUESTED event for each (webhook tests); default false. */
  events: z.boolean().optional(),
});
export type BulkReturnRequestTrigger = z.infer<typeof BulkReturnRequestTrigger>;

export const BulkReturnRequestResult = z.looseObject({
  serviceReceiptId: NonEmptyString,
  count: z.int(),
  /** Oldest first. */
  requestIds: z.array(NonEmptyString),
  /** Where they went: per company, the receipt (its copy) they return items of. */
  companies: z
    .array(z.looseObject({ companyId: NonEmptyString, serviceReceiptId: NonEmptyString, count: z.int() }))
    .optional(),
});
export type BulkReturnRequestResult = z.infer<typeof BulkReturnRequestResult>;
