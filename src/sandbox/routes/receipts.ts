// `POST /receipt/encrypted` (docs/interface-decisions.md#receipt-template-and-submission) and the sandbox's view of what the devices made
// of it, `GET /sandbox/deliveries` (§7). The submission is checked as the real service can
// check it (a live match, a known template, one entry per matched device); then each
// simulated device opens its own entry, and whether it could is recorded, not enforced.
import { randomUUID } from 'node:crypto';
import * as z from '../../contract/zod.js';
import { ReceiptSubmission } from '../../contract/receipt.js';
import type { Sandbox } from '../context.js';
import { receiveOnDevice } from '../devices.js';
import { authorize, type Caller } from '../guard.js';
import { idempotent } from '../idempotency.js';
import { findCreditNote } from '../credit-notes.js';
import { listDeliveries, receiptById, recordDeliveries, saveReceipt, type DeliveryRecord, type StoredDocument } from '../receipts.js';
import { coverageProblems, requireMatch } from '../recipients.js';
import { HttpError, json, validated, type Reply, type Router } from '../router.js';
import { requireTemplate } from '../templates.js';
import { counted } from '../../io/plural.js';

const DeliveriesQuery = z.object({ serviceReceiptId: z.string().min(1).optional() });

export function register(router: Router, sandbox: Sandbox): void {
  router.post('/receipt/encrypted', (req) => {
    const caller = authorize(sandbox, req, { scope: 'write_receipts' , apiKey: true });
    return idempotent(sandbox, req, caller.companyId, () =>
      submit(sandbox, caller, validated(ReceiptSubmission, req.body, 'the request body')),
    );
  });

  router.get('/sandbox/deliveries', { query: DeliveriesQuery }, (req) => {
    const id = req.query.serviceReceiptId;
    const deliveries = listDeliveries(sandbox, id);
    // A receipt or credit note the sandbox never issued is not one without deliveries: `svc
    // sandbox deliveries` passes on an ID that matched nothing here for this answer (docs/return-queue.md).
    if (id !== undefined && deliveries.length === 0 && receiptById(sandbox, id) === undefined && findCreditNote(sandbox, id) === undefined) {
      throw new HttpError('not_found', `no receipt or credit note ${id}`);
    }
    return json(200, deliveries);
  });
}

function submit(sandbox: Sandbox, { companyId, clientId }: Caller, submission: ReceiptSubmission): Reply {
  const match = requireMatch(sandbox, companyId, submission.matchId);
  const template = requireTemplate(sandbox, companyId, submission.templateHash, 'RECEIPT');
  const problems = coverageProblems(match, submission.encryptedReceipts, companyId, 'encryptedReceipts');
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
    clientId,
    customerId: match.customerId,
    deviceIds: match.recipientIds,
    templateHash: template.templateHash,
    createdAt,
    stored,
  });
  recordDeliveries(sandbox, deliveries);
  const delivered = deliveries.filter((d) => d.status === 'DELIVERED').length;
  sandbox.log(`receipt ${serviceReceiptId}: ${delivered} of ${counted(deliveries.length, 'device')} could decrypt their entry`);
  return json(201, { serviceReceiptId, templateHash: template.templateHash, createdAt });
}
