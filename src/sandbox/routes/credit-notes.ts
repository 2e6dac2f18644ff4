// Credit note management (docs/interface-decisions.md#recipients-receipts-and-credit-notes;
// docs/interface-decisions.md#return-request-moves): the return request queue and its status updates, the encrypted
// credit note submission with what follows it (the owner's devices store their copy, one
// elected device seals the ReceiptEnvelope for the issuing integration, then one
// CREDIT_NOTE_CREATED), and the issuer key a device verifies a credit note with.
import { randomUUID } from 'node:crypto';
import { CreditNoteSubmission } from '../../contract/credit-note.js';
import type { IssuerKey } from '../../contract/oauth.js';
import { StatusUpdateRequest } from '../../contract/returns.js';
import type { CreditNoteCreatedData } from '../../contract/webhook.js';
import { documentHash } from '../../crypto/hash.js';
import { encryptJson } from '../../crypto/hybrid.js';
import { keyFingerprint } from '../../crypto/keys.js';
import type { Sandbox } from '../context.js';
import { findCreditNote, saveCreditNote } from '../credit-notes.js';
import { receiveOnDevice } from '../devices.js';
import { recordEvent } from '../events.js';
import { authorize, type Caller } from '../guard.js';
import { idempotent } from '../idempotency.js';
import { requireIssuerPublicKey } from '../issuers.js';
import { findReceipt, recordDeliveries, type DeliveryRecord, type StoredDocument } from '../receipts.js';
import { coverageProblems, requireMatch } from '../recipients.js';
import { queueJson, requireQueueRecord, setStatusByIssuer, statusAnswer } from '../returns.js';
import { HttpError, json, validated, type Reply, type RouteRequest, type Router } from '../router.js';
import { requireTemplate } from '../templates.js';
import { counted } from '../../io/plural.js';

const ENVELOPE_VERSION = 1;
const SCOPE = { scope: 'write_receipts', apiKey: true } as const;

export function register(router: Router, sandbox: Sandbox): void {
  router.get('/credit-note', (req) => ({
    status: 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    body: queueJson(sandbox, authorize(sandbox, req, SCOPE)),
  }));

  router.patch('/credit-note/requests/{requestId}/status', (req) => {
    const caller = authorize(sandbox, req, SCOPE);
    const record = requireQueueRecord(sandbox, req.params.requestId, caller);
    setStatusByIssuer(sandbox, record, validated(StatusUpdateRequest, req.body, 'the request body').status);
    sandbox.log(`return request ${record.requestId}: ${record.status}`);
    return json(200, statusAnswer(record));
  });

  router.post('/credit-note/encrypted', (req) => {
    const caller = authorize(sandbox, req, SCOPE);
    return idempotent(sandbox, req, caller.companyId, () =>
      issueCreditNote(sandbox, caller, validated(CreditNoteSubmission, req.body, 'the request body')),
    );
  });

  // The caller is a customer's device, which holds no bearer token. Sandbox convention: it
  // names itself in `X-Device-Id`, and must be a current device of the credit note's owner.
  router.get('/credit-note/{serviceReceiptId}/issuer-key', (req) => {
    const deviceId = headerValue(req, 'x-device-id');
    if (deviceId === undefined) {
      throw new HttpError('access_denied', "only a device of the credit note's owner may read its issuer key: name the device in X-Device-Id");
    }
    const creditNote = findCreditNote(sandbox, req.params.serviceReceiptId);
    if (!creditNote || sandbox.state.devices.get(deviceId)?.customerId !== creditNote.customerId) {
      throw new HttpError('not_found', `device ${deviceId} has no credit note ${req.params.serviceReceiptId}`);
    }
    const answer: IssuerKey = { publicKey: creditNote.issuerPublicKey, algorithm: 'RSA_2048', keyId: keyFingerprint(creditNote.issuerPublicKey) };
    return json(200, answer);
  });
}

