// `svc receipt list`: the receipts this machine issued for the profile, from its local records.
import { toMinor, formatMoney } from '../../crypto/money.js';
import type { Factory } from '../../factory.js';
import { grantEntries } from '../../auth/grant-select.js';
import { readAuthorizations } from '../../auth/profile.js';
import { writeList, type Column } from '../../io/output.js';
import { supplierPartyIdOf } from '../../receipts/document.js';
import { shownTime } from '../../io/time.js';
import { note } from '../../io/streams.js';
import { listReceiptRecords } from '../../receipts/records.js';
import type { ReceiptRecord } from '../../contract/records.js';

export type ListOptions = Record<string, never>;

export async function run(_opts: ListOptions, f: Factory): Promise<void> {
  const records = await listReceiptRecords(f);
  if (records.length === 0 && !f.io.json) return note(f.io, 'no receipts issued from this machine yet: see `svc receipt send`');
  const company = await companyColumn(f, records);
  await writeList(f.io, records, [
    { header: 'SERVICE RECEIPT ID', short: 'ID', value: (r) => r.serviceReceiptId, id: true },
    { header: 'DOCUMENT', value: (r) => r.templateRequest.documentNumber },
    // The receipt's own issue date, not when it was submitted.
    { header: 'ISSUED', value: (r) => shownTime(f.io, f.env, issueDateOf(r)), whole: true, drop: 1 },
    { header: 'TOTAL', value: totalOf },
    { header: 'RECIPIENTS', value: (r) => String(r.recipients.length), drop: 2 },
    ...company,
  ]);
}

/**
 * COMPANY, last (the columns before keep their places), when the receipts are of several
 * companies (a platform's, `receipt send --grant`): each company numbers its own, so a
 * document number alone no longer says which receipt a row is. Its legal name from the
 * profile's Grants, else the supplier's ID the template names.
 */
async function companyColumn(f: Factory, records: readonly ReceiptRecord[]): Promise<Column<ReceiptRecord>[]> {
  const issuers = records.map(issuerOf);
  if (new Set(issuers).size < 2) return [];
  const settings = await f.settings();
  const names = new Map(grantEntries(readAuthorizations(await f.config(), settings.profile.value)).map((e) => [e.companyId, e.company]));
  return [{ header: 'COMPANY', value: (r) => { const id = issuerOf(r); return names.get(id) ?? id; } }];
}

function issuerOf(record: ReceiptRecord): string {
  try {
    return supplierPartyIdOf(record.template);
  } catch {
    return '';
  }
}

/** The template request's issueDate; the submission time for a record without one. */
function issueDateOf(record: ReceiptRecord): string {
  const { issueDate } = record.templateRequest as { issueDate?: unknown };
  return typeof issueDate === 'string' ? issueDate : record.issuedAt;
}

function totalOf(record: ReceiptRecord): string {
  const { totalAmount, currency } = record.templateRequest;
  try {
    return formatMoney(toMinor(totalAmount, currency), currency);
  } catch {
    // A record edited by hand should not hide the others.
    return `${totalAmount} ${currency}`;
  }
}
