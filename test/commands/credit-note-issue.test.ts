import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RequestStateError } from '../../src/api/credit-note.js';
import type { fixedClock } from '../../src/clock.js';
import { run as issue, type IssueOptions } from '../../src/commands/credit-note/issue.js';
import type { CreditNoteSubmission } from '../../src/contract/credit-note.js';
import type { CustomerDetails } from '../../src/contract/receipt.js';
import type { QueueItem, ReturnRequest } from '../../src/contract/returns.js';
import { CreditNoteTemplateRequest, type ReceiptTemplateRequest } from '../../src/contract/template.js';
import type { CreditNoteRecord } from '../../src/contract/records.js';
import { loadCreditNotes } from '../../src/credit-notes/records.js';
import { documentHash } from '../../src/crypto/hash.js';
import { decryptJson } from '../../src/crypto/hybrid.js';
import { toMinor } from '../../src/crypto/money.js';
import { ExitCode, SvcError, UsageError, ValidationError } from '../../src/errors.js';
import type { Prompter } from '../../src/io/prompter.js';
import { injectCustomer } from '../../src/receipts/document.js';
import { discountedLine, groceries } from '../credit-notes/fixtures.js';
import { merchantKeys, queueItem, receiptRecord, replyIssue, replyQueue, replyStatus, withKeys, type MerchantKeys } from './credit-note-setup.js';
import { ALICE, NOW, closeHarnesses, expectHeader, harness, readFixture, type Harness } from './receipts-setup.js';

const tokenSourceFor = vi.hoisted(() =>
  vi.fn(async (_f: unknown, _want?: { scope?: string }) => ({ token: async () => 'tok-1', invalidate: async () => {} })),
);
vi.mock('../../src/auth/session.js', () => ({ tokenSourceFor }));

let keys: MerchantKeys;
beforeAll(async () => {
  keys = await merchantKeys();
});
afterEach(async () => {
  tokenSourceFor.mockClear();
  await closeHarnesses();
});

const MILK = '4001234567890';
const WATER = '4001111222333';
/** docs/interface-decisions.md#idempotency-keys: derived from issuer, document type and number. */
const DERIVED_KEY = /^svc-credit-note-[0-9a-f]{40}$/;
const alice = () => readFixture('customers/alice.json') as CustomerDetails;

function returnRequest(lines: [string, number][], changes: Partial<ReturnRequest> = {}, receipt = groceries()): ReturnRequest {
  return {
    serviceReceiptId: 'sr-1',
    receiptId: receipt.documentNumber,
    lineItems: lines.map(([productId, quantity]) => ({ productId, quantity, reasonCode: 'DAMAGED' })),
    refundPreference: 'STORE_CREDIT',
    ...changes,
  };
}

/** A harness with the merchant's keys and the local record of the groceries receipt. */
async function shop(opts: { json?: boolean; receipt?: ReceiptTemplateRequest; record?: boolean } = {}): Promise<Harness> {
  const h = await harness({ json: opts.json ?? false });
  await withKeys(h, keys);
  if (opts.record !== false) await (await h.f.ledger()).importRecords({ receipts: [receiptRecord(opts.receipt ?? groceries())], creditNotes: [] });
  return h;
}

const opts = (requestId: string, more: Partial<IssueOptions> = {}): IssueOptions => ({ requestId, yes: true, ...more });

