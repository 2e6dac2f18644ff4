// Receipts as people name them: the whole serviceReceiptId, a unique prefix of 6+ characters
// of one, or the receipt's document number (what the customer reads out: `R-2026-0008`),
// exactly or by a unique prefix, among the receipts in this profile's records (the ledger:
// the embedded one, or the team's database). A profile that has issued nothing has no ledger
// to open, and a name that matches nothing is passed on for the service to answer.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { RECEIPT_IDS } from '../ids/kinds.js';
import { matchPrefix } from '../ids/prefix.js';
import type { ReceiptRecord } from '../contract/records.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOCUMENT_NUMBERS = { noun: 'receipt document number', listedBy: '`svc receipt list`' };

export async function resolveReceiptId(f: Factory, given: string): Promise<string> {
  const id = given.trim();
  if (UUID.test(id) || id.length > 64) return id;
  const records = await knownReceipts(f);
  const sameNumber = records.filter((r) => documentNumberOf(r) === id);
  if (sameNumber.length > 1) return oneOfCompanies(f, id, sameNumber);
  return receiptNamed(records, id)?.serviceReceiptId ?? id;
}

/**
 * A document number on receipts of several companies (each numbers its own), where one
 * receipt is needed: the one of the company --grant (or SVC_GRANT_ID) names, else an error
 * naming the companies and how to choose.
 */
async function oneOfCompanies(f: Factory, number: string, records: readonly ReceiptRecord[]): Promise<string> {
  const [{ foundUnder }, { grantEntries, selectGrant }, { readAuthorizations }, { companyLabel }] = await Promise.all([
    import('../grants/found-under.js'),
    import('../auth/grant-select.js'),
    import('../auth/profile.js'),
    import('../grants/company.js'),
  ]);
  const settings = await f.settings();
  const entries = grantEntries(readAuthorizations(await f.config(), settings.profile.value));
  const grants = await Promise.all(records.map((r) => foundUnder(f, 'receipts', r.serviceReceiptId)));
  if (settings.grant !== undefined && settings.grant.source !== 'profile') {
    const chosen = selectGrant(settings.grant.value, entries, { passUnknown: true });
    const theirs = records.filter((_, i) => grants[i] === chosen);
    if (theirs.length === 1) return theirs[0]!.serviceReceiptId;
  }
  const named = records.map((r, i) => {
    const entry = entries.find((e) => e.id === grants[i]);
    return entry === undefined ? `${r.serviceReceiptId} (company not recorded)` : companyLabel(entry);
  });
  const example = entries.find((e) => e.id === grants.find((g) => g !== undefined));
  throw new UsageError(`document number ${number} is on ${records.length} receipts, one each of: ${named.join(', ')}`, {
    hint: `choose the company with --grant (its tax ID${example === undefined ? '' : `, e.g. --grant ${example.taxId || example.id}`}), or name the receipt by its serviceReceiptId (6+ characters)`,
  });
}

/** This profile's receipt records, newest first; none when it has no ledger yet. */
export async function knownReceipts(f: Factory): Promise<ReceiptRecord[]> {
  const { databaseUrlOf, profileDir } = await import('../config/profile-dir.js');
  if ((await databaseUrlOf(f)) === undefined && !existsSync(join(profileDir(f), 'ledger.db'))) return [];
  return (await f.ledger()).receipts();
}

/** The receipt's document number, as its record keeps it. */
export function documentNumberOf(record: ReceiptRecord): string {
  return record.templateRequest.documentNumber;
}

/**
 * The record `given` names: a document number exactly, else a serviceReceiptId or a unique
 * prefix of one, else a unique prefix of a document number; undefined when none. A prefix
 * that is too short or fits several is a UsageError naming the candidates.
 */
export function receiptNamed(records: readonly ReceiptRecord[], given: string): ReceiptRecord | undefined {
  const name = given.trim();
  const exact = records.filter((r) => documentNumberOf(r) === name);
  if (exact.length === 1) return exact[0];
  const ids = records.map((r) => r.serviceReceiptId);
  if (exact.length > 1) {
    throw new UsageError(`document number ${name} is on ${exact.length} receipts: ${exact.map((r) => r.serviceReceiptId).join(', ')}`, { hint: 'name the receipt by its serviceReceiptId (or 6+ characters of it)' });
  }
  const byId = matchPrefix(name, ids, RECEIPT_IDS);
  const found = records.find((r) => r.serviceReceiptId === byId);
  if (found !== undefined) return found;
  const byNumber = documentNumberNamed(records, name);
  return records.find((r) => documentNumberOf(r) === byNumber);
}

/**
 * The whole document number `given` names among the records: itself, or the one number it is
 * a unique prefix of (one number may be on receipts of several companies); undefined when no
 * record's number starts with it. A prefix too short, or one of several numbers, is a UsageError naming them.
 */
export function documentNumberNamed(records: readonly ReceiptRecord[], given: string): string | undefined {
  const numbers = records.map(documentNumberOf);
  const number = matchPrefix(given.trim(), numbers, DOCUMENT_NUMBERS);
  return numbers.includes(number) ? number : undefined;
}

/**
 * The receipts sent to a customer whose email, phone or name (as the merchant gave them
 * with the receipt) contains `text`, in any case: `alice@`, `+4915`, `Alice`.
 */
export function receiptsOfCustomer(records: readonly ReceiptRecord[], text: string): ReceiptRecord[] {
  const wanted = text.trim().toLowerCase();
  const compact = wanted.replace(/[\s()-]/g, '');
  return records.filter((record) => {
    const { name, email, phone } = record.customer;
    const lookup = record.lookup.by === 'email' || record.lookup.by === 'phone' ? record.lookup.display : undefined;
    return [name, email, lookup].some((v) => v !== undefined && v.toLowerCase().includes(wanted)) || [phone, record.lookup.by === 'phone' ? lookup : undefined].some((v) => v !== undefined && compact !== '' && v.includes(compact));
  });
}
