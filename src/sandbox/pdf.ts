// The PDF a customer gets from `POST /receipt/email`: the supplier, the document number and
// date, every line, the taxes per rate and the totals, read from the template document.
// The document comes from the caller and every UBL member is optional, so each value is
// read defensively and a missing one is left out rather than failing the email.
// pdfkit is imported on first use: it is large, and kept out of the CLI bundle.
//
// Text in any script: the PDF embeds DejaVu Sans (the `dejavu-fonts-ttf` package; Bitstream
// Vera licence with public-domain additions: free to embed), which covers Latin with every
// European extension, Greek and Cyrillic, among others. What it has no glyph for (CJK,
// emoji) is printed as U+FFFD, never garbled, and reported: a note at the end of the PDF
// lists the code points, and the result counts them for the outbox and the log.
//
// Bounded: PDFKit's line breaking is quadratic in the longest unbroken run of text (a 100k
// character word took 6.5 s), so every text is capped (MAX_TEXT, a visible "… N more
// characters" in its place), runs longer than MAX_RUN are broken, and at most MAX_LINES
// document lines are drawn. A 1 MiB body renders in well under a second.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CustomerDetails } from '../contract/receipt.js';
import type { UblDocument } from '../contract/template.js';
import { formatMoney, fromMinor, toMinor } from '../crypto/money.js';

export interface PdfOptions {
  /** Stamped as the PDF's creation date (the sandbox clock), so equal inputs give equal files. */
  createdAt: Date;
  customer?: CustomerDetails | undefined;
}

const PAGE_MARGIN = 50;
const CONTENT_WIDTH = 495;
// Item, quantity, unit price, amount.
const COLUMNS = [
  { x: 50, width: 235, align: 'left' },
  { x: 290, width: 55, align: 'right' },
  { x: 350, width: 95, align: 'right' },
  { x: 450, width: 95, align: 'right' },
] as const;
// Unit codes that mean "pieces": the quantity alone says it.
const PIECE_UNITS = new Set(['C62', 'EA', 'H87']);

/** Characters of one text (a name, a note) drawn at most. */
export const MAX_TEXT = 2000;
/** The longest run of text without a break opportunity; longer runs are broken. */
const MAX_RUN = 30;
/** Document lines drawn at most. */
export const MAX_LINES = 300;
/** Code points the closing note names at most. */
const MAX_NAMED = 12;

export interface RenderedPdf {
  pdf: Buffer;
  /** Characters (graphemes) the font has no glyph for, printed as U+FFFD. */
  replaced: number;
  /** Texts cut at MAX_TEXT, and lines left out beyond MAX_LINES. */
  truncated: number;
}

