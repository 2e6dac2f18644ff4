// Sandbox-only stand-ins for the customer (docs/interface-decisions.md#sandbox-endpoints): a device of the receipt's owner
// asks to return items, or withdraws its request. The device writes the return request
// plaintext from the receipt it holds (docs/interface-decisions.md#return-requests) and encrypts it for
// the receipt's issuer, so the issuer receives exactly what a real device would send:
// in the queue of `GET /credit-note` and as a RETURN_REQUESTED event.
import { randomUUID } from 'node:crypto';
import { ReturnRequest } from '../../contract/returns.js';
import { BulkReturnRequestTrigger, ReturnRequestTrigger, type ReturnRequestTriggerItem } from '../../contract/sandbox-returns.js';
import type { UblDocument } from '../../contract/template.js';
import { validate } from '../../contract/validate.js';
import type { ReturnRequestedData } from '../../contract/webhook.js';
import { encryptJson } from '../../crypto/hybrid.js';
import type { Sandbox } from '../context.js';
import { recordEvent } from '../events.js';
import { companiesGranting } from '../grants.js';
import { requireIssuerPublicKey } from '../issuers.js';
import { receiptCopyFor } from '../receipt-copies.js';
import { receiptById, type ReceiptRecord } from '../receipts.js';
import { cancelByCustomer, enqueue, queueItem, requireQueueRecord, statusAnswer, type QueueRecord } from '../returns.js';
import { countableQuantityProblem } from '../../contract/units.js';
import { HttpError, json, validated, type Router } from '../router.js';
import { findTemplate } from '../templates.js';
import { counted } from '../../io/plural.js';

const DEFAULT_REASON = 'DAMAGED';

export function register(router: Router, sandbox: Sandbox): void {
  router.post('/sandbox/receipts/{serviceReceiptId}/return-requests', (req) => {
    const receipt = requireReceipt(sandbox, req.params.serviceReceiptId);
    const trigger = validated(ReturnRequestTrigger, req.body ?? {}, 'the request body');
    const request = returnRequestOf(sandbox, receipt, trigger);
    const record = submitReturnRequest(sandbox, receipt, request, requireIssuerPublicKey(sandbox, receipt), requestedAt(sandbox, receipt, trigger));
    sandbox.log(`return request ${record.requestId} for receipt ${receipt.serviceReceiptId}: ${counted(request.lineItems.length, 'line')}`);
    return json(201, queueItem(record));
  });

  // Load for polling benchmarks: no RETURN_REQUESTED events unless asked for, so that a
  // subscribed listener is not flooded with thousands of deliveries it did not ask to measure.
  router.post('/sandbox/return-requests/bulk', (req) => {
    const trigger = validated(BulkReturnRequestTrigger, req.body, 'the request body');
    const receipt = requireReceipt(sandbox, trigger.serviceReceiptId);
    const publicKey = requireIssuerPublicKey(sandbox, receipt);
    const at = requestedAt(sandbox, receipt, trigger);
    const targets = spreadTargets(sandbox, receipt, trigger.companies ?? 1).map((target) => ({
      receipt: target,
      request: returnRequestOf(sandbox, target, trigger),
      count: 0,
    }));
    const records: QueueRecord[] = [];
    for (let i = 0; i < trigger.count; i++) {
      const target = targets[i % targets.length]!;
      records.push(
        trigger.events
          ? submitReturnRequest(sandbox, target.receipt, target.request, publicKey, at)
          : encryptedRecord(sandbox, target.receipt, target.request, publicKey, at),
      );
      target.count += 1;
    }
    if (!trigger.events) enqueue(sandbox, records, at.datedBack);
    const requestIds = records.map((r) => r.requestId);
    sandbox.log(`bulk: ${trigger.count} return requests for receipt ${receipt.serviceReceiptId} in ${counted(targets.filter((t) => t.count > 0).length, 'company', 'companies')}`);
    const companies = targets.map((t) => ({ companyId: t.receipt.companyId, serviceReceiptId: t.receipt.serviceReceiptId, count: t.count }));
    return json(201, { serviceReceiptId: receipt.serviceReceiptId, count: requestIds.length, requestIds, companies });
  });

  router.post('/sandbox/return-requests/{requestId}/cancel', (req) => {
    const record = requireQueueRecord(sandbox, req.params.requestId);
    cancelByCustomer(sandbox, record);
    sandbox.log(`return request ${record.requestId} cancelled by the customer`);
    return json(200, statusAnswer(record));
  });
}

