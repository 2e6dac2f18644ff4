import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as completeSlot } from '../../src/commands/complete.js';
import { run as email } from '../../src/commands/receipt/email.js';
import { run as list } from '../../src/commands/receipt/list.js';
import { run as send, type SendOptions } from '../../src/commands/receipt/send.js';
import { run as template } from '../../src/commands/receipt/template.js';
import type { CustomerDetails, ReceiptSubmission } from '../../src/contract/receipt.js';
import type { ReceiptTemplateRequest } from '../../src/contract/template.js';
import { documentHash } from '../../src/crypto/hash.js';
import { decryptJson } from '../../src/crypto/hybrid.js';
import { keyFingerprint } from '../../src/crypto/keys.js';
import { ExitCode, NotFoundError, UsageError, ValidationError } from '../../src/errors.js';
import { injectCustomer } from '../../src/receipts/document.js';
import { loadReceiptRecord } from '../../src/receipts/records.js';
import { profileDir } from '../../src/config/profile-dir.js';
import {
  ALICE,
  COMPANY_ID,
  NOW,
  aliceMatch,
  apiError,
  closeHarnesses,
  expectHeader,
  harness,
  parseArgv,
  readFixture,
  templateFor,
  type Harness,
} from './receipts-setup.js';

const tokenSourceFor = vi.hoisted(() =>
  vi.fn(async (_f: unknown, _want?: { scope?: string }) => ({ token: async () => 'tok-1', invalidate: async () => {} })),
);
vi.mock('../../src/auth/session.js', () => ({ tokenSourceFor }));

afterEach(async () => {
  tokenSourceFor.mockClear();
  await closeHarnesses();
});

const groceries = () => readFixture('receipts/groceries.json') as ReceiptTemplateRequest;
const alice = () => readFixture('customers/alice.json') as CustomerDetails;
/** docs/interface-decisions.md#idempotency-keys: derived from issuer, document type and number. */
const DERIVED_KEY = /^svc-receipt-[0-9a-f]{40}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CREATED_AT = new Date(NOW).toISOString();

