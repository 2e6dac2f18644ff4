// Issued receipts and what each simulated device made of its delivery. The receipt keeps
// its owner and the documents as the owner's devices stored them, because the credit-note
// flow starts from there (resolve the owner's current devices, validate a return against
// the original lines). Deliveries keep the entries exactly as submitted, never plaintext.
import type { CustomerDetails } from '../contract/receipt.js';
import type { DeliveryStatus } from '../contract/sandbox-inspect.js';
import type { Sandbox } from './context.js';
import { defineSlice } from './state.js';

export interface StoredDocument {
  /** The decrypted document: the template with the customer party filled in. */
  readonly document: Readonly<Record<string, unknown>>;
  readonly customerDetails: CustomerDetails;
}

export interface ReceiptRecord {
  readonly serviceReceiptId: string;
  readonly companyId: string;
  /**
   * The client application that issued it, or null for an API-key integration: return
   * requests are encrypted for that issuer's registered key.
   */
  readonly clientId: string | null;
  /** The owner: the customer the match resolved. */
  readonly customerId: string;
  /** The devices the receipt was submitted for. */
  readonly deviceIds: readonly string[];
  readonly templateHash: string;
  readonly createdAt: string;
  /** By device id; only devices that could decrypt their entry have one. */
  readonly stored: ReadonlyMap<string, StoredDocument>;
}

export interface DeliveryRecord {
  readonly serviceReceiptId: string;
  readonly kind: 'RECEIPT' | 'CREDIT_NOTE';
  readonly recipientId: string;
  readonly customerId: string;
  readonly status: DeliveryStatus;
  readonly reason?: string;
  /** Only when the entry carried a finalHash. */
  readonly hashMatches?: boolean;
  readonly deliveredAt: string;
  /** The entry as submitted: ciphertexts only. */
  readonly entry: Readonly<Record<string, unknown>>;
}

const store = defineSlice('receipts', () => ({
  receipts: new Map<string, ReceiptRecord>(),
  deliveries: [] as DeliveryRecord[],
}));

export function saveReceipt(sandbox: Sandbox, receipt: ReceiptRecord): void {
  sandbox.state.slice(store).receipts.set(receipt.serviceReceiptId, receipt);
}

/** The receipt if this company issued it; another company's receipt is as absent as an unknown one. */
export function findReceipt(sandbox: Sandbox, serviceReceiptId: string, companyId: string): ReceiptRecord | undefined {
  const receipt = sandbox.state.slice(store).receipts.get(serviceReceiptId);
  return receipt?.companyId === companyId ? receipt : undefined;
}

/** Whoever issued it: for the sandbox's customer-side triggers, which act for the receipt's owner rather than a company. */
export function receiptById(sandbox: Sandbox, serviceReceiptId: string): ReceiptRecord | undefined {
  return sandbox.state.slice(store).receipts.get(serviceReceiptId);
}

export function recordDeliveries(sandbox: Sandbox, deliveries: readonly DeliveryRecord[]): void {
  sandbox.state.slice(store).deliveries.push(...deliveries);
}

/** Oldest first; all of them, or those of one receipt or credit note. */
export function listDeliveries(sandbox: Sandbox, serviceReceiptId?: string): DeliveryRecord[] {
  const all = sandbox.state.slice(store).deliveries;
  return serviceReceiptId === undefined ? [...all] : all.filter((d) => d.serviceReceiptId === serviceReceiptId);
}
