// For the sandbox's spreading triggers (`--companies`): one purchase made in many of a
// platform's companies at once. A copy of a receipt belongs to another company that granted
// the same client application, with its own serviceReceiptId and the same template and
// owner, so that return requests for it land in that company's queue, encrypted for the
// same issuer key. One copy per receipt and company, however often a trigger asks.
import { randomUUID } from 'node:crypto';
import type { Sandbox } from './context.js';
import { saveReceipt, receiptById, type ReceiptRecord } from './receipts.js';
import { defineSlice } from './state.js';
import { findTemplate, rememberTemplate } from './templates.js';

/** "receipt company" → the copy's serviceReceiptId. */
const copies = defineSlice('receiptCopies', () => new Map<string, string>());

export function receiptCopyFor(sandbox: Sandbox, receipt: ReceiptRecord, companyId: string): ReceiptRecord {
  if (companyId === receipt.companyId) return receipt;
  const key = `${receipt.serviceReceiptId} ${companyId}`;
  const known = sandbox.state.slice(copies).get(key);
  const existing = known === undefined ? undefined : receiptById(sandbox, known);
  if (existing) return existing;
  const template = findTemplate(sandbox, receipt.companyId, receipt.templateHash, 'RECEIPT');
  if (!template) throw new Error(`receipt ${receipt.serviceReceiptId} has lost its template`);
  rememberTemplate(sandbox, { ...template, companyId });
  const copy: ReceiptRecord = { ...receipt, serviceReceiptId: randomUUID(), companyId };
  saveReceipt(sandbox, copy);
  sandbox.state.slice(copies).set(key, copy.serviceReceiptId);
  return copy;
}