function issueCreditNote(sandbox: Sandbox, caller: Caller, submission: CreditNoteSubmission): Reply {
  const { companyId, clientId } = caller;
  const parent = findReceipt(sandbox, submission.parentServiceReceiptId, companyId);
  if (!parent) throw invalid('parentServiceReceiptId', 'is not a receipt this company issued');
  const match = requireMatch(sandbox, companyId, submission.matchId);
  if (match.customerId !== parent.customerId) {
    throw invalid('matchId', "resolves someone other than the parent receipt's owner: resolve with the parent's serviceReceiptId");
  }
  const template = requireTemplate(sandbox, companyId, submission.templateHash, 'CREDIT_NOTE');
  const problems = coverageProblems(match, submission.encryptedCreditNotes, companyId, 'encryptedCreditNotes');
  if (problems.length > 0) throw new HttpError('validation_failed', 'the entries do not match the resolved recipients', { details: problems });
  // Checked before anything is delivered: the elected device could not seal the envelope.
  const issuerPublicKey = requireIssuerPublicKey(sandbox, caller);

  const serviceReceiptId = randomUUID();
  const createdAt = sandbox.clock.iso();
  const stored = new Map<string, StoredDocument>();
  let elected: { document: Readonly<Record<string, unknown>>; finalHash: string | undefined } | undefined;
  const deliveries: DeliveryRecord[] = [];
  for (const entry of submission.encryptedCreditNotes) {
    const base = { serviceReceiptId, kind: 'CREDIT_NOTE', recipientId: entry.recipientId, customerId: match.customerId, deliveredAt: createdAt, entry } as const;
    const device = sandbox.state.devices.get(entry.recipientId);
    if (!device) {
      deliveries.push({ ...base, status: 'UNDECRYPTABLE', reason: 'the device is no longer registered' });
      continue;
    }
    const outcome = receiveOnDevice(device, {
      documentField: 'encryptedCreditNote',
      encryptedDocument: entry.encryptedCreditNote,
      encryptedSymmetricKey: entry.encryptedSymmetricKey,
      encryptedCustomerDetails: entry.encryptedCustomerDetails,
      encryptedCustomerAesKey: entry.encryptedCustomerAesKey,
      publicKey: entry.publicKey,
      finalHash: entry.finalHash,
    });
    if (outcome.status === 'UNDECRYPTABLE') {
      deliveries.push({ ...base, status: outcome.status, reason: outcome.reason });
      continue;
    }
    stored.set(device.id, { document: outcome.document, customerDetails: outcome.customerDetails });
    // The first device that could open its copy is the one that builds the envelope.
    elected ??= { document: outcome.document, finalHash: entry.finalHash };
    deliveries.push({ ...base, status: outcome.status, ...(outcome.hashMatches === undefined ? {} : { hashMatches: outcome.hashMatches }) });
  }

  saveCreditNote(sandbox, {
    serviceReceiptId,
    parentServiceReceiptId: parent.serviceReceiptId,
    companyId,
    clientId,
    customerId: match.customerId,
    deviceIds: match.recipientIds,
    templateHash: template.templateHash,
    createdAt,
    issuerPublicKey,
    stored,
  });
  recordDeliveries(sandbox, deliveries);
  const delivered = deliveries.filter((d) => d.status === 'DELIVERED').length;
  sandbox.log(`credit note ${serviceReceiptId}: ${delivered} of ${counted(deliveries.length, 'device')} could decrypt their entry`);

  // No device could open its copy, so none can build the envelope: nothing was accepted to announce.
  if (elected) {
    const acceptedFormats = sandbox.state.customers.get(match.customerId)?.acceptedFormats ?? [];
    const envelope = {
      envelopeVersion: ENVELOPE_VERSION,
      documents: { SERVICE: elected.document, ...(acceptedFormats.includes('UBL_CREDIT_NOTE') ? { UBL_CREDIT_NOTE: elected.document } : {}) },
    };
    const sealed = encryptJson(envelope, issuerPublicKey);
    const data: CreditNoteCreatedData = {
      encryptedCreditNote: {
        clientId,
        companyId,
        created_at: createdAt,
        serviceReceiptId,
        encryptedEnvelope: sealed.ciphertext,
        encryptedEnvelopeKey: sealed.wrappedKey,
        publicKey: issuerPublicKey,
        recipientKeyAlgorithm: 'RSA_2048',
        envelopeVersion: ENVELOPE_VERSION,
        receiptGeneratorVersion: `svc-sandbox/${sandbox.version}`,
        finalHash: elected.finalHash ?? documentHash(elected.document),
      },
    };
    recordEvent(sandbox, { event: 'CREDIT_NOTE_CREATED', companyId, clientId, data });
  }
  return json(201, { serviceReceiptId, parentServiceReceiptId: parent.serviceReceiptId, templateHash: template.templateHash, createdAt });
}

function invalid(path: string, message: string): HttpError {
  return new HttpError('validation_failed', 'the request body is invalid', { details: [{ path, message }] });
}

function headerValue(req: RouteRequest<unknown, unknown, unknown>, name: string): string | undefined {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}
