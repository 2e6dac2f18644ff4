// `svc credit-note list`: the credit notes in the profile's ledger (this machine's, or the
// team's database, which every colleague's machine records into), newest first: each with
// the receipt it credits, the return request it answered, its amount, when and by whom it was
// issued. Read from the ledger alone: no network call.
import type { CreditNoteRecord, ReceiptRecord } from '../../contract/records.js';
import { shownTotal } from '../../crypto/money.js';
import type { Factory } from '../../factory.js';
import { writeList, type Column } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { shownTime } from '../../io/time.js';
import { companyColumn, companyFilter } from '../../receipts/company-column.js';
import { UsageError } from '../../errors.js';

export interface ListOptions {
  /** Only the credit notes of this receipt: its serviceReceiptId, a unique prefix of 6+, or its document number. */
  receipt?: string | undefined;
}

interface Row {
  record: CreditNoteRecord;
  /** The serviceReceiptId of the receipt it credits. */
  parent: string;
  receipt: ReceiptRecord | undefined;
}

export async function run(opts: ListOptions, f: Factory): Promise<void> {
  const { databaseUrlOf } = await import('../../config/profile-dir.js');
  const where = (await databaseUrlOf(f)) === undefined ? "this machine's ledger" : "the team's database";
  const { receipts, creditNotes } = await (await f.ledger()).allRecords();
  const byId = new Map(receipts.map((r) => [r.serviceReceiptId, r]));
  let rows: Row[] = creditNotes.map(({ parent, record }) => ({ record, parent, receipt: byId.get(parent) }));
  if (opts.receipt !== undefined) rows = rows.filter(ofReceipt(opts.receipt.trim(), receipts));
  const ofCompany = await companyFilter(f, (r: Row) => r.receipt);
  if (ofCompany !== undefined) rows = rows.filter(ofCompany);
  // Newest first, as `receipt list`: the ledger keeps them in the order they were recorded.
  rows.reverse();
  if (rows.length === 0 && !f.io.json) {
    const of = [opts.receipt === undefined ? '' : ` of receipt ${opts.receipt}`, f.globals.grant === undefined ? '' : ` of the company --grant ${f.globals.grant} names`].join('');
    return note(f.io, of === '' ? `no credit notes in ${where} yet: see \`svc credit-note issue\`` : `no credit notes${of} in ${where}`);
  }
  const company = await companyColumn(f, rows, (r) => r.receipt);
  // Left out first on a narrow terminal: the IDs, who, when, then the receipt (its number
  // begins the credit note's own); the company stays, as document numbers recur across companies.
  const columns: Column<Row>[] = [
    { header: 'CREDIT NOTE', value: (r) => r.record.documentNumber },
    { header: 'RECEIPT', value: (r) => r.receipt?.templateRequest.documentNumber ?? r.parent, drop: 1 },
    { header: 'AMOUNT', value: (r) => amountOf(r.record) },
    { header: 'ISSUED', value: (r) => shownTime(f.io, f.env, r.record.issuedAt), whole: true, drop: 2 },
    // Older records do not say who issued them.
    ...(rows.some((r) => r.record.issuedBy !== undefined) ? [{ header: 'BY', value: (r: Row) => r.record.issuedBy ?? '', drop: 3 }] : []),
    { header: 'REQUEST', value: (r) => r.record.requestId, id: true, drop: 4 },
    { header: 'SERVICE ID', value: (r) => r.record.serviceReceiptId, id: true, drop: 5 },
    ...company,
  ];
  await writeList(f.io, rows, columns, rows.map(jsonOf));
}

/**
 * A receipt named as `receipt send` and `poll --receipt` name one: its serviceReceiptId, a
 * unique prefix of it (6+), or its document number (which may name a receipt of each of
 * several companies).
 */
function ofReceipt(given: string, receipts: readonly ReceiptRecord[]): (row: Row) => boolean {
  if (given === '') throw new UsageError('--receipt: empty; give a receipt\'s document number or its serviceReceiptId (`svc receipt list` shows both)');
  const byNumber = new Set(receipts.filter((r) => r.templateRequest.documentNumber === given).map((r) => r.serviceReceiptId));
  if (byNumber.size > 0) return (row) => byNumber.has(row.parent);
  const prefixed = given.length >= 6 ? receipts.filter((r) => r.serviceReceiptId.startsWith(given)) : [];
  if (prefixed.length > 1) {
    throw new UsageError(`--receipt ${given}: the start of ${prefixed.length} receipts' IDs; give more of it (\`svc receipt list\` shows them)`);
  }
  const id = prefixed[0]?.serviceReceiptId ?? given;
  return (row) => row.parent === id;
}

function amountOf(record: CreditNoteRecord): string {
  return shownTotal(record.templateRequest.totalAmount, record.templateRequest.currency);
}

/** What --json gives of each: what the table shows, whole, and the lines it credits. */
function jsonOf(row: Row): Record<string, unknown> {
  const { record } = row;
  return {
    serviceReceiptId: record.serviceReceiptId,
    documentNumber: record.documentNumber,
    requestId: record.requestId,
    receipt: { serviceReceiptId: row.parent, documentNumber: row.receipt?.templateRequest.documentNumber ?? null },
    totalAmount: record.templateRequest.totalAmount,
    currency: record.templateRequest.currency,
    issuedAt: record.issuedAt,
    issuedBy: record.issuedBy ?? null,
    lines: record.lines,
  };
}