/** Writes `value` as JSON into the harness's temp dir; returns the path. */
async function inputFile(h: Harness, name: string, value: unknown): Promise<string> {
  const dir = join(h.stateDir, 'in');
  await mkdir(dir, { recursive: true });
  const path = join(dir, name);
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

/** The service side of a successful send: template, resolve, then the submission. */
function replySend(h: Harness, request: ReceiptTemplateRequest, opts: { warnings?: string[]; failFirst?: boolean } = {}) {
  const document = templateFor(request, opts.warnings);
  h.reply('/receipt/template', 201, document);
  h.reply('/recipient/resolve', 200, aliceMatch());
  if (opts.failFirst) h.reply('/receipt/encrypted', 503, apiError('server_error', 'the queue is busy'));
  h.reply('/receipt/encrypted', 201, (body) => ({
    serviceReceiptId: 'sr-1',
    templateHash: (body as ReceiptSubmission).templateHash,
    createdAt: CREATED_AT,
  }));
  return document;
}

describe('argv → options', () => {
  it('maps every verb', async () => {
    expect(await parseArgv(['receipt', 'template', '--file', 'r.json'])).toEqual([{ file: 'r.json' }]);
    expect(
      await parseArgv(['receipt', 'send', '--file', '-', '--card', '4111', '--customer', 'c.json', '--store', 's-1', '--dry-run']),
    ).toEqual([{ file: '-', card: '4111', customer: 'c.json', store: 's-1', dryRun: true }]);
    expect(await parseArgv(['receipt', 'email', '--file', 'r.json', '--to', 'a@example.com'])).toEqual([{ file: 'r.json', to: 'a@example.com' }]);
    expect(await parseArgv(['receipt', 'list', '--json'])).toEqual([{}]);
  });
});

describe('invalid input is refused before anything is sent', () => {
  const broken: [string, (r: Record<string, unknown>) => void, string, RegExp][] = [
    ['a tax total that is not the sum of the taxes', (r) => (r.totalTaxAmount = 2.08), 'totalTaxAmount', /must equal the sum of taxes\[\]\.amount/],
    ['an unknown unit code', (r) => ((r.products as Record<string, unknown>[])[0]!.unitCode = 'BOX'), 'products.0.unitCode', /unknown unit code "BOX"/],
    ['no products', (r) => (r.products = []), 'products', /at least one entry/],
    ['a 256-character identifier', (r) => ((r.products as Record<string, unknown>[])[0]!.identifier = 'x'.repeat(256)), 'products.0.identifier', /at most 255 characters/],
  ];
  const verbs: [string, (file: string, h: Harness) => Promise<void>][] = [
    ['template', (file, h) => template({ file }, h.f)],
    ['send', (file, h) => send({ file, email: 'alice@example.com' }, h.f)],
    ['email', (file, h) => email({ file, to: 'alice@example.com' }, h.f)],
  ];

  for (const [verb, runVerb] of verbs) {
    it.each(broken)(`${verb}: %s`, async (_what, breakIt, path, message) => {
      const h = await harness();
      const request = groceries() as unknown as Record<string, unknown>;
      breakIt(request);
      const file = await inputFile(h, 'receipt.json', request);
      const error = await runVerb(file, h).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).exitCode).toBe(ExitCode.usage);
      expect((error as ValidationError).message).toMatch(new RegExp(`^${file} is invalid:`));
      const issue = (error as ValidationError).issues.find((i) => i.path === path);
      expect(issue?.message).toMatch(message);
      expect(h.sent).toEqual([]);
      expect(tokenSourceFor).not.toHaveBeenCalled();
    });
  }

  it('names the file, line and column of bad JSON without quoting it', async () => {
    const h = await harness();
    const file = await inputFile(h, 'receipt.json', '{\n  "documentNumber": "R-1",\n  "note": "Alice 4111111111111111",\n}\n');
    const error = await template({ file }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(`${file} is not valid JSON: trailing comma before '}' at line 4, column 1`);
  });

  it('names a missing file', async () => {
    const h = await harness();
    const file = join(h.stateDir, 'nope.json');
    await expect(template({ file }, h.f)).rejects.toSatisfy(
      (e) => e instanceof UsageError && e.message === `cannot read ${file}: no such file`,
    );
  });

  it('refuses --file - together with --customer -', async () => {
    const h = await harness();
    await expect(send({ file: '-', customer: '-', email: 'alice@example.com' }, h.f)).rejects.toBeInstanceOf(UsageError);
  });

  it('validates the customer file', async () => {
    const h = await harness();
    const file = await inputFile(h, 'receipt.json', groceries());
    const customer = await inputFile(h, 'customer.json', { email: 'not an email' });
    const error = await send({ file, customer, email: 'alice@example.com' }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: 'email', message: 'must be an email address' }]);
    expect(h.sent).toEqual([]);
  });

  it.each([
    [{}, 'give one of --email, --phone, --iban, --card'],
    [{ email: 'alice@example.com', phone: '+4915100000001' }, 'give only one of --email, --phone, --iban, --card'],
  ])('send needs exactly one identifier: %j', async (flags, message) => {
    const h = await harness();
    const file = await inputFile(h, 'receipt.json', groceries());
    await expect(send({ file, ...flags }, h.f)).rejects.toSatisfy((e) => e instanceof UsageError && e.message === message);
    expect(h.sent).toEqual([]);
  });
});

