// The PDF a customer gets from `POST /receipt/email`: the supplier, the document number and
// date, every line, the taxes per rate and the totals, read from the template document.
// The document comes from the caller and every UBL member is optional, so each value is
// read defensively and a missing one is left out rather than failing the email.
// pdfkit is imported on first use: it is large, and kept out of the CLI bundle.
//
// Text in any script: the PDF embeds DejaVu Sans (the `dejavu-fonts-ttf` package; Bitstream
// Vera licence with public-domain additions: free to embed), which covers Latin with every
// European extension, Greek and Cyrillic, among others. What it has no glyph for is drawn
// from a fallback chain (pdf-fonts.ts: Noto Emoji, then the system's fonts through
// fontconfig, e.g. CJK), read only for a document that needs it; a grapheme is drawn whole
// from the first font that has all of it, and each font's text is a run of its own, so the
// text layer maps back exactly. What no font draws is printed as U+FFFD, never garbled; a
// modifier a font leaves out (a skin tone) is dropped. Both are reported: a note at the end
// of the PDF lists the code points, and the result counts them for the outbox and the log.
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
import { fallbackFonts, type FontkitFont } from './pdf-fonts.js';

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
  /** Characters no font draws (graphemes printed as U+FFFD, and modifiers left out). */
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

/** Text of one font: 0 is DejaVu Sans (regular or bold as the text is), then the fallbacks in order. */
export interface Run {
  font: number;
  text: string;
}

// Joiners, variation selectors and tag characters have no appearance of their own: dropped
// when a font lacks them, and not named in the note (the visible ones around them are).
const invisible = (cp: number) => cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0020 && cp <= 0xe007f);
// A skin-tone modifier a font lacks is dropped when its base is drawn (the base alone is still
// the emoji), counted and named; when the whole grapheme becomes �, it is one of the code
// points replaced.
const modifier = (cp: number) => cp >= 0x1f3fb && cp <= 0x1f3ff;

/**
 * Caps, breaks long runs, composes letters and marks (NFC), and picks for each grapheme the
 * first font of `fonts` that draws it (DejaVu Sans first, by its character map; a fallback by
 * laying it out, since a font may also leave a code point out as it shapes); what none draws
 * is replaced. Cuts and what was not drawn are counted.
 */
export function textFitter(
  primary: GlyphFont | undefined,
  fallbacks: readonly FontkitFont[] = [],
): { fit(value: string): Run[]; replaced: number; truncated: number; missing: Set<number> } {
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const state = { replaced: 0, truncated: 0, missing: new Set<number>() };
  const visible = (text: string) => codePoints(text).filter((cp) => cp >= 0x20 && !invisible(cp));
  /** The visible code points a fallback would not draw: .notdef glyphs, and code points its shaping left out. */
  const undrawn = (font: FontkitFont, text: string): number[] => {
    const drawn = new Set<number>();
    for (const glyph of font.layout(text).glyphs) if (glyph.id !== 0) for (const cp of glyph.codePoints) drawn.add(cp);
    return visible(text).filter((cp) => !drawn.has(cp));
  };
  interface Choice {
    font: number;
    shown: string;
    dropped: number[];
  }
  const chosen = new Map<string, Choice | null>();
  /** The font that draws `segment`, what it shows, and the modifiers it leaves out; null: no font. */
  const choose = (segment: string): Choice | null => {
    const known = chosen.get(segment);
    if (known !== undefined) return known;
    let choice: Choice | null = null;
    let partial: Choice | null = null;
    const nfc = segment.normalize('NFC');
    if (primary) {
      // A letter followed by combining marks (e + U+0301) is drawn right, but the PDF's text
      // layer maps each glyph back on its own, so pdftotext gave "e ́" or a dotless "ı ̈".
      // The precomposed letter (é, ï), where Unicode has one, is one glyph that maps back to
      // itself; one the font has no glyph for may still be drawn from its parts.
      for (const form of nfc === segment ? [segment] : [nfc, segment]) {
        const lacking = visible(form).filter((cp) => !primary.hasGlyphForCodePoint(cp));
        const drop = (text: string) => [...text].filter((c) => { const cp = c.codePointAt(0) ?? 0; return !(invisible(cp) && !primary.hasGlyphForCodePoint(cp)) && !lacking.includes(cp); }).join('');
        if (lacking.length === 0) {
          choice = { font: 0, shown: drop(form), dropped: [] };
          break;
        }
        if (!partial && lacking.every(modifier) && lacking.length < visible(form).length) partial = { font: 0, shown: drop(form), dropped: lacking };
      }
    } else {
      choice = { font: 0, shown: nfc, dropped: [] };
    }
    for (let i = 0; choice === null && i < fallbacks.length; i++) {
      const font = fallbacks[i] as FontkitFont;
      const lacking = undrawn(font, nfc);
      if (lacking.length === 0) choice = { font: i + 1, shown: nfc, dropped: [] };
      else if (!partial && lacking.every(modifier) && lacking.length < visible(nfc).length) {
        partial = { font: i + 1, shown: [...nfc].filter((c) => !lacking.includes(c.codePointAt(0) ?? 0)).join(''), dropped: lacking };
      }
    }
    choice ??= partial;
    chosen.set(segment, choice);
    return choice;
  };
  const fit = (value: string): Run[] => {
    let source = value;
    let cut = '';
    if (source.length > MAX_TEXT) {
      const kept = [...segmenter.segment(source.slice(0, MAX_TEXT))].slice(0, -1).map((g) => g.segment).join('');
      cut = ` … (${source.length - kept.length} more characters not shown)`;
      source = kept;
      state.truncated += 1;
    }
    const runs: Run[] = [];
    const add = (font: number, text: string) => {
      const last = runs[runs.length - 1];
      if (last && last.font === font) last.text += text;
      else runs.push({ font, text });
    };
    let run = 0;
    for (const { segment } of segmenter.segment(source)) {
      // Below U+0020 are line breaks and tabs, laid out rather than drawn; ASCII is DejaVu's.
      const plain = segment.length === 1 && segment.charCodeAt(0) < 0x7f;
      const choice = plain ? { font: 0, shown: segment, dropped: [] } : choose(segment);
      let font = 0;
      let shown = '\uFFFD';
      if (choice === null) {
        for (const cp of codePoints(segment.normalize('NFC'))) if (!invisible(cp)) state.missing.add(cp);
        state.replaced += 1;
      } else {
        ({ font, shown } = choice);
        for (const cp of choice.dropped) state.missing.add(cp);
        state.replaced += choice.dropped.length;
      }
      run = /\s/.test(shown) ? 0 : run + 1;
      if (run > MAX_RUN) {
        add(font, '\n');
        run = 1;
      }
      add(font, shown);
    }
    if (cut !== '') add(0, cut);
    return runs.length > 0 ? runs : [{ font: 0, text: '' }];
  };
  return Object.assign(state, { fit });
}

