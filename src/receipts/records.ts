// The merchant's own record of every receipt the profile issued, kept in its ledger
// (src/store/, owner-only): return requests and credit notes are later checked against
// these, and they hold the customer details the merchant supplied.
import * as z from 'zod';
import { NonEmptyString, Sha256Hex } from '../contract/common.js';
import { CustomerDetails, ReceiptSubmissionResult } from '../contract/receipt.js';
import { UblDocument } from '../contract/template.js';
import { NotFoundError } from '../errors.js';
import type { Factory } from '../factory.js';

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

export async function loadReceiptRecord(f: Factory, serviceReceiptId: string): Promise<ReceiptRecord> {
  const record = await (await f.ledger()).receipt(serviceReceiptId);
  if (record) return record;
  throw new NotFoundError(`this machine has no record of receipt ${serviceReceiptId}`, {
    hint: 'records are kept per profile: check --profile, and `svc receipt list`',
  });
}

/** Every receipt of the profile's ledger, newest first. */
export async function listReceiptRecords(f: Factory): Promise<ReceiptRecord[]> {
  return (await f.ledger()).receipts();
}