// Read once per process: a font file is ~700 KB.
const fontBytes = new Map<string, Buffer>();
function fontFile(name: string): Buffer {
  let bytes = fontBytes.get(name);
  if (bytes === undefined) {
    bytes = readFileSync(createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${name}`));
    fontBytes.set(name, bytes);
  }
  return bytes;
}

interface GlyphFont {
  hasGlyphForCodePoint(codePoint: number): boolean;
}

/** Caps, breaks long runs, composes letters and marks (NFC), and replaces what the font cannot show, counting cuts and replacements. */
export function textFitter(font: GlyphFont | undefined): { fit(value: string): string; replaced: number; truncated: number; missing: Set<number> } {
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const state = { replaced: 0, truncated: 0, missing: new Set<number>() };
  // Joiners, variation selectors and tag characters have no appearance of their own: dropped
  // when the font lacks them, and not named in the note (the visible ones around them are).
  const invisible = (cp: number) => cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0020 && cp <= 0xe007f);
  // A skin-tone modifier the font lacks is dropped when its base is drawn (the base alone is
  // still the emoji); when the whole grapheme becomes �, the modifier is one of the code
  // points replaced, and is named like any other.
  const droppable = (cp: number) => invisible(cp) || (cp >= 0x1f3fb && cp <= 0x1f3ff);
  const fit = (value: string): string => {
    let source = value;
    let cut = '';
    if (source.length > MAX_TEXT) {
      const kept = [...segmenter.segment(source.slice(0, MAX_TEXT))].slice(0, -1).map((g) => g.segment).join('');
      cut = ` … (${source.length - kept.length} more characters not shown)`;
      source = kept;
      state.truncated += 1;
    }
    let out = '';
    let run = 0;
    for (const { segment } of segmenter.segment(source)) {
      // A letter followed by combining marks (e + U+0301) is drawn right, but the PDF's text
      // layer maps each glyph back on its own, so pdftotext gave "e ́" or a dotless "ı ̈".
      // The precomposed letter (é, ï), where Unicode has one, is one glyph that maps back to
      // itself: the text then extracts, searches and copies as the same characters.
      let shown = segment.normalize('NFC');
      if (font) {
        let lacking = lackingGlyphs(font, shown);
        // A precomposed letter the font has no glyph for may still be drawn from its parts.
        if (lacking.some((cp) => !droppable(cp)) && shown !== segment && !lackingGlyphs(font, segment).some((cp) => !droppable(cp))) {
          shown = segment;
          lacking = lackingGlyphs(font, segment);
        }
        if (lacking.some((cp) => !droppable(cp))) {
          for (const cp of codePoints(shown)) if (!invisible(cp)) state.missing.add(cp);
          state.replaced += 1;
          shown = '\uFFFD';
        } else if (lacking.length > 0) {
          shown = [...shown].filter((c) => !lacking.includes(c.codePointAt(0) ?? 0)).join('');
        }
      }
      run = /\s/.test(shown) ? 0 : run + 1;
      if (run > MAX_RUN) {
        out += '\n';
        run = 1;
      }
      out += shown;
    }
    return out + cut;
  };
  return Object.assign(state, { fit });
}

function codePoints(value: string): number[] {
  return [...value].map((c) => c.codePointAt(0) ?? 0);
}

/** The code points of `value` the font has no glyph for; below U+0020 are line breaks and tabs, laid out rather than drawn. */
function lackingGlyphs(font: GlyphFont, value: string): number[] {
  return codePoints(value).filter((cp) => cp >= 0x20 && !font.hasGlyphForCodePoint(cp));
}

export async function renderReceiptPdf(document: UblDocument, options: PdfOptions): Promise<RenderedPdf> {
  const { default: PDFDocument } = await import('pdfkit');
  const currency = text(document.documentCurrencyCode) ?? '';
  const money = (value: unknown) => formatAmount(value, currency);
  const isCreditNote = Array.isArray(document.creditNoteLine);
  const title = isCreditNote ? 'Credit note' : 'Receipt';
  const documentNumber = text(at(document, 'id', 'value')) ?? '';

  const pdf = new PDFDocument({
    size: 'A4',
    margin: PAGE_MARGIN,
    info: { Title: `${title} ${documentNumber}`.trim(), CreationDate: options.createdAt, ModDate: options.createdAt },
  });
  pdf.registerFont('text', fontFile('DejaVuSans.ttf'));
  pdf.registerFont('text-bold', fontFile('DejaVuSans-Bold.ttf'));
  pdf.font('text');
  // Opening the font is the longest step: a turn of the event loop after it (and before the
  // embedding at the end), so that the sandbox's other requests are answered in between.
  await nextTurn();
  // PDFKit's embedded font wraps a fontkit font; without it nothing is replaced (no worse than before).
  const glyphs = (pdf as unknown as { _font?: { font?: Partial<GlyphFont> } })._font?.font;
  const fitter = textFitter(typeof glyphs?.hasGlyphForCodePoint === 'function' ? (glyphs as GlyphFont) : undefined);
  const fit = (value: string | undefined) => (value === undefined ? undefined : fitter.fit(value));
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<RenderedPdf>((resolve, reject) => {
    pdf.on('end', () => resolve({ pdf: Buffer.concat(chunks), replaced: fitter.replaced, truncated: fitter.truncated }));
    pdf.on('error', reject);
  });

  const paragraph = (value: string | undefined, size = 10, bold = false) => {
    if (!value) return;
    pdf.font(bold ? 'text-bold' : 'text').fontSize(size).text(fitter.fit(value), PAGE_MARGIN, pdf.y, { width: CONTENT_WIDTH });
  };
  const row = (given: readonly (string | undefined)[], bold = false) => {
    const cells = given.map(fit);
    pdf.font(bold ? 'text-bold' : 'text').fontSize(10);
    const heights = cells.map((cell, i) => pdf.heightOfString(cell ?? '', { width: COLUMNS[i]?.width ?? CONTENT_WIDTH }));
    const height = Math.max(...heights);
    const tallest = heights.indexOf(height);
    const bottom = pdf.page.height - PAGE_MARGIN;
    // A row taller than a whole page (a name of 2,000 characters) starts here when the rest of
    // it fits beside its first lines: a fresh page would not hold it either, and this one
    // would be left with only the header.
    const needed = height <= bottom - PAGE_MARGIN ? height : Math.max(pdf.currentLineHeight(true), ...heights.filter((_, i) => i !== tallest));
    if (pdf.y + needed > bottom) pdf.addPage();
    const top = pdf.y;
    const page = pdf.page;
    // The tallest cell last: only it can run on to the next pages, and a cell drawn after it
    // would land on the last of those instead of beside the row's first line.
    for (const i of [...cells.keys()].filter((i) => i !== tallest).concat(tallest)) {
      const column = COLUMNS[i];
      const cell = cells[i];
      if (column && cell) pdf.text(cell, column.x, top, { width: column.width, align: column.align });
    }
    pdf.x = PAGE_MARGIN;
    // A cell that ran on to another page left pdf.y under its last line there.
    pdf.y = (pdf.page === page ? top + height : pdf.y) + 4;
  };

  const supplier = at(document, 'accountingSupplierParty');
  const address = at(supplier, 'postalAddress');
  paragraph(text(at(supplier, 'partyName', 'name')) ?? text(at(supplier, 'partyLegalEntity', 'registrationName')), 16, true);
  paragraph(joined(' ', text(at(address, 'streetName')), text(at(address, 'buildingNumber'))));
  paragraph(joined(' ', text(at(address, 'postalZone')), text(at(address, 'cityName')), text(at(address, 'country', 'identificationCode'))));
  const taxId = text(at(supplier, 'partyTaxScheme', 0, 'companyID'));
  paragraph(taxId && `Tax ID: ${taxId}`);
  pdf.moveDown();

  paragraph(joined(' ', title, documentNumber), 14, true);
  paragraph(`Date: ${joined(' ', text(document.issueDate), text(document.issueTime))}`);
  const original = text(at(document, 'originatorDocumentReference', 0, 'id', 'value'));
  paragraph(original && `Refers to: ${original}`);
  const customer = options.customer;
  if (customer && (customer.name || customer.address || customer.email || customer.phone)) {
    pdf.moveDown(0.5);
    paragraph('Customer', 10, true);
    for (const line of [customer.name, ...(customer.address?.split('\n') ?? []), customer.email, customer.phone]) paragraph(line);
  }
  pdf.moveDown();

  row(['Item', 'Quantity', 'Unit price', 'Amount'], true);
  const allLines = (isCreditNote ? document.creditNoteLine : document.invoiceLine) ?? [];
  const lines = allLines.slice(0, MAX_LINES);
  for (const line of lines) {
    const quantity = line.creditedQuantity ?? line.invoicedQuantity;
    const unit = text(quantity?.unitCode);
    row([
      text(line.item?.name) ?? '',
      joined(' ', text(quantity?.value), unit && !PIECE_UNITS.has(unit) ? unit : undefined),
      money(line.price?.priceAmount?.value),
      money(line.lineExtensionAmount?.value),
    ]);
  }
  if (allLines.length > lines.length) {
    fitter.truncated += 1;
    row([`… ${allLines.length - lines.length} more lines not shown`]);
  }
  pdf.moveDown();

  for (const adjustment of list(at(document, 'allowanceCharge'))) {
    const isCharge = at(adjustment, 'chargeIndicator') === true;
    const reason = text(at(adjustment, 'allowanceChargeReason', 0));
    const label = `${isCharge ? 'Charge' : 'Discount'}${reason ? ` (${reason})` : ''}`;
    const amount = money(at(adjustment, 'amount', 'value'));
    row([label, undefined, undefined, amount && (isCharge ? amount : `-${amount}`)]);
  }
  for (const subtotal of list(at(document, 'taxTotal', 0, 'taxSubtotal'))) {
    const scheme = text(at(subtotal, 'taxCategory', 'taxScheme', 'taxTypeCode')) ?? 'Tax';
    const percent = text(at(subtotal, 'percent') ?? at(subtotal, 'taxCategory', 'percent'));
    const taxable = money(at(subtotal, 'taxableAmount', 'value'));
    row([joined(' ', scheme, percent && `${percent}%`, taxable && `of ${taxable}`), undefined, undefined, money(at(subtotal, 'taxAmount', 'value'))]);
  }
  const totals = document.legalMonetaryTotal;
  row(['Total before tax', undefined, undefined, money(totals?.taxExclusiveAmount?.value)]);
  row(['Tax', undefined, undefined, money(at(document, 'taxTotal', 0, 'taxAmount', 'value'))]);
  row(['Total', undefined, undefined, money(totals?.payableAmount?.value ?? totals?.taxInclusiveAmount?.value)], true);
  pdf.moveDown();
  paragraph(currency && `All amounts in ${currency}.`, 9);
  paragraph(text(document.note), 9);
  if (fitter.missing.size > 0) {
    const named = [...fitter.missing].slice(0, MAX_NAMED).map((cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
    const more = fitter.missing.size > named.length ? ` and ${fitter.missing.size - named.length} more` : '';
    pdf.moveDown();
    paragraph(`${fitter.replaced} character${fitter.replaced === 1 ? '' : 's'} this PDF's font cannot show (such as CJK or emoji) ${fitter.replaced === 1 ? 'is' : 'are'} printed as \uFFFD: ${named.join(' ')}${more}.`, 8);
  }

  await nextTurn();
  pdf.end();
  return finished;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** "12.50 EUR"; a unit price with more places than the currency keeps them (1.789 EUR a litre). */
function formatAmount(value: unknown, currency: string): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  if (!/^[A-Z]{3}$/.test(currency)) return String(value);
  try {
    const minor = toMinor(value, currency);
    return fromMinor(minor, currency) === value ? formatMoney(minor, currency) : `${value} ${currency}`;
  } catch {
    // Too large to count in minor units: shown as given.
    return `${value} ${currency}`;
  }
}

function at(value: unknown, ...path: readonly (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function joined(separator: string, ...parts: readonly (string | undefined)[]): string {
  return parts.filter((p): p is string => p !== undefined && p !== '').join(separator);
}