describe('receipt template', () => {
  it('sends the request and prints the document and its templateHash', async () => {
    const h = await harness();
    const request = groceries();
    const document = templateFor(request, ['totalAmount is off by 0.01 EUR']);
    h.reply('/receipt/template', 201, document);
    await template({ file: await inputFile(h, 'receipt.json', request) }, h.f);
    expect(h.sent[0]!.body).toEqual(request);
    expect(h.sent[0]!.headers.authorization).toBe('Bearer tok-1');
    expect(tokenSourceFor).toHaveBeenCalledWith(h.f, { scope: 'write_receipts' });
    const [json, hashLine] = h.streams.stdout().split(/\n(?=templateHash )/);
    expect(JSON.parse(json!)).toEqual(document);
    expect(hashLine).toBe(`templateHash ${documentHash(document)}\n`);
    expect(h.streams.stderr()).toBe('warning: totalAmount is off by 0.01 EUR\n');
  });

  it('reads standard input for - and adds templateHash to the --json document', async () => {
    const h = await harness({ json: true });
    const request = readFixture('receipts/convenience-jpy.json') as ReceiptTemplateRequest;
    const document = templateFor(request);
    h.reply('/receipt/template', 201, document);
    h.streams.input.end(JSON.stringify(request));
    await template({ file: '-' }, h.f);
    expect(h.sent[0]!.body).toEqual(request);
    expect(JSON.parse(h.streams.stdout())).toEqual({ ...document, templateHash: documentHash(document) });
  });
});

