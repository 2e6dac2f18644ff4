import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutboxMessage } from '../../src/contract/sandbox-inspect.js';
import type { UblDocument } from '../../src/contract/template.js';
import { MAX_LINES, renderReceiptPdf } from '../../src/sandbox/pdf.js';
import { isCI } from '../../src/io/streams.js';
import { requireTools } from '../e2e/require-tools.js';
import { FOODS, START, startHarness, templateRequest, type Harness } from './receipt-helpers.js';

const missingPoppler = requireTools(['pdftotext']);
const missingCjkFont = requireCjkFont();

/** A font fontconfig finds for 日 (CI installs fonts-droid-fallback): skipped without one, an error under CI. */
function requireCjkFont(): string | undefined {
  try {
    const file = execFileSync('fc-match', ['--format', '%{file}', ':charset=65e5'], { encoding: 'utf8' });
    if (/Droid|CJK|WenQuanYi|wqy|IPA|Takao|Unifont/i.test(file)) return undefined;
  } catch {
    // No fontconfig.
  }
  const reason = 'no CJK font through fontconfig (apt-get install fontconfig fonts-droid-fallback)';
  if (isCI(process.env)) throw new Error(`CI must run this test: ${reason}`);
  return reason;
}

/** What pdf.js (Firefox's reader) extracts, the lines of each page joined by newlines. */
async function pdfjsText(pdf: Uint8Array): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  let out = '';
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    for (const item of content.items) if ('str' in item) out += item.str + (item.hasEOL ? '\n' : '');
    out += '\n';
  }
  await doc.destroy();
  return out.replace(/[ \t]+/g, ' ');
}

