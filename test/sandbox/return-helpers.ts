// Shared by the issue-5 sandbox tests: the integration's key pair registered with the
// sandbox, return requests triggered as a customer, and credit-note entries encrypted the
// way the SDK encrypts them.
import { randomUUID } from 'node:crypto';
import type { QueueItem } from '../../src/contract/returns.js';
import type { Recipient } from '../../src/contract/recipient.js';
import type { UblDocument } from '../../src/contract/template.js';
import { documentHash } from '../../src/crypto/hash.js';
import { generateKeyPair, type GeneratedKeyPair } from '../../src/crypto/keys.js';
import type { Sandbox } from '../../src/sandbox/context.js';
import { saveReceipt } from '../../src/sandbox/receipts.js';
import { receiptEntries, templateRequest, type Harness, type Resolved } from './receipt-helpers.js';

export const CLIENT_ID = 'app_sandbox_pos';
export const RETAIL_API_KEY = 'sk_sandbox_example_retail_7c1e4b9a2f6d4e0b8a3c5d7e9f1a2b3c';
export const FOODS_API_KEY = 'sk_sandbox_sample_foods_4d8f2a6c1e9b4c3a7f5e0d2b8c6a4e1f';
export const QUEUE_ITEM_KEYS = [
  'createdAt',
  'encryptedCreditNoteInitiationRequest',
  'encryptedSymmetricKey',
  'publicKey',
  'requestId',
  'serviceReceiptId',
  'status',
];

let integrationKey: Promise<GeneratedKeyPair> | undefined;
/** One key pair per test file: generating RSA keys is the slow part. */
export function integrationKeyPair(): Promise<GeneratedKeyPair> {
  return (integrationKey ??= generateKeyPair());
}

/** What `svc keys generate --upload` does for the fixture's approved client application. */
export async function uploadIntegrationKey(h: Harness): Promise<GeneratedKeyPair> {
  const pair = await integrationKeyPair();
  const answer = await h.call('POST', `/client-application/${CLIENT_ID}/public-key`, {
    headers: { 'x-api-key': RETAIL_API_KEY },
    body: { keyData: pair.publicKey, algorithm: 'RSA_2048' },
  });
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`key upload: ${answer.raw}`);
  return pair;
}

export function triggerReturn(h: Harness, serviceReceiptId: string, body?: unknown) {
  return h.call<QueueItem>('POST', `/sandbox/receipts/${serviceReceiptId}/return-requests`, body === undefined ? {} : { body });
}

/** A PENDING request, or a failure naming why not. */
export async function pendingRequest(h: Harness, serviceReceiptId: string, body?: unknown): Promise<QueueItem> {
  const answer = await triggerReturn(h, serviceReceiptId, body);
  if (answer.status !== 201) throw new Error(`return request: ${answer.raw}`);
  return answer.body;
}

/** The route groups' view of the harness's sandbox, for calling stores directly. */
export function sandboxOf(h: Harness): Sandbox {
  return {
    state: h.running.state,
    clock: h.running.clock,
    autoApprove: false,
    version: 'test',
    startedAt: h.running.clock.iso(),
    stateSince: () => h.running.clock.iso(),
    persistent: false,
    log: () => {},
    reset: () => {},
  };
}

/**
 * A receipt as an API-key integration would have issued it: the sandbox's receipt routes take
 * bearer tokens only, so it is put in the store directly, with the template it names.
 */
export async function apiKeyReceipt(h: Harness, token: string, companyId: string, customerId: string): Promise<string> {
  const template = await h.call<UblDocument>('POST', '/receipt/template', { token, body: templateRequest() });
  const serviceReceiptId = randomUUID();
  saveReceipt(sandboxOf(h), {
    serviceReceiptId,
    companyId,
    clientId: null,
    customerId,
    deviceIds: h.running.state.devicesOf(customerId).map((d) => d.id),
    templateHash: documentHash(template.body),
    createdAt: h.running.clock.iso(),
    stored: new Map(),
  });
  return serviceReceiptId;
}

export function creditNoteTemplateRequest() {
  return { ...templateRequest(), documentNumber: 'CN-2030-0001', originatorDocumentReference: 'R-2030-0001' };
}

/** The receipt entries with `encryptedCreditNote` in place of `encryptedReceipt`. */
export function creditNoteEntries(template: UblDocument, recipients: readonly Recipient[], opts: Parameters<typeof receiptEntries>[2] = {}) {
  return receiptEntries(template, recipients, opts).map(({ encryptedReceipt, ...entry }) => ({ ...entry, encryptedCreditNote: encryptedReceipt }));
}

/** Credit note template and a resolve by the parent receipt: what a submission needs. */
export async function prepareCreditNote(h: Harness, token: string, parentServiceReceiptId: string) {
  const template = (await h.call<UblDocument>('POST', '/credit-note/template', { token, body: creditNoteTemplateRequest() })).body;
  const resolved = (await h.call<Resolved>('POST', '/recipient/resolve', { token, body: { serviceReceiptId: parentServiceReceiptId } })).body;
  return { template, templateHash: documentHash(template), resolved };
}
