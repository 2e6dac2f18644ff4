// Cost per receipt of what `receipt send` does once it has the template and the devices --
// the final document with the customer party (its canonical bytes and finalHash) and
// `encryptForRecipients` -- for 1, 3 and 10 devices, against the raw RSA-OAEP wraps and
// AES-256-GCM seals it cannot avoid (two of each per device), measured in the same run.
// The template's own canonical text is made where its templateHash is computed (the
// template step), as in the command, so it is outside the measured work. The final
// document is timed on its own too, because it is most of the overhead with few devices.
// Both are interleaved, alternating which goes first, so that a noisy neighbour or a CPU
// frequency change hits both alike; medians, so one slow outlier does not move the result. src/receipts/encrypt.ts is bundled on the fly with esbuild, so the
// benchmark measures the current sources without a build.
import { constants, createCipheriv, generateKeyPairSync, randomBytes, publicEncrypt, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const rounds = Number(process.env.BENCH_RUNS ?? 300);
if (!Number.isInteger(rounds) || rounds < 10) {
  console.error(`BENCH_RUNS must be a whole number of at least 10 (got ${process.env.BENCH_RUNS})`);
  process.exit(2);
}
const TARGET_PERCENT = 20;
const DEVICE_COUNTS = [1, 3, 10];

const { canonicalTemplate, encryptForRecipients, finalDocument, injectCustomer } = await loadSources();

const request = JSON.parse(readFileSync(join(root, 'fixtures/receipts/groceries.json'), 'utf8'));
const customer = JSON.parse(readFileSync(join(root, 'fixtures/customers/alice.json'), 'utf8'));
const template = templateOf(request);
const finalDoc = injectCustomer(template, customer);
const prepared = canonicalTemplate(template);

const devices = Array.from({ length: Math.max(...DEVICE_COUNTS) }, (_, i) => {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return { recipientId: `device-${i + 1}`, receiverType: 'DEVICE', publicKey: der.toString('base64') };
});

// What no implementation can skip: per device, a fresh key, an AES-GCM seal and an OAEP wrap
// for the document and for the customer details, Base64 as the contract sends them.
const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' };
const documentBytes = Buffer.from(JSON.stringify(finalDoc), 'utf8');
const customerBytes = Buffer.from(JSON.stringify(customer), 'utf8');
const parsedKeys = devices.map((d) => createPublicKey({ key: Buffer.from(d.publicKey, 'base64'), format: 'der', type: 'spki' }));

function seal(plaintext, key) {
  const aesKey = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey, iv, { authTagLength: 16 });
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const ciphertext = Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
  return [ciphertext, publicEncrypt({ key, ...OAEP }, aesKey).toString('base64')];
}

function rawCrypto(count) {
  const out = [];
  for (let i = 0; i < count; i++) out.push(seal(documentBytes, parsedKeys[i]), seal(customerBytes, parsedKeys[i]));
  return out;
}

function full(count) {
  return encryptForRecipients(finalDocument(prepared, customer), customer, devices.slice(0, count), 'c0000000-0000-4000-8000-000000000001');
}

function timeMs(work) {
  const start = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

console.log(`receipt-encrypt: ${rounds} interleaved rounds per device count, Node ${process.version}, ${documentBytes.length}-byte document`);
let missed = false;
for (const count of DEVICE_COUNTS) {
  // Warm the JIT and the key caches before measuring.
  for (let i = 0; i < 20; i++) {
    full(count);
    rawCrypto(count);
  }
  const fullMs = [];
  const rawMs = [];
  const hashMs = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      fullMs.push(timeMs(() => full(count)));
      rawMs.push(timeMs(() => rawCrypto(count)));
    } else {
      rawMs.push(timeMs(() => rawCrypto(count)));
      fullMs.push(timeMs(() => full(count)));
    }
    hashMs.push(timeMs(() => finalDocument(prepared, customer)));
  }
  const f = median(fullMs);
  const r = median(rawMs);
  const h = median(hashMs);
  const overhead = ((f - r) / r) * 100;
  const ok = overhead < TARGET_PERCENT;
  missed ||= !ok;
  console.log(
    `  ${String(count).padStart(2)} devices: final document + encryptForRecipients ${f.toFixed(3)} ms, raw crypto ${r.toFixed(3)} ms, ` +
      `final document + finalHash ${h.toFixed(3)} ms (${((h / r) * 100).toFixed(1)}% of raw) per receipt`,
  );
  console.log(
    `receipt-encrypt ${count} devices: overhead ${overhead.toFixed(1)}% over raw crypto (target < ${TARGET_PERCENT}%) ${ok ? 'ok' : 'MISSED'}`,
  );
}
// A benchmark reports; it does not fail the build. BENCH_STRICT=1 makes a miss an error (CI gate).
if (missed && process.env.BENCH_STRICT === '1') process.exitCode = 1;

async function loadSources() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  try {
    const outfile = join(dir, 'receipts.mjs');
    await build({
      stdin: {
        contents: [
          "export { encryptForRecipients } from './src/receipts/encrypt.ts';",
          "export { injectCustomer } from './src/receipts/document.ts';",
          "export { canonicalTemplate, finalDocument } from './src/receipts/final-document.ts';",
        ].join('\n'),
        resolveDir: root,
        loader: 'ts',
      },
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.17',
      logLevel: 'warning',
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A receipt template shaped like the service's: the request's figures as a UBL invoice. */
function templateOf(req) {
  const money = (value) => ({ value, currencyID: req.currency });
  const [issueDate, issueTime] = req.issueDate.split('T');
  return {
    id: { value: req.documentNumber },
    issueDate,
    issueTime,
    documentCurrencyCode: req.currency,
    note: req.note,
    accountingSupplierParty: {
      partyIdentification: [{ id: { value: 'c0000000-0000-4000-8000-000000000001' } }],
      partyName: { name: 'Example Retail Ltd' },
      postalAddress: { streetName: 'Market Street', buildingNumber: '1', cityName: 'Sampletown', postalZone: '10115', country: { identificationCode: 'DE' } },
      partyTaxScheme: [{ companyID: 'EU000000001', taxScheme: { taxTypeCode: 'VAT' } }],
      partyLegalEntity: { registrationName: 'Example Retail Ltd' },
    },
    accountingCustomerParty: {},
    taxTotal: [
      {
        taxAmount: money(req.totalTaxAmount),
        taxSubtotal: req.taxes.map((t) => ({ taxableAmount: money(t.taxableAmount), taxAmount: money(t.amount), percent: t.rate })),
      },
    ],
    legalMonetaryTotal: {
      lineExtensionAmount: money(req.invoiceSubtotal),
      taxExclusiveAmount: money(req.totalBeforeTax),
      taxInclusiveAmount: money(req.totalAmount),
      payableAmount: money(req.totalAmount),
    },
    invoiceLine: req.products.map((p, i) => ({
      id: { value: String(i + 1) },
      invoicedQuantity: { value: p.quantity, unitCode: p.unitCode },
      lineExtensionAmount: money(p.subtotal),
      item: {
        name: p.name,
        brandName: [p.brand],
        sellersItemIdentification: { id: { value: p.identifier } },
        classifiedTaxCategory: p.taxes.map((t) => ({ percent: t.rate, taxScheme: { taxTypeCode: t.type } })),
      },
      price: { priceAmount: money(p.unitPrice) },
    })),
    verificationNonce: randomBytes(16).toString('base64url'),
    warnings: [],
  };
}
