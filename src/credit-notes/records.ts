// The merchant's own record of every credit note the profile issued, read from its ledger
// (src/store/); the schema is src/contract/records.ts.
import type { CreditNoteRecord } from '../contract/records.js';
import type { Factory } from '../factory.js';

/** The credit notes issued against a receipt, oldest first, from the profile's ledger. */
export async function loadCreditNotes(f: Factory, parentServiceReceiptId: string): Promise<CreditNoteRecord[]> {
  return (await f.ledger()).creditNotes(parentServiceReceiptId);
}