function codePoints(value: string): number[] {
  return [...value].map((c) => c.codePointAt(0) ?? 0);
}

/**
 * The code points of the document's texts (as far as they can be drawn) that DejaVu Sans
 * has no glyph for: what decides which fallback fonts the document needs.
 */
function lackingInDocument(font: GlyphFont, ...values: unknown[]): Set<number> {
  const seen = new Set<number>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      const drawn = value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value;
      for (const text of [drawn, drawn.normalize('NFC')]) {
        for (const char of text) {
          const cp = char.codePointAt(0) ?? 0;
          if (cp >= 0x7f) seen.add(cp);
        }
      }
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
  };
  values.forEach(visit);
  return new Set([...seen].filter((cp) => !invisible(cp) && !font.hasGlyphForCodePoint(cp)));
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
  const primary = typeof glyphs?.hasGlyphForCodePoint === 'function' ? (glyphs as GlyphFont) : undefined;
  const fallbacks = primary ? await fallbackFonts(lackingInDocument(primary, document, options.customer)) : [];
  fallbacks.forEach((f, i) => pdf.registerFont(`fallback-${i + 1}`, f.src, f.face as string));
  const fitter = textFitter(primary, fallbacks.map((f) => f.font));
  const fit = (value: string | undefined) => (value === undefined ? undefined : fitter.fit(value));
  const fontOf = (run: Run, bold: boolean) => (run.font === 0 ? (bold ? 'text-bold' : 'text') : `fallback-${run.font}`);
  const draw = (runs: Run[], x: number, y: number, opts: PDFKit.Mixins.TextOptions, bold: boolean) => {
    runs.forEach((run, i) => {
      pdf.font(fontOf(run, bold));
      const continued = { ...opts, continued: i < runs.length - 1 };
      if (i === 0) pdf.text(run.text, x, y, continued);
      else pdf.text(run.text, continued);
    });
  };
  // pdfkit's heightOfString, over runs of several fonts laid out as one paragraph.
  const heightOf = (runs: Run[], opts: PDFKit.Mixins.TextOptions, bold: boolean): number => {
    if (runs.length === 1) return pdf.font(fontOf(runs[0] as Run, bold)).heightOfString((runs[0] as Run).text, opts);
    const doc = pdf as unknown as { x: number; y: number; _lineGap?: number; _text(t: string, o: object, y: undefined, z: undefined, line: () => void): void };
    const { x, y } = doc;
    const onLine = () => {
      doc.y += pdf.currentLineHeight(true) + (doc._lineGap ?? 0);
    };
    runs.forEach((run, i) => {
      pdf.font(fontOf(run, bold));
      doc._text(run.text, { ...opts, height: Infinity, continued: i < runs.length - 1 }, undefined, undefined, onLine);
    });
    const height = doc.y - y;
    doc.x = x;
    doc.y = y;
    return height;
  };
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<RenderedPdf>((resolve, reject) => {
    pdf.on('end', () => resolve({ pdf: Buffer.concat(chunks), replaced: fitter.replaced, truncated: fitter.truncated }));
    pdf.on('error', reject);
  });

  const paragraph = (value: string | undefined, size = 10, bold = false) => {
    if (!value) return;
    pdf.fontSize(size);
    draw(fitter.fit(value), PAGE_MARGIN, pdf.y, { width: CONTENT_WIDTH }, bold);
  };
  const row = (given: readonly (string | undefined)[], bold = false) => {
    const cells = given.map(fit);
    pdf.font(bold ? 'text-bold' : 'text').fontSize(10);
    const heights = cells.map((cell, i) => (cell ? heightOf(cell, { width: COLUMNS[i]?.width ?? CONTENT_WIDTH }, bold) : pdf.heightOfString('', { width: COLUMNS[i]?.width ?? CONTENT_WIDTH })));
    pdf.font(bold ? 'text-bold' : 'text');
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
      if (column && cell) draw(cell, column.x, top, { width: column.width, align: column.align }, bold);
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
    paragraph(`${fitter.replaced} character${fitter.replaced === 1 ? '' : 's'} this PDF's fonts cannot show ${fitter.replaced === 1 ? 'is' : 'are'} left out or printed as \uFFFD: ${named.join(' ')}${more}.`, 8);
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
