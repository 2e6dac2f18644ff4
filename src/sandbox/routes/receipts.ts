// `POST /receipt/encrypted` (CONTRACT.md §6) and the sandbox's view of what the devices made
// of it, `GET /sandbox/deliveries` (§7). The submission is checked as the real service can
// check it (a live match, a known template, one entry per matched device); then each
// simulated device opens its own entry, and whether it could is recorded, not enforced.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ReceiptSubmission, type EncryptedReceiptEntry } from '../../contract/receipt.js';
import type { Sandbox } from '../context.js';
import { receiveOnDevice } from '../devices.js';
import { authorize } from '../guard.js';
import { idempotent } from '../idempotency.js';
import { listDeliveries, recordDeliveries, saveReceipt, type DeliveryRecord, type StoredDocument } from '../receipts.js';
import { requireMatch, type Match } from '../recipients.js';
import { HttpError, json, validated, type ErrorDetail, type Reply, type Router } from '../router.js';
import { findTemplate } from '../templates.js';

const DeliveriesQuery = z.object({ serviceReceiptId: z.string().min(1).optional() });

export function register(router: Router, sandbox: Sandbox): void {
  router.post('/receipt/encrypted', (req) => {
    const caller = authorize(sandbox, req, { scope: 'write_receipts' });
    return idempotent(sandbox, req, caller.companyId, () =>
      submit(sandbox, caller.companyId, validated(ReceiptSubmission, req.body, 'the request body')),
    );
  });

  router.get('/sandbox/deliveries', { query: DeliveriesQuery }, (req) => json(200, listDeliveries(sandbox, req.query.serviceReceiptId)));
}

function submit(sandbox: Sandbox, companyId: string, submission: ReceiptSubmission): Reply {
  const match = requireMatch(sandbox, companyId, submission.matchId);
  const template = findTemplate(sandbox, companyId, submission.templateHash, 'RECEIPT');
  if (!template) {
    throw new HttpError('unknown_template', 'the templateHash names no receipt template issued to this company', {
      details: [{ path: 'templateHash', message: 'is not the hash of a receipt template from POST /receipt/template' }],
    });
  }
  const problems = coverageProblems(match, submission.encryptedReceipts, companyId);
  if (problems.length > 0) throw new HttpError('validation_failed', 'the entries do not match the resolved recipients', { details: problems });

  const serviceReceiptId = randomUUID();
  const createdAt = sandbox.clock.iso();
  const stored = new Map<string, StoredDocument>();
  const deliveries = submission.encryptedReceipts.map((entry): DeliveryRecord => {
    const base = { serviceReceiptId, kind: 'RECEIPT', recipientId: entry.recipientId, customerId: match.customerId, deliveredAt: createdAt, entry } as const;
    const device = sandbox.state.devices.get(entry.recipientId);
    if (!device) return { ...base, status: 'UNDECRYPTABLE', reason: 'the device is no longer registered' };
    const outcome = receiveOnDevice(device, {
      documentField: 'encryptedReceipt',
      encryptedDocument: entry.encryptedReceipt,
      encryptedSymmetricKey: entry.encryptedSymmetricKey,
      encryptedCustomerDetails: entry.encryptedCustomerDetails,
      encryptedCustomerAesKey: entry.encryptedCustomerAesKey,
      publicKey: entry.publicKey,
      finalHash: entry.finalHash,
    });
    if (outcome.status === 'UNDECRYPTABLE') return { ...base, status: outcome.status, reason: outcome.reason };
    stored.set(device.id, { document: outcome.document, customerDetails: outcome.customerDetails });
    return { ...base, status: outcome.status, ...(outcome.hashMatches === undefined ? {} : { hashMatches: outcome.hashMatches }) };
  });

  saveReceipt(sandbox, {
    serviceReceiptId,
    companyId,
    customerId: match.customerId,
    deviceIds: match.recipientIds,
    templateHash: template.templateHash,
    createdAt,
    stored,
  });
  recordDeliveries(sandbox, deliveries);
  const delivered = deliveries.filter((d) => d.status === 'DELIVERED').length;
  sandbox.log(`receipt ${serviceReceiptId}: ${delivered} of ${deliveries.length} device(s) could decrypt their entry`);
  return json(201, { serviceReceiptId, templateHash: template.templateHash, createdAt });
}

/** Every matched device exactly once, nothing else, each entry labelled as the template's supplier. */
function coverageProblems(match: Match, entries: readonly EncryptedReceiptEntry[], companyId: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const wanted = new Set(match.recipientIds);
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    const at = `encryptedReceipts.${i}`;
    if (!wanted.has(entry.recipientId)) problems.push({ path: `${at}.recipientId`, message: 'is not a recipient of this match' });
    else if (seen.has(entry.recipientId)) problems.push({ path: `${at}.recipientId`, message: 'appears more than once: one entry per recipient' });
    seen.add(entry.recipientId);
    if (entry.receiverType !== undefined && entry.receiverType !== 'DEVICE')
      problems.push({ path: `${at}.receiverType`, message: 'must be "DEVICE", as the match returned it' });
    if (entry.supplierPartyId !== companyId)
      problems.push({ path: `${at}.supplierPartyId`, message: "must be the template's accountingSupplierParty.partyIdentification[0].id.value" });
  });
  for (const recipientId of match.recipientIds) {
    if (!seen.has(recipientId))
      problems.push({ path: 'encryptedReceipts', message: `has no entry for recipient ${recipientId}: encrypt for every recipient the match returned` });
  }
  return problems;
}
