// The merchant's own record of every receipt this machine issued, one JSON file per receipt
// in <stateDir>/<profile>/receipts/. Return requests and credit notes are later checked
// against these, so a record is written whole or not at all (temp file + rename) and only
// its owner can read it: it holds the customer details the merchant supplied.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { NonEmptyString, Sha256Hex } from '../contract/common.js';
import { CustomerDetails, ReceiptSubmissionResult } from '../contract/receipt.js';
import { UblDocument } from '../contract/template.js';
import { NotFoundError, SvcError } from '../errors.js';
import type { Factory } from '../factory.js';
import { fsErrorCode as codeOf, pathSegment, profileStateDir, writePrivateFile } from '../io/private-file.js';
import { note } from '../io/streams.js';

const RECORD_SUFFIX = '.json';

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

/** <stateDir>/<profile>/receipts of the command's profile. */
export function receiptsDir(f: Factory): string {
  return profileStateDir(f, 'receipts');
}

/** Writes the record atomically (0600 file, 0700 directories); returns its path. */
export async function saveReceiptRecord(f: Factory, record: ReceiptRecord): Promise<string> {
  const dir = receiptsDir(f);
  const name = pathSegment(record.serviceReceiptId, 'serviceReceiptId') + RECORD_SUFFIX;
  try {
    return await writePrivateFile(dir, name, `${JSON.stringify(record, null, 2)}\n`);
  } catch (error) {
    if (error instanceof SvcError) throw error;
    throw new SvcError(`cannot write the receipt record ${join(dir, name)} (${codeOf(error)})`, {
      hint: `the receipt was issued as ${record.serviceReceiptId}; free space or fix the permissions of ${dir}`,
      cause: error,
    });
  }
}

export async function loadReceiptRecord(f: Factory, serviceReceiptId: string): Promise<ReceiptRecord> {
  const path = join(receiptsDir(f), pathSegment(serviceReceiptId, 'serviceReceiptId') + RECORD_SUFFIX);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw new SvcError(`cannot read ${path} (${codeOf(error)})`, { cause: error });
    throw new NotFoundError(`this machine has no record of receipt ${serviceReceiptId}`, {
      hint: 'records are kept per profile: check --profile, and `svc receipt list`',
    });
  }
  const record = parseRecord(text);
  if (!record) throw damaged(path);
  return record;
}

/** Every readable record of the profile, newest first; damaged files are named on stderr and skipped. */
export async function listReceiptRecords(f: Factory): Promise<ReceiptRecord[]> {
  const dir = receiptsDir(f);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return [];
    throw new SvcError(`cannot read ${dir} (${codeOf(error)})`, { cause: error });
  }
  const records: ReceiptRecord[] = [];
  for (const name of names.filter((n) => n.endsWith(RECORD_SUFFIX) && !n.startsWith('.')).sort()) {
    const path = join(dir, name);
    const record = parseRecord(await readFile(path, 'utf8'));
    if (record) records.push(record);
    else note(f.io, `warning: skipping ${path}: it is not a readable receipt record`);
  }
  return records.sort((a, b) => (a.issuedAt < b.issuedAt ? 1 : a.issuedAt > b.issuedAt ? -1 : 0));
}

function parseRecord(text: string): ReceiptRecord | undefined {
  try {
    const parsed = ReceiptRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function damaged(path: string): SvcError {
  return new SvcError(`the receipt record ${path} is damaged`, { hint: 'restore it from a backup, or move it away' });
}