describe('credit-note issue: a successful issue', () => {
  it('sends consistent bodies, one entry per device with an Idempotency-Key, and records the credit note', async () => {
    const h = await shop({ json: true });
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1], [WATER, 2]]), keys.current.publicKey)]);
    const documents = replyIssue(h);
    await issue(opts('req-1'), h.f);

    expect(h.sent.map((s) => s.path)).toEqual(['/credit-note/template', '/recipient/resolve', '/credit-note/encrypted']);
    const [templateSent, resolveSent, submitted] = h.sent;
    const template = templateSent!.body as CreditNoteTemplateRequest;
    expect(CreditNoteTemplateRequest.safeParse(template).success).toBe(true);
    // Milk 1 of 2: 1.19 + tax 0.085 → 0.09; water 2 of 6: 1.18 + tax 0.2233 → 0.22.
    expect(template).toMatchObject({
      documentNumber: 'CN-R-2025-000871-1',
      originatorDocumentReference: 'R-2025-000871',
      issueDate: new Date(NOW).toISOString(),
      currency: 'EUR',
      invoiceSubtotal: 2.37,
      totalBeforeTax: 2.37,
      totalTaxAmount: 0.31,
      totalAmount: 2.68,
      taxes: [
        { rate: 7, type: 'VAT', amount: 0.09, taxableAmount: 1.19, label: 'VAT 7%' },
        { rate: 19, type: 'VAT', amount: 0.22, taxableAmount: 1.18, label: 'VAT 19%' },
      ],
    });
    expect(template.products.map((p) => [p.identifier, p.quantity, p.unitPrice, p.subtotal, p.total])).toEqual([
      [MILK, 1, 1.19, 1.19, 1.28],
      [WATER, 2, 0.59, 1.18, 1.4],
    ]);
    const minor = (n: number) => toMinor(n, 'EUR');
    expect(template.products.reduce((s, p) => s + minor(p.total), 0)).toBe(minor(template.totalAmount));
    expect(resolveSent!.body).toEqual({ serviceReceiptId: 'sr-1' });

    const submission = submitted!.body as CreditNoteSubmission;
    const document = documents[0]!;
    expect(submission.matchId).toBe('match-cn-1');
    expect(submission.parentServiceReceiptId).toBe('sr-1');
    expect(submission.templateHash).toBe(documentHash(document));
    expect(expectHeader(submitted!, 'idempotency-key')).toMatch(DERIVED_KEY);
    expect(submission.encryptedCreditNotes).toHaveLength(ALICE.devices.length);
    const finalDoc = injectCustomer(document, alice());
    for (const [i, device] of ALICE.devices.entries()) {
      const entry = submission.encryptedCreditNotes[i]!;
      expect(entry).not.toHaveProperty('encryptedReceipt');
      expect(entry).toMatchObject({ recipientId: device.id, receiverType: 'DEVICE', publicKey: device.publicKey, finalHash: documentHash(finalDoc) });
      expect(decryptJson(entry.encryptedCreditNote, entry.encryptedSymmetricKey, device.privateKeyPem)).toEqual(finalDoc);
      expect(decryptJson(entry.encryptedCustomerDetails, entry.encryptedCustomerAesKey, device.privateKeyPem)).toEqual(alice());
    }

    expect(JSON.parse(h.streams.stdout())).toMatchObject({
      serviceReceiptId: 'cn-1',
      parentServiceReceiptId: 'sr-1',
      requestId: 'req-1',
      documentNumber: 'CN-R-2025-000871-1',
      invoiceSubtotal: 2.37,
      totalTaxAmount: 0.31,
      totalAmount: 2.68,
      recipients: ALICE.devices.length,
    });
    const [recorded] = await loadCreditNotes(h.f, 'sr-1');
    expect(recorded).toMatchObject({
      serviceReceiptId: 'cn-1',
      requestId: 'req-1',
      documentNumber: 'CN-R-2025-000871-1',
      lines: [
        { originalLine: 0, productId: MILK, quantity: 1 },
        { originalLine: 5, productId: WATER, quantity: 2 },
      ],
      templateHash: submission.templateHash,
      matchId: 'match-cn-1',
    });
  });

  it('never gives two credit notes of a receipt one document number', async () => {
    const h = await shop();
    // The first takes the number the second would get by default.
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1]]), keys.current.publicKey)]);
    replyIssue(h, 'cn-1');
    await issue(opts('req-1', { documentNumber: 'CN-R-2025-000871-2' }), h.f);
    replyQueue(h, [queueItem('req-2', returnRequest([[WATER, 1]]), keys.current.publicKey)]);
    replyIssue(h, 'cn-2');
    await issue(opts('req-2'), h.f);
    expect((await loadCreditNotes(h.f, 'sr-1')).map((n) => n.documentNumber)).toEqual(['CN-R-2025-000871-2', 'CN-R-2025-000871-3']);

    const sent = h.sent.length;
    replyQueue(h, [queueItem('req-3', returnRequest([[WATER, 1]]), keys.current.publicKey)]);
    const error = (await issue(opts('req-3', { documentNumber: 'CN-R-2025-000871-3' }), h.f).catch((e: unknown) => e)) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toBe('--document-number CN-R-2025-000871-3 is already the number of credit note cn-2 of this receipt');
    expect(h.sent).toHaveLength(sent);
    expect(await loadCreditNotes(h.f, 'sr-1')).toHaveLength(2);
  });

  it('prints the bare serviceReceiptId and shows the computed credit note on stderr', async () => {
    const h = await shop();
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1]], { refundPreference: 'BANK_TRANSFER', refundBankAccount: { iban: 'DE89370400440532013000' } }), keys.current.publicKey)]);
    replyIssue(h);
    await issue(opts('req-1', { documentNumber: 'CN-77' }), h.f);
    expect(h.streams.stdout()).toBe('cn-1\n');
    const err = h.streams.stderr();
    expect(err).toContain('credit note CN-77 for receipt R-2025-000871:');
    expect(err).toMatch(/1 +4001234567890 +Whole milk 3\.5% 1 l +1 of 2 +1\.19 +0\.09 +1\.28/);
    expect(err).toContain('subtotal 1.19 EUR · tax 0.09 EUR · total 1.28 EUR');
    expect(err).toContain('refund requested: BANK_TRANSFER to •••• 3000');
    expect(h.output()).not.toContain('DE89370400440532013000');
    expect((h.sent[0]!.body as CreditNoteTemplateRequest).documentNumber).toBe('CN-77');
  });

  it('prorates a discounted line in exact cents: 1 of 3 at 0.99 less 0.50', async () => {
    const h = await shop({ receipt: discountedLine() });
    replyQueue(h, [queueItem('req-1', returnRequest([['PENCIL-HB', 1]], {}, discountedLine()), keys.current.publicKey)]);
    replyIssue(h);
    await issue(opts('req-1'), h.f);
    const template = h.sent[0]!.body as CreditNoteTemplateRequest;
    expect(template.products[0]).toMatchObject({ quantity: 1, discounts: [{ amount: 0.17, label: 'Bundle' }], subtotal: 0.82, total: 0.98 });
    expect(template).toMatchObject({ invoiceSubtotal: 0.82, totalTaxAmount: 0.16, totalAmount: 0.98 });
  });

  it('--complete accepts a PENDING request, then completes it', async () => {
    const h = await shop({ json: true });
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1]]), keys.current.publicKey)]);
    replyIssue(h);
    replyStatus(h, 'req-1');
    replyStatus(h, 'req-1');
    await issue(opts('req-1', { complete: true }), h.f);
    expect(h.sent.slice(3).map((s) => s.body)).toEqual([{ status: 'ACCEPTED' }, { status: 'COMPLETED' }]);
    expect(JSON.parse(h.streams.stdout())).toMatchObject({ serviceReceiptId: 'cn-1', status: 'COMPLETED' });
  });

  it('takes the receipt record from --original when this machine did not issue it', async () => {
    const h = await shop({ record: false });
    const dir = join(h.stateDir, 'in');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'original.json');
    await writeFile(file, JSON.stringify(receiptRecord(groceries())));
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1]]), keys.older.publicKey, { status: 'ACCEPTED' })]);
    replyIssue(h);
    await issue(opts('req-1', { original: file }), h.f);
    expect(h.streams.stdout()).toBe('cn-1\n');
  });

  it('--original given the receipt (a template request) rather than its record says what it takes', async () => {
    const h = await shop({ record: false });
    const file = join(h.stateDir, 'groceries.json');
    await writeFile(file, JSON.stringify(groceries()));
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1]]), keys.current.publicKey, { status: 'ACCEPTED' })]);
    const error = (await issue(opts('req-1', { original: file }), h.f).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i) => i.path)).toContain('templateRequest');
    expect(error.hint).toBe('--original takes the receipt record `svc receipt send` kept: its element of `svc receipt list --json` on the machine that issued it');
    expect(h.sent).toEqual([]);
  });
});

