// Issue 4 end to end on the built binary: a receipt sent to a customer with three devices
// reaches all three, and what each device decrypts (with the fixture's private keys and an
// independent implementation of docs/interface-decisions.md#hybrid-encryption) is the template plus the customer party.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, startSandbox, tempDirs, type SandboxProcess, type SvcHome } from './helpers.js';
import { fixtureWithOwnRedirect, loginAutoApproved, type OAuthFixture } from './oauth-fixture.js';
import { decrypt, devicePrivateKeys } from './oracle.js';
import { requireTools } from './require-tools.js';

const dirs = tempDirs();
let sandbox: SandboxProcess;
let fixture: OAuthFixture;
let home: SvcHome;
let env: Record<string, string>;
const receiptFile = join(repoRoot, 'fixtures', 'receipts', 'groceries.json');
const customerFile = join(repoRoot, 'fixtures', 'customers', 'alice.json');

beforeAll(async () => {
  fixture = await fixtureWithOwnRedirect(dirs);
  sandbox = await startSandbox(['--fixture', fixture.path, '--auto-approve']);
  home = await makeSvcHome(dirs);
  env = { SVC_BASE_URL: sandbox.url };
  const { result } = await loginAutoApproved(home, sandbox.url, fixture);
  expect(result.exitCode, result.stderr).toBe(0);
});
afterAll(async () => {
  await sandbox?.stop();
  await dirs.cleanup();
});

interface Delivery {
  serviceReceiptId: string;
  recipientId: string;
  status: string;
  hashMatches?: boolean;
  entry: Record<string, string>;
}

describe('receipt send to a customer with three devices', () => {
  it('delivers to every device, and each decrypts the template with the customer party', async () => {
    const sent = await runSvc(['receipt', 'send', '--file', receiptFile, '--email', 'alice@example.com', '--customer', customerFile, '--json'], { home, env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    const { serviceReceiptId } = JSON.parse(sent.stdout) as { serviceReceiptId: string };

    const listed = await runSvc(['sandbox', 'deliveries', serviceReceiptId, '--json'], { home, env });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const deliveries = JSON.parse(listed.stdout) as Delivery[];
    expect(deliveries.map((d) => [d.status, d.hashMatches])).toEqual([
      ['DELIVERED', true],
      ['DELIVERED', true],
      ['DELIVERED', true],
    ]);

    const records = JSON.parse((await runSvc(['receipt', 'list', '--json'], { home, env })).stdout) as { serviceReceiptId: string; template: Record<string, unknown> }[];
    const record = records.find((r) => r.serviceReceiptId === serviceReceiptId);
    expect(record).toBeDefined();
    const customer = JSON.parse(await readFile(customerFile, 'utf8')) as { name: string; email: string; phone: string; address: string };
    const expected = {
      ...record?.template,
      accountingCustomerParty: {
        party: {
          partyName: [{ name: customer.name }],
          contact: { electronicMail: customer.email, telephone: customer.phone },
          postalAddress: { addressLine: [{ line: customer.address }] },
        },
      },
    };

    const devices = await devicePrivateKeys(fixture.path);
    const wrappedKeys = new Set<string>();
    for (const d of deliveries) {
      const pem = devices.get(d.recipientId);
      expect(pem, d.recipientId).toBeDefined();
      const entry = d.entry;
      expect(decrypt(entry.encryptedReceipt ?? '', entry.encryptedSymmetricKey ?? '', pem ?? '')).toEqual(expected);
      expect(decrypt(entry.encryptedCustomerDetails ?? '', entry.encryptedCustomerAesKey ?? '', pem ?? '')).toEqual(customer);
      wrappedKeys.add(entry.encryptedSymmetricKey ?? '');
    }
    expect(wrappedKeys.size).toBe(3); // a fresh content key per device
  });

  it('emails the receipt as a PDF whose text has the document number, every product and the total', async (ctx) => {
    const skip = requireTools(['pdftotext']);
    if (skip) ctx.skip(skip);
    const sent = await runSvc(['receipt', 'email', '--file', receiptFile, '--to', 'alice@example.com', '--json'], { home, env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    const { messageId } = JSON.parse(sent.stdout) as { messageId: string };
    const pdf = Buffer.from(await (await fetch(`${sandbox.url}/sandbox/outbox/${messageId}.pdf`)).arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const { stdout: text } = await execa('pdftotext', ['-layout', '-', '-'], { input: pdf });
    const request = JSON.parse(await readFile(receiptFile, 'utf8')) as { documentNumber: string; totalAmount: number; products: { name: string }[] };
    expect(text).toContain(request.documentNumber);
    for (const product of request.products) expect(text).toContain(product.name);
    expect(text).toContain(request.totalAmount.toFixed(2));
  });
});

describe('receipt email of what the PDF cannot show as sent', () => {
  it('says so once on stderr, and the outbox row counts the characters replaced and the texts cut', async () => {
    const request = JSON.parse(await readFile(receiptFile, 'utf8')) as { products: { name: string }[] };
    // Two characters no font has a glyph for (private use), then a name past the 2,000 characters drawn.
    request.products[0]!.name = `\u{10FFFD}\u{10FFFC} ${'\u0416'.repeat(5000)}`;
    const file = join(await dirs.make('svc-email-'), 'receipt.json');
    await writeFile(file, JSON.stringify(request));
    const sent = await runSvc(['receipt', 'email', '--file', file, '--to', 'alice@example.com'], { home, env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    const notes = sent.stderr.split('\n').filter((line) => line.startsWith('note: the PDF'));
    expect(notes).toEqual(['note: the PDF cannot show 2 characters (printed as \uFFFD or left out) and cuts 1 text short (see `svc sandbox outbox`)']);
    const listed = await runSvc(['sandbox', 'outbox'], { home, env });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${sent.stdout.trim()}\\t.*\\t2\\t1$`, 'm'));
  });
});

describe('bad input is refused before anything is sent', () => {
  const base = async () => JSON.parse(await readFile(receiptFile, 'utf8')) as Record<string, unknown> & { products: Record<string, unknown>[] };
  const cases: [string, (r: Awaited<ReturnType<typeof base>>) => void, RegExp][] = [
    ['a tax sum mismatch', (r) => void (r.totalTaxAmount = 99.99), /totalTaxAmount/],
    ['an unknown unit code', (r) => void ((r.products[0] as Record<string, unknown>).unitCode = 'XYZ'), /products\.0\.unitCode/],
    ['no products', (r) => void (r.products = []), /products/],
    ['a 256-character identifier', (r) => void ((r.products[0] as Record<string, unknown>).identifier = 'x'.repeat(256)), /products\.0\.identifier/],
  ];
  it.each(cases)('%s: exit 2, the message names the field, no request made', async (_name, mutate, field) => {
    const request = await base();
    mutate(request);
    const file = join(await dirs.make('svc-bad-'), 'receipt.json');
    await writeFile(file, JSON.stringify(request));
    const result = await runSvc(['receipt', 'send', '--file', file, '--email', 'alice@example.com', '--debug'], { home, env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(field);
    expect(result.stderr).not.toMatch(/^> (GET|POST)/m);
    expect(result.stdout).toBe('');
  });
});