function requireReceipt(sandbox: Sandbox, serviceReceiptId: string): ReceiptRecord {
  const receipt = receiptById(sandbox, serviceReceiptId);
  if (!receipt) throw new HttpError('not_found', `no receipt ${serviceReceiptId}`);
  return receipt;
}

/**
 * The receipt's company, then the other companies that granted its client application, as
 * far as `companies` asks: each with its copy of the receipt. An API-key receipt has no
 * platform to spread over.
 */
function spreadTargets(sandbox: Sandbox, receipt: ReceiptRecord, companies: number): ReceiptRecord[] {
  if (companies === 1) return [receipt];
  const others = receipt.clientId === null ? [] : companiesGranting(sandbox, receipt.clientId).filter((id) => id !== receipt.companyId);
  if (others.length + 1 < companies) {
    throw new HttpError('validation_failed', `only ${counted(others.length + 1, 'company', 'companies')} can hold this receipt's return requests`, {
      details: [{ path: 'companies', message: `the receipt's company and those with an active Grant for its client application: at most ${others.length + 1}` }],
    });
  }
  return [receipt, ...others.slice(0, companies - 1).map((companyId) => receiptCopyFor(sandbox, receipt, companyId))];
}

/**
 * The plaintext the owner's device writes: the merchant's document number and product
 * identifiers as the receipt shows them, the trigger's choices, and the defaults a customer
 * who just taps "return" gets. Checked with the schema the issuer will check it with.
 */
function returnRequestOf(sandbox: Sandbox, receipt: ReceiptRecord, trigger: ReturnRequestTrigger): ReturnRequest {
  const template = findTemplate(sandbox, receipt.companyId, receipt.templateHash, 'RECEIPT');
  const customer = sandbox.state.customers.get(receipt.customerId);
  // Both were there when the receipt was accepted, and only a reset (which drops the receipt too) removes them.
  if (!template || !customer) throw new Error(`receipt ${receipt.serviceReceiptId} has lost its template or owner`);
  const items = trigger.items ?? everyLineOnce(template.document);
  const refundPreference = trigger.refundPreference ?? 'ORIGINAL_PAYMENT_METHOD';
  const refundBankAccount =
    trigger.refundBankAccount ?? (refundPreference === 'BANK_TRANSFER' ? { iban: customer.iban, accountHolder: customer.name } : undefined);
  const plaintext = {
    serviceReceiptId: receipt.serviceReceiptId,
    receiptId: template.document.id?.value,
    lineItems: items.map((item) => ({
      productId: item.productId,
      quantity: item.quantity,
      reasonCode: item.reasonCode ?? trigger.reasonCode ?? DEFAULT_REASON,
      ...(item.reasonDescription === undefined ? {} : { reasonDescription: item.reasonDescription }),
    })),
    refundPreference,
    ...(refundBankAccount === undefined ? {} : { refundBankAccount }),
    ...(trigger.customerNote === undefined ? {} : { customerNote: trigger.customerNote }),
  };
  // A device offers whole pieces only: half a bottle is no return (src/contract/units.ts).
  const countedIssues = items.flatMap((item, i) => {
    const line = (template.document.invoiceLine ?? []).find((l) => l.item?.sellersItemIdentification?.id?.value === item.productId);
    const problem = countableQuantityProblem(line?.invoicedQuantity?.unitCode, item.quantity);
    return problem === undefined ? [] : [{ path: `items.${i}.quantity`, message: problem }];
  });
  if (countedIssues.length > 0) throw new HttpError('validation_failed', 'the return request the device would send is invalid', { details: countedIssues });
  const result = validate(ReturnRequest, plaintext);
  if (!result.success) {
    // Named as the trigger's members, which are what the caller can change.
    const details = result.issues.map((issue) => ({ ...issue, path: issue.path.replace(/^lineItems\b/, 'items') }));
    throw new HttpError('validation_failed', 'the return request the device would send is invalid', { details });
  }
  return result.data;
}