describe('credit-note issue: refused before anything is submitted', () => {
  async function refused(
    plaintext: unknown,
    setup: (h: Harness) => void | Promise<void> = () => {},
    more: Partial<IssueOptions> = {},
    item: Partial<QueueItem> = {},
  ): Promise<{ error: ValidationError; h: Harness }> {
    const h = await shop();
    await setup(h);
    replyQueue(h, [queueItem('req-1', plaintext, keys.current.publicKey, item)]);
    const error = await issue(opts('req-1', more), h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).exitCode).toBe(ExitCode.usage);
    expect((error as ValidationError).message).toMatch(/^return request req-1 is invalid:\n/);
    // Only the queue was read: no template, no resolve, no submission.
    expect(h.sent).toEqual([]);
    expect(await loadCreditNotes(h.f, 'sr-1')).toEqual([]);
    return { error: error as ValidationError, h };
  }

  it('an over-return across two credit notes', async () => {
    const h = await shop();
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1]]), keys.current.publicKey)]);
    replyIssue(h);
    await issue(opts('req-1'), h.f);
    const sentBefore = h.sent.length;

    replyQueue(h, [queueItem('req-2', returnRequest([[WATER, 1], [MILK, 2]]), keys.current.publicKey)]);
    const error = (await issue(opts('req-2'), h.f).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([
      {
        path: `lineItems.1 (productId ${MILK})`,
        message: 'quantity 2 is more than the 1 that can still be returned (bought 2; 1 already credited by CN-R-2025-000871-1)',
      },
    ]);
    expect(error.message).toContain(`  lineItems.1 (productId ${MILK}): quantity 2 is more than the 1`);
    expect(h.sent).toHaveLength(sentBefore);
    expect(await loadCreditNotes(h.f, 'sr-1')).toHaveLength(1);
  });

  it('an unknown product', async () => {
    const { error } = await refused(returnRequest([[MILK, 1], ['CANDY-1', 1]]));
    expect(error.issues).toEqual([{ path: 'lineItems.1 (productId CANDY-1)', message: 'is not a product of receipt R-2025-000871' }]);
    // PENDING: the milk, which passes on its own, can be credited in part (accepted in part and completed); the record is right, so it is not named.
    expect(error.hint).toBe(
      `nothing was submitted; credit only what can still be returned with \`svc credit-note issue req-1 --item ${MILK}:1 --complete\` (accepted in part, then completed), or reject it with \`svc credit-note reject req-1\``,
    );
  });

  it('an accepted request, which can no longer be rejected: the hint says what is left, a part only when one passes', async () => {
    for (const status of ['ACCEPTED', 'PARTIALLY_ACCEPTED']) {
      const h = await shop();
      replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1], ['CANDY-1', 1]]), keys.current.publicKey, { status })]);
      const more = status === 'PARTIALLY_ACCEPTED' ? { item: ['CANDY-1:1'] } : {};
      const error = (await issue(opts('req-1', more), h.f).catch((e: unknown) => e)) as ValidationError;
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.hint).not.toContain('svc credit-note reject');
      // The milk would pass on its own, and the hint names it as --item takes it; with only the candy named (--item), nothing passes.
      const part = status === 'ACCEPTED' ? `credit only what can still be returned with \`svc credit-note issue req-1 --item ${MILK}:1\`, ` : '';
      expect(error.hint).toBe(
        `nothing was submitted; the request is ${status}, so it can no longer be rejected: ${part}` +
          'settle it another way and run `svc credit-note complete req-1 --credited-elsewhere`',
      );
      expect(h.sent).toEqual([]);
    }
  });

  it('a return asked for after the 30-day window, by the clock', async () => {
    const asked = new Date(NOW + 31 * 86_400_000).toISOString();
    const { error } = await refused(returnRequest([[MILK, 1]]), (h) => (h.f.clock as ReturnType<typeof fixedClock>).advance(31 * 86_400_000), {}, { createdAt: asked });
    expect(error.issues).toEqual([{ path: 'receipt', message: expect.stringMatching(new RegExp(`^asked for ${asked.replace(/\./g, '\\.')}, after the return window of 30 days ended 2025-04-13T16:42:05\\.000Z`)) }]);
  });

  it('BANK_TRANSFER without an IBAN', async () => {
    const { error } = await refused(returnRequest([[MILK, 1]], { refundPreference: 'BANK_TRANSFER', refundBankAccount: { accountHolder: 'Alice Example' } }));
    expect(error.issues).toEqual([{ path: 'refundBankAccount.iban', message: 'is required for a BANK_TRANSFER refund' }]);
  });

  it('BANK_TRANSFER without any account (schema)', async () => {
    const { error } = await refused(returnRequest([[MILK, 1]], { refundPreference: 'BANK_TRANSFER' }));
    expect(error.issues).toEqual([{ path: 'refundBankAccount', message: 'is required when refundPreference is BANK_TRANSFER' }]);
  });

  it('BANK_TRANSFER with an IBAN whose check digits are wrong, masked in the message', async () => {
    const { error, h } = await refused(
      returnRequest([[MILK, 1]], { refundPreference: 'BANK_TRANSFER', refundBankAccount: { iban: 'DE89370400440532013001' } }),
    );
    expect(error.issues).toEqual([{ path: 'refundBankAccount.iban', message: '•••• 3001 is not a valid IBAN: it has check digits that do not match (ISO 13616 MOD 97)' }]);
    expect(error.message + h.output()).not.toContain('DE89370400440532013001');
  });

  it('a bank account with another refund preference (schema)', async () => {
    const { error } = await refused(returnRequest([[MILK, 1]], { refundPreference: 'STORE_CREDIT', refundBankAccount: { iban: 'DE89370400440532013000' } }));
    expect(error.issues).toEqual([
      { path: 'refundBankAccount', message: 'must be absent when refundPreference is STORE_CREDIT; it is only for BANK_TRANSFER' },
    ]);
  });

  it('a customer note of 1,001 characters (schema)', async () => {
    const { error } = await refused(returnRequest([[MILK, 1]], { customerNote: 'x'.repeat(1001) }));
    expect(error.issues).toEqual([{ path: 'customerNote', message: 'must be at most 1000 characters' }]);
  });

  it('a receipt this profile has no record of, or whose document number differs', async () => {
    const h = await shop({ record: false });
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1]]), keys.current.publicKey)]);
    const error = (await issue(opts('req-1'), h.f).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([
      { path: 'serviceReceiptId', message: "receipt sr-1 is not known as one of this merchant's receipts: this profile has no record of it" },
    ]);
    expect(error.hint).toMatch(/--original FILE/);
    const { error: other } = await refused(returnRequest([[MILK, 1]], { receiptId: 'R-1999-000001' }));
    expect(other.issues.map((i) => i.path)).toEqual(['receiptId']);
  });
});

