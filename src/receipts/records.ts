// The merchant's own record of every receipt the profile issued, read from its ledger
// (src/store/, owner-only); the schema is src/contract/records.ts.
import type { ReceiptRecord } from '../contract/records.js';
import { NotFoundError } from '../errors.js';
import type { Factory } from '../factory.js';

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