function everyLineOnce(document: UblDocument): ReturnRequestTriggerItem[] {
  return (document.invoiceLine ?? []).map((line) => ({ productId: line.item?.sellersItemIdentification?.id?.value ?? '', quantity: 1 }));
}

interface RequestedAt {
  createdAt: string;
  datedBack: boolean;
}

/**
 * When the customer asked: now, or dated back for an aged queue (`createdAt`, or `ageSeconds`
 * before the sandbox clock's now), never before the purchase nor after now.
 */
function requestedAt(sandbox: Sandbox, receipt: ReceiptRecord, trigger: ReturnRequestTrigger): RequestedAt {
  const now = sandbox.clock.now();
  if (trigger.createdAt !== undefined && trigger.ageSeconds !== undefined) {
    throw new HttpError('validation_failed', 'give createdAt or ageSeconds, not both', { details: [{ path: 'ageSeconds', message: 'not with createdAt' }] });
  }
  const at = trigger.createdAt !== undefined ? Date.parse(trigger.createdAt) : trigger.ageSeconds !== undefined ? now - trigger.ageSeconds * 1000 : now;
  const path = trigger.createdAt !== undefined ? 'createdAt' : 'ageSeconds';
  if (at > now) {
    throw new HttpError('validation_failed', 'a return request cannot be made in the future', {
      details: [{ path, message: `${new Date(at).toISOString()} is later than the sandbox clock's now (${new Date(now).toISOString()})` }],
    });
  }
  const issueDate = findTemplate(sandbox, receipt.companyId, receipt.templateHash, 'RECEIPT')?.document.issueDate;
  const bought = issueDate === undefined ? Number.NaN : Date.parse(issueDate);
  if (at < bought) {
    throw new HttpError('validation_failed', 'a return request cannot precede the purchase', {
      details: [{ path, message: `${new Date(at).toISOString()} is before the receipt was issued (${issueDate ?? ''})` }],
    });
  }
  return { createdAt: new Date(at).toISOString(), datedBack: at < now };
}

function encryptedRecord(sandbox: Sandbox, receipt: ReceiptRecord, request: ReturnRequest, publicKey: string, at: RequestedAt): QueueRecord {
  const sealed = encryptJson(request, publicKey);
  return {
    requestId: randomUUID(),
    serviceReceiptId: receipt.serviceReceiptId,
    encryptedSymmetricKey: sealed.wrappedKey,
    publicKey,
    encryptedCreditNoteInitiationRequest: sealed.ciphertext,
    createdAt: at.createdAt,
    status: 'PENDING',
    updatedAt: sandbox.clock.iso(),
    companyId: receipt.companyId,
    clientId: receipt.clientId,
  };
}

function submitReturnRequest(sandbox: Sandbox, receipt: ReceiptRecord, request: ReturnRequest, publicKey: string, at: RequestedAt): QueueRecord {
  const record = encryptedRecord(sandbox, receipt, request, publicKey, at);
  enqueue(sandbox, [record], at.datedBack);
  const data: ReturnRequestedData = {
    creditNoteInitiationRequest: {
      clientId: record.clientId,
      companyId: record.companyId,
      created_at: record.createdAt,
      serviceReceiptId: record.serviceReceiptId,
      publicKey: record.publicKey,
      encryptedCreditNoteInitiationRequest: record.encryptedCreditNoteInitiationRequest,
      encryptedSymmetricKey: record.encryptedSymmetricKey,
    },
  };
  recordEvent(sandbox, { event: 'RETURN_REQUESTED', companyId: record.companyId, clientId: record.clientId, data });
  return record;
}