describe('credit-note issue: other refusals', () => {
  it('asks for confirmation, which --no-input without --yes cannot give', async () => {
    const h = await shop();
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1]]), keys.current.publicKey)]);
    const error = await issue({ requestId: 'req-1' }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).hint).toBe('pass --yes');
    expect(h.sent).toEqual([]);
  });

  it('a request that is closed, or already credited, exits 7', async () => {
    const h = await shop();
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1]]), keys.current.publicKey, { status: 'CANCELLED' })]);
    const cancelled = await issue(opts('req-1'), h.f).catch((e: unknown) => e);
    expect(cancelled).toBeInstanceOf(RequestStateError);
    expect((cancelled as RequestStateError).message).toBe('return request req-1 is CANCELLED: there is nothing to credit');

    replyQueue(h, [queueItem('req-2', returnRequest([[MILK, 1]]), keys.current.publicKey)]);
    replyIssue(h);
    await issue(opts('req-2'), h.f);
    replyQueue(h, [queueItem('req-2', returnRequest([[MILK, 1]]), keys.current.publicKey, { status: 'ACCEPTED' })]);
    const again = await issue(opts('req-2'), h.f).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(RequestStateError);
    expect((again as RequestStateError).exitCode).toBe(ExitCode.conflict);
    expect((again as RequestStateError).message).toBe('return request req-2 was already credited by CN-R-2025-000871-1 (cn-1)');
    expect((again as RequestStateError).hint).toBe('mark it done with `svc credit-note complete req-2`');

    // Still PENDING (issued without --complete): COMPLETED is not a move from PENDING; issue --complete accepts it as it was credited, then completes it.
    replyQueue(h, [queueItem('req-2', returnRequest([[MILK, 1]]), keys.current.publicKey)]);
    const pending = (await issue(opts('req-2'), h.f).catch((e: unknown) => e)) as RequestStateError;
    expect(pending).toBeInstanceOf(RequestStateError);
    expect(pending.hint).toBe(
      'mark it done with `svc credit-note issue req-2 --complete`: it issues nothing again, accepts the request as it was credited (whole or in part) and completes it',
    );
  });
});

