// Shared by the issue-4 sandbox tests: a sandbox in-process with a fixed clock, bearer tokens
// for the fixture's companies, a JSON caller, a valid template request, and entries
// encrypted the way the SDK encrypts them.
import { fixedClock } from '../../src/clock.js';
import type { ReceiptTemplateRequest, UblDocument } from '../../src/contract/template.js';
import type { Recipient } from '../../src/contract/recipient.js';
import { documentHash } from '../../src/crypto/hash.js';
import { encryptJson } from '../../src/crypto/hybrid.js';
import type { Sandbox } from '../../src/sandbox/context.js';
import { grantAndTokenForTests } from '../../src/sandbox/guard.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';

export const START = Date.UTC(2030, 5, 1, 12, 0, 0);
export const RETAIL = 'c0000000-0000-4000-8000-000000000001';
export const FOODS = 'c0000000-0000-4000-8000-000000000002';
export const ALICE = 'cc000000-0000-4000-8000-000000000001';
export const BOB = 'cc000000-0000-4000-8000-000000000002';
export const RETAIL_STORE = '50000000-0000-4000-8000-000000000011';

export interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  raw: string;
}

export interface Harness {
  running: RunningSandbox;
  /** A bearer token for a fresh Grant of the company (write_receipts unless told). */
  token(companyId?: string, opts?: { scopes?: string[]; storeIds?: string[] }): string;
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    opts?: { token?: string | undefined; body?: unknown; headers?: Record<string, string> },
  ): Promise<Reply<T>>;
  close(): Promise<void>;
}

export async function startHarness(opts: { log?: (line: string) => void } = {}): Promise<Harness> {
  const running = await startSandbox({ clock: fixedClock(START), ...opts });
  // The guard's helpers take the route groups' view of the sandbox; state and clock are what they use.
  const sandbox: Sandbox = {
    state: running.state,
    clock: running.clock,
    autoApprove: false,
    version: 'test',
    startedAt: running.clock.iso(),
    stateSince: () => running.clock.iso(),
    persistent: false,
    log: () => {},
    reset: () => {},
  };
  return {
    running,
    token: (companyId = RETAIL, opts = {}) =>
      grantAndTokenForTests(sandbox, {
        companyId,
        scopes: opts.scopes ?? ['write_receipts'],
        ...(opts.storeIds ? { storeIds: opts.storeIds } : {}),
      }).token,
    async call<T>(method: string, path: string, opts: { token?: string | undefined; body?: unknown; headers?: Record<string, string> } = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${running.url}${path}`, {
        method,
        headers,
        ...(opts.body === undefined ? {} : { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) }),
      });
      const raw = await res.text();
      return { status: res.status, headers: res.headers, body: (raw === '' ? undefined : JSON.parse(raw)) as T, raw };
    },
    close: () => running.close(),
  };
}

/** Two lines at two VAT rates, consistent in every total. */
export function templateRequest(overrides: Partial<ReceiptTemplateRequest> = {}): ReceiptTemplateRequest {
  return {
    documentNumber: 'R-2030-0001',
    issueDate: '2030-06-01T14:00:00+02:00',
    currency: 'EUR',
    invoiceSubtotal: 33.4,
    totalBeforeTax: 33.4,
    totalTaxAmount: 3.35,
    totalAmount: 36.75,
    products: [
      {
        name: 'Coffee beans',
        brand: 'Roastery',
        identifier: 'SKU-BEANS-1KG',
        quantity: 2,
        unitCode: 'KGM',
        unitPrice: 12.5,
        taxes: [{ rate: 7, type: 'VAT', amount: 1.75, taxableAmount: 25 }],
        subtotal: 25,
        total: 26.75,
      },
      {
        name: 'Enamel mug',
        brand: '',
        identifier: 'SKU-MUG',
        quantity: 1,
        unitCode: 'C62',
        unitPrice: 8.4,
        taxes: [{ rate: 19, type: 'VAT', amount: 1.6, taxableAmount: 8.4 }],
        subtotal: 8.4,
        total: 10,
      },
    ],
    taxes: [
      { rate: 7, type: 'VAT', amount: 1.75, taxableAmount: 25 },
      { rate: 19, type: 'VAT', amount: 1.6, taxableAmount: 8.4 },
    ],
    ...overrides,
  };
}

export const CUSTOMER = { name: 'Alice Example', email: 'alice@example.com', address: 'Example Lane 5\n10115 Sampletown' };

/** The template with the customer party filled in: what the SDK encrypts and hashes as finalHash. */
export function finalDocument(template: UblDocument): UblDocument {
  return { ...template, accountingCustomerParty: { party: { partyName: { name: CUSTOMER.name } } } };
}

/** One entry per recipient, as the CLI builds it; `encryptFor` overrides the key a recipient's entry is sealed with. */
export function receiptEntries(
  template: UblDocument,
  recipients: readonly Recipient[],
  opts: { encryptFor?: (r: Recipient) => string; finalHash?: string } = {},
) {
  const document = finalDocument(template);
  const finalHash = opts.finalHash ?? documentHash(document);
  return recipients.map((recipient) => {
    const key = opts.encryptFor?.(recipient) ?? recipient.publicKey;
    const receipt = encryptJson(document, key);
    const details = encryptJson(CUSTOMER, key);
    return {
      recipientId: recipient.recipientId,
      receiverType: 'DEVICE',
      encryptedReceipt: receipt.ciphertext,
      encryptedSymmetricKey: receipt.wrappedKey,
      encryptedCustomerDetails: details.ciphertext,
      encryptedCustomerAesKey: details.wrappedKey,
      finalHash,
      publicKey: recipient.publicKey,
      supplierPartyId: String((template.accountingSupplierParty as { partyIdentification: [{ id: { value: string } }] }).partyIdentification[0].id.value),
    };
  });
}

export interface Resolved {
  matchId: string;
  recipients: Recipient[];
  acceptedFormats: string[];
}

/** Template, resolve and submit for a customer: the whole receipt flow, for tests that need a receipt. */
export async function issueReceipt(
  h: Harness,
  token: string,
  lookup: Record<string, string> = { email: 'alice@example.com' },
): Promise<{ serviceReceiptId: string; template: UblDocument; templateHash: string; resolved: Resolved }> {
  const template = await h.call<UblDocument>('POST', '/receipt/template', { token, body: templateRequest() });
  const resolved = await h.call<Resolved>('POST', '/recipient/resolve', { token, body: lookup });
  const templateHash = documentHash(template.body);
  const submitted = await h.call<{ serviceReceiptId: string }>('POST', '/receipt/encrypted', {
    token,
    body: { matchId: resolved.body.matchId, templateHash, encryptedReceipts: receiptEntries(template.body, resolved.body.recipients) },
  });
  if (submitted.status !== 201) throw new Error(`receipt not issued: ${submitted.raw}`);
  return { serviceReceiptId: submitted.body.serviceReceiptId, template: template.body, templateHash, resolved: resolved.body };
}