describe('receipt send', () => {
  it('encrypts the final document for every device and submits it once, whatever the retries', async () => {
    const h = await harness();
    const request = groceries();
    const document = replySend(h, request, { failFirst: true });
    const file = await inputFile(h, 'receipt.json', request);
    const customer = await inputFile(h, 'customer.json', alice());
    await send({ file, customer, email: 'alice@example.com', store: 'store-1' }, h.f);

    expect(h.sent.map((s) => s.path)).toEqual(['/receipt/template', '/recipient/resolve', '/receipt/encrypted', '/receipt/encrypted']);
    const [templateCall, resolveCall, failed, submitted] = h.sent as [typeof h.sent[0], typeof h.sent[0], typeof h.sent[0], typeof h.sent[0]];
    expect(templateCall.body).toEqual({ ...request, storeId: 'store-1' });
    expect(resolveCall.body).toEqual({ email: 'alice@example.com' });

    // One key for the invocation, reused by the client's retry of the 503.
    expect(expectHeader(submitted, 'idempotency-key')).toMatch(DERIVED_KEY);
    expect(expectHeader(failed, 'idempotency-key')).toBe(expectHeader(submitted, 'idempotency-key'));
    expect(failed.body).toEqual(submitted.body);

    const finalDoc = injectCustomer(document, alice());
    const body = submitted.body as ReceiptSubmission;
    expect(body.matchId).toBe('match-alice-1');
    expect(body.templateHash).toBe(documentHash(document));
    expect(body.encryptedReceipts).toHaveLength(3);
    body.encryptedReceipts.forEach((entry, i) => {
      const device = ALICE.devices[i]!;
      expect(Object.keys(entry).sort()).toEqual([
        'encryptedCustomerAesKey', 'encryptedCustomerDetails', 'encryptedReceipt', 'encryptedSymmetricKey',
        'finalHash', 'publicKey', 'receiverType', 'recipientId', 'supplierPartyId',
      ]);
      expect(entry).toMatchObject({
        recipientId: device.id,
        receiverType: 'DEVICE',
        publicKey: device.publicKey,
        supplierPartyId: COMPANY_ID,
        finalHash: documentHash(finalDoc),
      });
      expect(decryptJson(entry.encryptedReceipt, entry.encryptedSymmetricKey, device.privateKeyPem)).toEqual(finalDoc);
      expect(decryptJson(entry.encryptedCustomerDetails, entry.encryptedCustomerAesKey, device.privateKeyPem)).toEqual(alice());
    });

    expect(h.streams.stdout()).toBe('sr-1\n');
    expect(h.streams.stderr()).toContain('issued to 3 devices of email alice@example.com');

    const record = await loadReceiptRecord(h.f, 'sr-1');
    expect(record).toEqual({
      version: 1,
      serviceReceiptId: 'sr-1',
      issuedAt: CREATED_AT,
      templateRequest: { ...request, storeId: 'store-1' },
      template: document,
      templateHash: documentHash(document),
      finalHash: documentHash(finalDoc),
      matchId: 'match-alice-1',
      lookup: { by: 'email', display: 'alice@example.com' },
      recipients: ALICE.devices.map((d) => ({ recipientId: d.id, receiverType: 'DEVICE', keyId: keyFingerprint(d.publicKey) })),
      customer: alice(),
      submission: { serviceReceiptId: 'sr-1', templateHash: documentHash(document), createdAt: CREATED_AT },
    });
  });

  it('prints the submission result with templateHash and the recipient count under --json', async () => {
    const h = await harness({ json: true });
    const request = groceries();
    const document = replySend(h, request, { warnings: ['totalAmount is off'] });
    await send({ file: await inputFile(h, 'receipt.json', request), email: 'alice@example.com' }, h.f);
    expect(JSON.parse(h.streams.stdout())).toEqual({
      serviceReceiptId: 'sr-1',
      templateHash: documentHash(document),
      createdAt: CREATED_AT,
      finalHash: documentHash(injectCustomer(document, {})),
      recipients: 3,
    });
    expect(h.streams.stderr()).toContain('warning: totalAmount is off');
  });

  it('sends an empty customer party without --customer', async () => {
    const h = await harness();
    const document = replySend(h, groceries());
    await send({ file: await inputFile(h, 'receipt.json', groceries()), email: 'alice@example.com' }, h.f);
    const entry = (h.sent[2]!.body as ReceiptSubmission).encryptedReceipts[0]!;
    const device = ALICE.devices[0]!;
    expect(decryptJson(entry.encryptedReceipt, entry.encryptedSymmetricKey, device.privateKeyPem)).toEqual(document);
    expect(decryptJson(entry.encryptedCustomerDetails, entry.encryptedCustomerAesKey, device.privateKeyPem)).toEqual({});
  });

  it('never prints or stores a card number in full, even with --debug', async () => {
    const h = await harness({ debug: true });
    replySend(h, groceries());
    await send({ file: await inputFile(h, 'receipt.json', groceries()), card: '4111 1111 1111 1111' }, h.f);
    expect(h.sent[1]!.body).toEqual({ cardNumber: ALICE.cardNumber });
    expect(h.streams.stderr()).toContain('issued to 3 devices of card •••• 1111');
    expect(h.output()).not.toContain(ALICE.cardNumber);
    const stored = await (await h.f.ledger()).receipt('sr-1');
    expect(stored?.lookup).toEqual({ by: 'card', display: '•••• 1111' });
    // Nowhere in the ledger's files either (the record, the intent, the write-ahead log).
    const dir = profileDir(h.f);
    for (const name of await readdir(dir)) expect((await readFile(join(dir, name))).toString('latin1')).not.toContain(ALICE.cardNumber);
  });

  it('never prints an IBAN in full when nothing matches', async () => {
    const h = await harness();
    h.reply('/receipt/template', 201, templateFor(groceries()));
    h.reply('/recipient/resolve', 404, apiError('not_found', 'no recipient matches these details'));
    const error = await send({ file: await inputFile(h, 'receipt.json', groceries()), iban: ALICE.iban }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).message).toBe('no recipient matches that IBAN');
    expect(h.output()).not.toContain(ALICE.iban);
  });

  it('leaves out devices with a key algorithm it cannot encrypt for', async () => {
    const h = await harness();
    const match = aliceMatch();
    match.recipients[1]!.keyAlgorithm = 'ML_KEM_768';
    h.reply('/receipt/template', 201, templateFor(groceries()));
    h.reply('/recipient/resolve', 200, match);
    h.reply('/receipt/encrypted', 201, { serviceReceiptId: 'sr-1', templateHash: documentHash(templateFor(groceries())), createdAt: CREATED_AT });
    await send({ file: await inputFile(h, 'receipt.json', groceries()), email: 'alice@example.com' }, h.f);
    const entries = (h.sent[2]!.body as ReceiptSubmission).encryptedReceipts;
    expect(entries.map((e) => e.recipientId)).toEqual([ALICE.devices[0]!.id, ALICE.devices[2]!.id]);
    expect(h.streams.stderr()).toContain(`skipping recipient ${ALICE.devices[1]!.id}: key algorithm ML_KEM_768 is not supported`);
  });

  it('submits nothing when no device can receive it', async () => {
    const h = await harness();
    h.reply('/receipt/template', 201, templateFor(groceries()));
    h.reply('/recipient/resolve', 200, { ...aliceMatch(), recipients: [] });
    const error = await send({ file: await inputFile(h, 'receipt.json', groceries()), email: 'alice@example.com' }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(h.sent.map((s) => s.path)).not.toContain('/receipt/encrypted');
  });

  describe('--dry-run', () => {
    it('does everything but the submission and prints counts and hashes only', async () => {
      const h = await harness();
      const document = templateFor(groceries());
      h.reply('/receipt/template', 201, document);
      h.reply('/recipient/resolve', 200, aliceMatch());
      await send({ file: await inputFile(h, 'receipt.json', groceries()), email: 'alice@example.com', customer: await inputFile(h, 'c.json', alice()), dryRun: true }, h.f);
      expect(h.sent.map((s) => s.path)).toEqual(['/receipt/template', '/recipient/resolve']);
      const out = h.streams.stdout();
      expect(out).toMatch(/^recipients +3$/m);
      expect(out).toContain(documentHash(document));
      expect(out).toContain(documentHash(injectCustomer(document, alice())));
      expect(out).not.toContain('Alice Example');
      expect(out.length).toBeLessThan(1000);
      expect(h.streams.stderr()).toContain('dry run: nothing was submitted');
      await list({}, h.f);
      expect(h.streams.stderr()).toContain("no receipts in this machine's ledger yet");
    });

    it('prints the request that would be sent under --json', async () => {
      const h = await harness({ json: true });
      const document = templateFor(groceries());
      h.reply('/receipt/template', 201, document);
      h.reply('/recipient/resolve', 200, aliceMatch());
      await send({ file: await inputFile(h, 'receipt.json', groceries()), email: 'alice@example.com', dryRun: true } satisfies SendOptions, h.f);
      const out = JSON.parse(h.streams.stdout()) as { dryRun: boolean; recipients: number; templateHash: string; request: ReceiptSubmission };
      expect(out).toMatchObject({ dryRun: true, recipients: 3, templateHash: documentHash(document) });
      expect(out.request.encryptedReceipts).toHaveLength(3);
      expect(out.request.matchId).toBe('match-alice-1');
    });
  });
});

