// The COMPANY column of a list of the ledger's documents (receipts, credit notes), last so
// that the columns before keep their places, when they are of several companies (a
// platform's, `--grant`): each company numbers its own, so a document number alone no longer
// says which one a row is. Its legal name from the profile's Grants, else the supplier's ID
// the receipt's template names.
import type { Factory } from '../factory.js';
import { grantEntries } from '../auth/grant-select.js';
import { readAuthorizations } from '../auth/profile.js';
import type { Column } from '../io/output.js';
import { supplierPartyIdOf } from './document.js';
import type { ReceiptRecord } from '../contract/records.js';

export async function companyColumn<T>(f: Factory, rows: readonly T[], receiptOf: (row: T) => ReceiptRecord | undefined): Promise<Column<T>[]> {
  const issuer = (row: T) => {
    const receipt = receiptOf(row);
    return receipt === undefined ? '' : issuerOf(receipt);
  };
  if (new Set(rows.map(issuer)).size < 2) return [];
  const settings = await f.settings();
  const names = new Map(grantEntries(readAuthorizations(await f.config(), settings.profile.value)).map((e) => [e.companyId, e.company]));
  return [{ header: 'COMPANY', value: (row) => { const id = issuer(row); return names.get(id) ?? id; } }];
}

/**
 * With `--grant SELECTOR`, the rows of that company only (as every verb reads a selector:
 * a Grant ID or prefix, a tax ID, part of the name); undefined without it: every company's.
 */
export async function companyFilter<T>(f: Factory, receiptOf: (row: T) => ReceiptRecord | undefined): Promise<((row: T) => boolean) | undefined> {
  const selector = f.globals.grant;
  if (selector === undefined) return undefined;
  const { selectGrant } = await import('../auth/grant-select.js');
  const settings = await f.settings();
  const entries = grantEntries(readAuthorizations(await f.config(), settings.profile.value));
  const id = selectGrant(selector, entries, { from: '--grant' });
  const companyId = entries.find((e) => e.id === id)?.companyId ?? id;
  return (row) => {
    const receipt = receiptOf(row);
    return receipt !== undefined && issuerOf(receipt) === companyId;
  };
}

function issuerOf(record: ReceiptRecord): string {
  try {
    return supplierPartyIdOf(record.template);
  } catch {
    return '';
  }
}