describe('credit-note issue: checked again once the receipt is locked', () => {
  /** What another svc process records against sr-1 while this one waits for the merchant's answer. */
  function creditedMeanwhile(productId: string, originalLine: number, quantity: number): CreditNoteRecord {
    return {
      serviceReceiptId: 'cn-other',
      requestId: 'req-other',
      documentNumber: 'CN-OTHER',
      issuedAt: new Date(NOW).toISOString(),
      lines: [{ originalLine, productId, quantity }],
      templateRequest: { documentNumber: 'CN-OTHER', currency: 'EUR', invoiceSubtotal: 1.19, totalAmount: 1.28 },
      templateHash: 'a'.repeat(64),
      finalHash: 'b'.repeat(64),
      matchId: 'match-other',
      recipients: [{ recipientId: 'device-1', receiverType: 'DEVICE', keyId: 'k' }],
      submission: { serviceReceiptId: 'cn-other', parentServiceReceiptId: 'sr-1', templateHash: 'a'.repeat(64), createdAt: new Date(NOW).toISOString() },
    };
  }

  /** A merchant who says yes, while another process records `meanwhile` in the ledger. The request is listed again after the answer (its status read back), as it was. */
  function confirmWhile(h: Harness, meanwhile: CreditNoteRecord, listed: QueueItem): void {
    replyQueue(h, [listed]);
    const confirm = async () => {
      await (await h.f.ledger()).importRecords({ receipts: [], creditNotes: [{ parent: 'sr-1', record: meanwhile }] });
      return true;
    };
    h.f.prompter = () => ({ confirm }) as unknown as Prompter;
  }

  it('an over-return made by a credit note recorded during the confirmation is refused (exit 2), nothing submitted', async () => {
    const h = await shop();
    const listed = queueItem('req-1', returnRequest([[MILK, 2]]), keys.current.publicKey);
    replyQueue(h, [listed]);
    confirmWhile(h, creditedMeanwhile(MILK, 0, 1), listed);
    const error = (await issue({ requestId: 'req-1' }, h.f).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.issues).toEqual([
      { path: `lineItems.0 (productId ${MILK})`, message: 'quantity 2 is more than the 1 that can still be returned (bought 2; 1 already credited by CN-OTHER)' },
    ]);
    expect(h.sent).toEqual([]);
    expect((await loadCreditNotes(h.f, 'sr-1')).map((n) => n.serviceReceiptId)).toEqual(['cn-other']);
  });

  it('a credit note that changed since the merchant confirmed it is not issued (exit 7)', async () => {
    const h = await shop();
    const listed = queueItem('req-1', returnRequest([[MILK, 1]]), keys.current.publicKey);
    replyQueue(h, [listed]);
    confirmWhile(h, creditedMeanwhile(MILK, 0, 1), listed);
    const error = (await issue({ requestId: 'req-1' }, h.f).catch((e: unknown) => e)) as RequestStateError;
    expect(error).toBeInstanceOf(RequestStateError);
    expect(error.exitCode).toBe(ExitCode.conflict);
    expect(error.message).toBe('receipt sr-1 was credited by CN-OTHER after this credit note was shown, which changes it');
    expect(error.hint).toBe('nothing was submitted; run `svc credit-note issue req-1` again to see the new figures');
    expect(h.sent).toEqual([]);
  });
});

