// Issued credit notes. Kept apart from receipts so that a credit note is never taken for a
// receipt (resolved as a parent, returned again); its deliveries go with the receipts'
// (`recordDeliveries`, kind CREDIT_NOTE).
import type { Sandbox } from './context.js';
import type { Issuer } from './issuers.js';
import type { StoredDocument } from './receipts.js';
import { defineSlice } from './state.js';

export interface CreditNoteRecord extends Issuer {
  readonly serviceReceiptId: string;
  readonly parentServiceReceiptId: string;
  /** The parent's owner. */
  readonly customerId: string;
  readonly deviceIds: readonly string[];
  readonly templateHash: string;
  readonly createdAt: string;
  /** The issuer's key when the credit note was issued: the one its envelope was sealed for. */
  readonly issuerPublicKey: string;
  /** By device id; only devices that could decrypt their entry have one. */
  readonly stored: ReadonlyMap<string, StoredDocument>;
}

const creditNotes = defineSlice('creditNotes', () => new Map<string, CreditNoteRecord>());

export function saveCreditNote(sandbox: Sandbox, creditNote: CreditNoteRecord): void {
  sandbox.state.slice(creditNotes).set(creditNote.serviceReceiptId, creditNote);
}

export function findCreditNote(sandbox: Sandbox, serviceReceiptId: string): CreditNoteRecord | undefined {
  return sandbox.state.slice(creditNotes).get(serviceReceiptId);
}
