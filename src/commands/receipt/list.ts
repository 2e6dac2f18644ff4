// `svc receipt list`: the receipts issued for the profile, from its ledger (this machine's, or the team's database).
import { shownTotal } from '../../crypto/money.js';
import type { Factory } from '../../factory.js';
import { writeList } from '../../io/output.js';
import { companyColumn, companyFilter } from '../../receipts/company-column.js';
import { shownTime } from '../../io/time.js';
import { note } from '../../io/streams.js';
import { listReceiptRecords } from '../../receipts/records.js';
import type { ReceiptRecord } from '../../contract/records.js';

export type ListOptions = Record<string, never>;

export async function run(_opts: ListOptions, f: Factory): Promise<void> {
  const ofCompany = await companyFilter(f, (r: ReceiptRecord) => r);
  const all = await listReceiptRecords(f);
  const records = ofCompany === undefined ? all : all.filter(ofCompany);
  if (records.length === 0 && !f.io.json) {
    const { databaseUrlOf } = await import('../../config/profile-dir.js');
    const where = (await databaseUrlOf(f)) === undefined ? "this machine's ledger" : "the team's database";
    return note(f.io, ofCompany === undefined ? `no receipts in ${where} yet: see \`svc receipt send\`` : `no receipts of the company --grant ${f.globals.grant} names in ${where}`);
  }
  const company = await companyColumn(f, records, (r) => r);
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

/** The template request's issueDate; the submission time for a record without one. */
function issueDateOf(record: ReceiptRecord): string {
  const { issueDate } = record.templateRequest as { issueDate?: unknown };
  return typeof issueDate === 'string' ? issueDate : record.issuedAt;
}

function totalOf(record: ReceiptRecord): string {
  return shownTotal(record.templateRequest.totalAmount, record.templateRequest.currency);
}