describe('credit-note issue --item: a part of the request', () => {
  it('credits only the named products and quantities, prorated, and records only those', async () => {
    const h = await shop({ json: true });
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 2], [WATER, 6]]), keys.current.publicKey, { status: 'PARTIALLY_ACCEPTED' })]);
    replyIssue(h);
    await issue(opts('req-1', { item: [`${WATER}:2`] }), h.f);
    const template = h.sent[0]!.body as CreditNoteTemplateRequest;
    // Water 2 of 6: 1.18 + tax 0.2233 → 0.22.
    expect(template.products.map((p) => [p.identifier, p.quantity, p.subtotal, p.total])).toEqual([[WATER, 2, 1.18, 1.4]]);
    expect(template).toMatchObject({ invoiceSubtotal: 1.18, totalTaxAmount: 0.22, totalAmount: 1.4 });
    expect(JSON.parse(h.streams.stdout())).toMatchObject({ totalAmount: 1.4, lines: [{ productId: WATER, quantity: 2, subtotal: 1.18, total: 1.4 }] });
    const [recorded] = await loadCreditNotes(h.f, 'sr-1');
    expect(recorded?.lines).toEqual([{ originalLine: 5, productId: WATER, quantity: 2 }]);
  });

  it('the question names what is credited (the part, its amount), the request by ID, and what it asks beyond; declined, nothing is sent', async () => {
    const h = await shop();
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 2], [WATER, 6]]), keys.current.publicKey, { status: 'PARTIALLY_ACCEPTED' })]);
    const asked: string[] = [];
    h.f.prompter = () => ({ confirm: async (q: { message: string }) => (asked.push(q.message), false) }) as unknown as Prompter;
    const error = await issue({ requestId: 'req-1', item: [`${WATER}:2`], complete: true }, h.f).catch((e: unknown) => e);
    expect((error as SvcError).exitCode, String(error)).toBe(ExitCode.cancelled);
    expect(asked).toEqual([
      `Issue credit note CN-${groceries().documentNumber}-1 for 1.40 EUR (2 × Sparkling mineral water 0.75 l) from your API key's company and complete request req-1 on ${groceries().documentNumber} (it asks 2 lines, 6.76 EUR: the rest is not credited)? It cannot be moved again.`,
    ]);
    expect(h.sent).toEqual([]);
  });

  it('--complete on a PENDING request credited in part accepts it in part, then completes it', async () => {
    const h = await shop();
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 2]]), keys.current.publicKey)]);
    replyIssue(h);
    replyStatus(h, 'req-1');
    replyStatus(h, 'req-1');
    await issue(opts('req-1', { item: [`${MILK}:1`], complete: true }), h.f);
    expect(h.sent.slice(3).map((s) => s.body)).toEqual([{ status: 'PARTIALLY_ACCEPTED' }, { status: 'COMPLETED' }]);
  });

  it('a PARTIALLY_ACCEPTED request without --item is a usage error (exit 2), nothing submitted', async () => {
    const h = await shop();
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 2], [WATER, 1]]), keys.current.publicKey, { status: 'PARTIALLY_ACCEPTED' })]);
    const error = (await issue(opts('req-1'), h.f).catch((e: unknown) => e)) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toBe('return request req-1 is PARTIALLY_ACCEPTED: name the part you accepted with --item PRODUCT_ID:QTY');
    expect(error.hint).toBe(`it asks for --item ${MILK}:2 --item ${WATER}:1; keep what you accepted, lowering the quantities`);
    expect(h.sent).toEqual([]);
  });

  it('a product the request does not ask for, or more than it asks for, exits 2 naming it; nothing submitted', async () => {
    const h = await shop();
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 1], [WATER, 2]]), keys.current.publicKey, { status: 'PARTIALLY_ACCEPTED' })]);
    const error = (await issue(opts('req-1', { item: ['4009876543210:1', `${WATER}:3`] }), h.f).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.issues).toEqual([
      { path: 'productId 4009876543210', message: `is not a line of return request req-1, which asks for ${MILK}:1, ${WATER}:2` },
      { path: `productId ${WATER}`, message: 'quantity 3 is more than the 2 the request asks for' },
    ]);
    expect(h.sent).toEqual([]);
    expect(await loadCreditNotes(h.f, 'sr-1')).toEqual([]);
  });

  it('a part a colleague changes between the read and the reservation: exit 7 naming the part now, nothing reserved or sent', async () => {
    const h = await shop();
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 2], [WATER, 6]]), keys.current.publicKey, { status: 'PARTIALLY_ACCEPTED' })]);
    const ledger = await h.f.ledger();
    await ledger.keepAcceptedPart({ requestId: 'req-1', items: [{ productId: WATER, quantity: 2 }], acceptedAt: new Date(NOW).toISOString(), acceptedBy: 'a@laptop' });
    const reserve = ledger.reserveCreditNote.bind(ledger);
    ledger.reserveCreditNote = async (...args) => {
      await ledger.keepAcceptedPart({ requestId: 'req-1', items: [{ productId: WATER, quantity: 1 }], acceptedAt: new Date(NOW).toISOString(), acceptedBy: 'b@desk' });
      return reserve(...args);
    };
    const error = (await issue(opts('req-1'), h.f).catch((e: unknown) => e)) as SvcError;
    expect(error.exitCode).toBe(ExitCode.conflict);
    expect(error.message).toMatch(new RegExp(`^the accepted part of return request req-1 changed while this ran: it is now ${WATER}:1 \\(recorded .* by b@desk\\)$`));
    expect(h.sent).toEqual([]);
    expect((await ledger.credits('sr-1')).reserved).toEqual([]);
  });

  it('a PENDING request a colleague accepts in part while the whole is being issued: exit 7, nothing reserved or sent', async () => {
    const h = await shop();
    replyQueue(h, [queueItem('req-1', returnRequest([[MILK, 2], [WATER, 6]]), keys.current.publicKey)]);
    const ledger = await h.f.ledger();
    const reserve = ledger.reserveCreditNote.bind(ledger);
    ledger.reserveCreditNote = async (...args) => {
      await ledger.keepAcceptedPart({ requestId: 'req-1', items: [{ productId: WATER, quantity: 2 }], acceptedAt: new Date(NOW).toISOString(), acceptedBy: 'b@desk' });
      return reserve(...args);
    };
    const error = (await issue(opts('req-1'), h.f).catch((e: unknown) => e)) as SvcError;
    expect(error.exitCode).toBe(ExitCode.conflict);
    expect(error.message).toContain(`changed while this ran: it is now ${WATER}:2`);
    expect(h.sent).toEqual([]);
    expect((await ledger.credits('sr-1')).reserved).toEqual([]);
  });

  it('a malformed --item is refused before any request', async () => {
    const h = await shop();
    const error = await issue(opts('req-1', { item: [`${MILK}:0`] }), h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(`--item: "${MILK}:0" is not PRODUCT_ID:QTY with a positive quantity`);
    expect(tokenSourceFor).not.toHaveBeenCalled();
  });
});