async function pdfText(pdf: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-pdf-'));
  try {
    const file = join(dir, 'receipt.pdf');
    await writeFile(file, pdf);
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', file, '-']);
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('POST /receipt/email', () => {
  let h: Harness;
  let token: string;
  let template: UblDocument;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    await h.call('POST', '/sandbox/reset');
    token = h.token();
    template = (await h.call<UblDocument>('POST', '/receipt/template', { token, body: templateRequest({ note: 'Thank you for shopping' }) })).body;
  });

  const email = (body: unknown, as = token) => h.call('POST', '/receipt/email', { token: as, body });

  it('answers 202 QUEUED and keeps the message and its PDF in the outbox', async () => {
    const { status, body } = await email({ to: 'alice@example.com', template, customer: { name: 'Alice Example' } });
    expect(status).toBe(202);
    expect(body).toEqual({ messageId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'QUEUED', replacedCharacters: 0, truncatedTexts: 0 });

    const outbox = await h.call<OutboxMessage[]>('GET', '/sandbox/outbox');
    expect(outbox.body).toEqual([
      { messageId: body.messageId, to: 'alice@example.com', documentNumber: 'R-2030-0001', createdAt: new Date(START).toISOString(), size: expect.any(Number), replacedCharacters: 0, truncatedTexts: 0 },
    ]);

    const res = await fetch(`${h.running.url}/sandbox/outbox/${String(body.messageId)}.pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.length).toBe(outbox.body[0]?.size);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.subarray(-6).toString('latin1')).toMatch(/%%EOF\s*$/);
  });

  it.skipIf(missingPoppler !== undefined)(
    `renders the supplier, number, date, every line, the taxes per rate and the totals${missingPoppler ? ` (skipped: ${missingPoppler})` : ''}`,
    async () => {
      const { body } = await email({ to: 'alice@example.com', template, customer: { name: 'Alice Example', address: 'Example Lane 5\n10115 Sampletown' } });
      const res = await fetch(`${h.running.url}/sandbox/outbox/${String(body.messageId)}.pdf`);
      const text = await pdfText(new Uint8Array(await res.arrayBuffer()));
      for (const expected of [
        'Example Retail Ltd',
        'Market Street 1',
        '10115 Sampletown DE',
        'Tax ID: EU000000001',
        'Receipt R-2030-0001',
        'Date: 2030-06-01 14:00:00+02:00',
        'Alice Example',
        'Example Lane 5',
        'Coffee beans',
        '2 KGM',
        '12.50 EUR',
        '25.00 EUR',
        'Enamel mug',
        '8.40 EUR',
        'VAT 7% of 25.00 EUR',
        '1.75 EUR',
        'VAT 19% of 8.40 EUR',
        '1.60 EUR',
        '33.40 EUR',
        '3.35 EUR',
        '36.75 EUR',
        'All amounts in EUR.',
        'Thank you for shopping',
      ]) {
        expect(text).toContain(expected);
      }
      expect(text).toMatch(/Total\s+36\.75 EUR/);
    },
  );

  it('answers 404 for a message not in the outbox', async () => {
    for (const path of ['/sandbox/outbox/00000000-0000-4000-8000-000000000000.pdf', '/sandbox/outbox/nothing']) {
      const { status, body } = await h.call('GET', path);
      expect(status).toBe(404);
      expect(body).toMatchObject({ error: 'not_found' });
    }
  });

  it('mails only templates this company was issued, unchanged', async () => {
    const altered = await email({ to: 'alice@example.com', template: { ...template, note: 'edited' } });
    expect(altered.status).toBe(400);
    expect(altered.body).toMatchObject({ error: 'unknown_template', details: [{ path: 'template' }] });
    expect((await email({ to: 'alice@example.com', template }, h.token(FOODS))).body).toMatchObject({ error: 'unknown_template' });
    expect((await h.call<unknown[]>('GET', '/sandbox/outbox')).body).toEqual([]);
  });

  it('refuses a bad address or customer with field paths, and a caller without write_receipts', async () => {
    const bad = await email({ to: 'not-an-address', template, customer: { email: 'nope' } });
    expect(bad.body).toMatchObject({
      error: 'validation_failed',
      details: [
        { path: 'to', message: 'must be an email address' },
        { path: 'customer.email', message: 'must be an email address' },
      ],
    });
    expect((await email({}, h.token(undefined, { scopes: ['read_stores'] }))).body).toMatchObject({ error: 'insufficient_scope' });
  });
});

describe('renderReceiptPdf', () => {
  it('renders a document with nothing but lines, and a credit note, without failing', async () => {
    const { pdf: bare } = await renderReceiptPdf({ invoiceLine: [{ item: { name: 'Thing' } }] }, { createdAt: new Date(START) });
    expect(bare.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const { pdf: credit } = await renderReceiptPdf(
      { documentCurrencyCode: 'JPY', creditNoteLine: [{ item: { name: 'Tea' }, creditedQuantity: { value: 1 }, lineExtensionAmount: { value: 500 } }] },
      { createdAt: new Date(START) },
    );
    if (missingPoppler === undefined) {
      const text = await pdfText(credit);
      expect(text).toContain('Credit note');
      expect(text).toContain('500 JPY');
    }
  });

  it('is the same file for the same input', async () => {
    const doc: UblDocument = { id: { value: 'R-1' }, invoiceLine: [{ item: { name: 'Thing' } }] };
    const [a, b] = await Promise.all([renderReceiptPdf(doc, { createdAt: new Date(START) }), renderReceiptPdf(doc, { createdAt: new Date(START) })]);
    expect(a.pdf.equals(b.pdf)).toBe(true);
  });

  it('paginates a long receipt', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => ({ item: { name: `Line ${i + 1}` }, invoicedQuantity: { value: 1 } }));
    const { pdf } = await renderReceiptPdf({ invoiceLine: lines }, { createdAt: new Date(START) });
    if (missingPoppler === undefined) {
      const text = await pdfText(pdf);
      expect(text).toContain('Line 120');
      expect(text.split('\f').filter((page) => page.trim() !== '').length).toBeGreaterThan(1);
    }
  });
});

/** A test that reads the PDF back with pdftotext: skipped, naming the package, where it is missing (never under CI: requireTools throws there). */
const withPoppler: typeof it = missingPoppler === undefined ? it : ((name: string, fn: () => unknown, timeout?: number) => it.skip(`${name} (skipped: ${missingPoppler})`, fn, timeout)) as typeof it;

describe('renderReceiptPdf: text in any script, bounded', () => {
  const text = (pdf: Uint8Array) => pdfText(pdf).then((t) => t.replace(/\s+/g, ' '));

  withPoppler('Latin with every extension, Greek and Cyrillic come out of pdftotext as they went in', async () => {
    const names = ['Crème brûlée ŁÓDŹ żółć', 'Çay şişesi İĞÜ ğ ı', 'Ελληνικό λάδι ΑΩ', 'Русский хлеб Ёж', 'Ærø Å Øl ß Œuvre'];
    const doc: UblDocument = { id: { value: 'R-ÜNÏ-0001' }, note: 'Merci — Dziękujemy — Ευχαριστούμε — Спасибо', invoiceLine: names.map((name) => ({ item: { name }, invoicedQuantity: { value: 1 } })) };
    const { pdf, replaced } = await renderReceiptPdf(doc, { createdAt: new Date(START) });
    expect(replaced).toBe(0);
    const extracted = await text(pdf);
    for (const expected of [...names, 'Receipt R-ÜNÏ-0001', 'Merci — Dziękujemy — Ευχαριστούμε — Спасибо']) expect(extracted).toContain(expected);
  });

  withPoppler('decomposed Latin (a letter and a combining mark) comes out of pdftotext as the precomposed letter', async () => {
    const name = 'Cafe\u0301 nai\u0308ve';
    const { pdf, replaced } = await renderReceiptPdf({ note: 'Zo\u0308e', invoiceLine: [{ item: { name }, invoicedQuantity: { value: 1 } }] }, { createdAt: new Date(START) });
    expect(replaced).toBe(0);
    const extracted = await text(pdf);
    expect(extracted).toContain('Caf\u00e9 na\u00efve');
    expect(extracted).toContain('Z\u00f6e');
    // U+06C0 is not in DejaVu Sans, but its parts (U+06D5 U+0654) are: drawn from those, not replaced.
    expect((await renderReceiptPdf({ invoiceLine: [{ item: { name: '\u06D5\u0654' } }] }, { createdAt: new Date(START) })).replaced).toBe(0);
  });

  it('"Crème brûlée 🍮 日本語", Greek and Cyrillic come out of pdftotext and pdf.js exactly: emoji from Noto Emoji, CJK from a system font', async (ctx) => {
    if (missingCjkFont) return ctx.skip(missingCjkFont);
    const names = ['Crème brûlée 🍮 日本語', 'Ελληνικό λάδι', 'Русский хлеб', 'かな 中文', 'Family 👨\u200d👩\u200d👧 ok 😀'];
    const doc: UblDocument = { id: { value: 'R-🍮-0001' }, note: 'Merci 🙏 ありがとう', invoiceLine: names.map((name) => ({ item: { name }, invoicedQuantity: { value: 1 } })) };
    const { pdf, replaced } = await renderReceiptPdf(doc, { createdAt: new Date(START) });
    expect(replaced).toBe(0);
    for (const extracted of [await text(pdf), await pdfjsText(pdf)]) {
      for (const expected of [...names, 'Receipt R-🍮-0001', 'Merci 🙏 ありがとう']) expect(extracted).toContain(expected);
      expect(extracted).not.toContain('\uFFFD');
    }
  });

  it('a font only for the documents that need one: plain Latin embeds DejaVu Sans alone', async () => {
    const { pdf } = await renderReceiptPdf({ invoiceLine: [{ item: { name: 'Bread' } }] }, { createdAt: new Date(START) });
    const fonts = pdf.toString('latin1').match(/\/BaseFont \/[A-Z]{6}\+([\w-]+)/g) ?? [];
    expect([...new Set(fonts.map((f) => f.replace(/.*\+/, '')))].sort()).toEqual(['DejaVuSans', 'DejaVuSans-Bold']);
  });

  withPoppler('what no font can draw is printed as U+FFFD, and a modifier a font drops is counted too; both named in a closing note', async () => {
    const { pdf, replaced } = await renderReceiptPdf({ note: 'Thanks \u{1F44D}\u{1F3FD} \u{10FFFD}!', invoiceLine: [{ item: { name: 'Thing' } }] }, { createdAt: new Date(START) });
    // The thumb is drawn without its skin tone (Noto Emoji has none), U+10FFFD by no font.
    expect(replaced).toBe(2);
    for (const extracted of [await text(pdf), await pdfjsText(pdf)]) {
      expect(extracted).toContain('Thanks \u{1F44D} \uFFFD!');
      expect(extracted).toContain("2 characters this PDF's fonts cannot show are left out or printed as \uFFFD: U+1F3FD U+10FFFD.");
    }
  });

  withPoppler('a note of a million characters without a break is cut, visibly, and long words wrap', async () => {
    const { pdf, truncated } = await renderReceiptPdf({ note: 'x'.repeat(1_000_000), invoiceLine: [{ item: { name: 'y'.repeat(500) } }] }, { createdAt: new Date(START) });
    expect(truncated).toBe(1);
    const extracted = await text(pdf);
    expect(extracted).toContain('… (998001 more characters not shown)');
    expect(extracted.replace(/ /g, '')).toContain('y'.repeat(500));
  });

  withPoppler('a name longer than a page starts under the header, its figures beside its first line; the next line follows its last', async () => {
    const doc: UblDocument = {
      id: { value: 'R-1' },
      documentCurrencyCode: 'EUR',
      invoiceLine: [
        { item: { name: '\u0416'.repeat(400_000) }, invoicedQuantity: { value: 2 }, price: { priceAmount: { value: 12.5 } }, lineExtensionAmount: { value: 25 } },
        { item: { name: 'Mug' }, invoicedQuantity: { value: 1 }, price: { priceAmount: { value: 8.4 } }, lineExtensionAmount: { value: 8.4 } },
      ],
    };
    const { pdf } = await renderReceiptPdf(doc, { createdAt: new Date(START) });
    const pages = (await pdfText(pdf)).split('\f').map((page) => page.split('\n').filter((line) => line.trim() !== ''));
    const pageOf = (match: (line: string) => boolean) => pages.findIndex((lines) => lines.some(match));
    const named = (line: string) => line.includes('\u0416');
    expect(pageOf((line) => line.includes('Receipt R-1'))).toBe(0);
    expect(pageOf(named)).toBe(0);
    expect(pages[0]?.find(named)).toMatch(/^\s*\u0416+\s+2\s+12\.50 EUR\s+25\.00 EUR\s*$/);
    expect(pages.flat().filter((line) => line.includes('12.50 EUR'))).toHaveLength(1);
    const last = pages.findLastIndex((lines) => lines.some(named));
    expect(last).toBeGreaterThan(0);
    expect(pageOf((line) => line.includes('Mug'))).toBe(last);
  });

  withPoppler('draws at most MAX_LINES lines and says how many more there were', async () => {
    const lines = Array.from({ length: MAX_LINES + 25 }, (_, i) => ({ item: { name: `L${i}` } }));
    const { pdf, truncated } = await renderReceiptPdf({ invoiceLine: lines }, { createdAt: new Date(START) });
    expect(truncated).toBe(1);
    expect(await text(pdf)).toContain('… 25 more lines not shown');
  });
});

describe('POST /receipt/email with a 1 MiB body', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('renders bounded: /sandbox/health answers while it renders, and the outbox reports the cut', async () => {
    const token = h.token();
    const template = (await h.call<UblDocument>('POST', '/receipt/template', { token, body: templateRequest({ note: 'n'.repeat(1_000_000) }) })).body;
    const sending = h.call('POST', '/receipt/email', { token, body: { to: 'alice@example.com', template } });
    const health = await h.call('GET', '/sandbox/health');
    expect(health.status).toBe(200);
    expect(await sending).toMatchObject({ status: 202, body: { truncatedTexts: 1, replacedCharacters: 0 } });
    const outbox = await h.call<OutboxMessage[]>('GET', '/sandbox/outbox');
    expect(outbox.body.at(-1)).toMatchObject({ truncatedTexts: 1, replacedCharacters: 0 });
  });
});