describe('receipt list', () => {
  async function issueOne(h: Harness) {
    replySend(h, groceries());
    await send({ file: await inputFile(h, 'receipt.json', groceries()), email: 'alice@example.com' }, h.f);
  }

  const groceriesIssueDate = () => (readFixture('receipts/groceries.json') as { issueDate: string }).issueDate;

  it('completion of a receipt (--receipt, SERVICE_RECEIPT_ID) offers its document number and its ID, each describing the other', async () => {
    const h = await harness();
    await issueOne(h);
    const before = h.streams.stdout().length;
    await completeSlot({ words: ['credit-note poll', '--receipt'] }, h.f);
    await completeSlot({ words: ['sandbox trigger return-request', 'service-receipt-id'] }, h.f);
    const offered = h.streams.stdout().slice(before).split('\n').filter(Boolean);
    expect(offered).toEqual(['R-2025-000871\tsr-1', 'sr-1\tR-2025-000871', 'R-2025-000871\tsr-1', 'sr-1\tR-2025-000871']);
  });

  it('prints one plain row per record when piped', async () => {
    const h = await harness();
    await issueOne(h);
    await list({}, h.f);
    // ISSUED is the receipt's own issue date, not when it was submitted.
    expect(h.streams.stdout()).toBe(`sr-1\nsr-1\tR-2025-000871\t${groceriesIssueDate()}\t20.51 EUR\t3\n`);
  });

  it('on a terminal, ISSUED is the issue date in the local zone of TZ, to the minute', async () => {
    const h = await harness({ tty: true, env: { TZ: 'Asia/Tokyo' } });
    await issueOne(h);
    await list({}, h.f);
    const issued = new Date(Date.parse(groceriesIssueDate()) + 9 * 3_600_000).toISOString();
    expect(h.streams.stdout()).toContain(`${issued.slice(0, 10)} ${issued.slice(11, 16)} GMT+9`);
  });

  it('draws a table on a terminal', async () => {
    const h = await harness({ tty: true });
    await issueOne(h);
    await list({}, h.f);
    for (const header of ['SERVICE RECEIPT ID', 'DOCUMENT', 'ISSUED', 'TOTAL', 'RECIPIENTS']) expect(h.streams.stdout()).toContain(header);
    expect(h.streams.stdout()).toContain('20.51 EUR');
  });

  it('prints the records as a JSON array with --json', async () => {
    const h = await harness({ json: true });
    await issueOne(h);
    const before = h.streams.stdout().length;
    await list({}, h.f);
    const records = JSON.parse(h.streams.stdout().slice(before)) as { serviceReceiptId: string }[];
    expect(records.map((r) => r.serviceReceiptId)).toEqual(['sr-1']);
  });
});

describe('receipt email', () => {
  it('sends the template to the address and prints the message ID', async () => {
    const h = await harness();
    const document = templateFor(groceries());
    h.reply('/receipt/template', 201, document);
    h.reply('/receipt/email', 202, { messageId: 'msg-1', status: 'QUEUED' });
    await email({ file: await inputFile(h, 'receipt.json', groceries()), to: 'alice@example.com' }, h.f);
    const call = h.sent[1]!;
    expect(call.path).toBe('/receipt/email');
    expect(call.body).toEqual({ to: 'alice@example.com', template: document });
    expect(expectHeader(call, 'idempotency-key')).toMatch(UUID);
    expect(h.streams.stdout()).toBe('msg-1\n');
  });

  it('prints the response with --json', async () => {
    const h = await harness({ json: true });
    h.reply('/receipt/template', 201, templateFor(groceries()));
    h.reply('/receipt/email', 202, { messageId: 'msg-1', status: 'QUEUED' });
    await email({ file: await inputFile(h, 'receipt.json', groceries()), to: 'alice@example.com' }, h.f);
    expect(JSON.parse(h.streams.stdout())).toEqual({ messageId: 'msg-1', status: 'QUEUED' });
  });

  it('says once on stderr when the service reports characters printed as \uFFFD or texts cut short, and not when it reports none or says nothing', async () => {
    const answers: [object, string | undefined][] = [
      [{ replacedCharacters: 2, truncatedTexts: 1 }, 'note: the PDF cannot show 2 characters (printed as \uFFFD or left out) and cuts 1 text short (see `svc sandbox outbox`)\n'],
      [{ replacedCharacters: 1, truncatedTexts: 0 }, 'note: the PDF cannot show 1 character (printed as \uFFFD or left out) (see `svc sandbox outbox`)\n'],
      [{ replacedCharacters: 0, truncatedTexts: 3 }, 'note: the PDF cuts 3 texts short (see `svc sandbox outbox`)\n'],
      [{ replacedCharacters: 0, truncatedTexts: 0 }, undefined],
      [{}, undefined],
    ];
    for (const [reported, expected] of answers) {
      for (const json of [false, true]) {
        const h = await harness({ json });
        h.reply('/receipt/template', 201, templateFor(groceries()));
        h.reply('/receipt/email', 202, { messageId: 'msg-1', status: 'QUEUED', ...reported });
        await email({ file: await inputFile(h, 'receipt.json', groceries()), to: 'alice@example.com' }, h.f);
        const notes = h.streams.stderr().split('\n').filter((line) => line.startsWith('note: the PDF'));
        expect(notes.map((line) => `${line}\n`)).toEqual(expected === undefined ? [] : [expected]);
      }
    }
  });

  it('checks the address before anything is sent', async () => {
    const h = await harness();
    const error = await email({ file: await inputFile(h, 'receipt.json', groceries()), to: 'alice' }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe('--to is invalid:\n  to: must be an email address');
    expect(h.sent).toEqual([]);
  });
});
