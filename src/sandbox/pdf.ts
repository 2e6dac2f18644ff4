// The PDF a customer gets from `POST /receipt/email`: the supplier, the document number and
// date, every line, the taxes per rate and the totals, read from the template document.
// The document comes from the caller and every UBL member is optional, so each value is
// read defensively and a missing one is left out rather than failing the email.
// pdfkit is imported on first use: it is large, and kept out of the CLI bundle.
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

export async function renderReceiptPdf(document: UblDocument, options: PdfOptions): Promise<Buffer> {
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
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  const paragraph = (value: string | undefined, size = 10, bold = false) => {
    if (!value) return;
    pdf.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(size).text(value, PAGE_MARGIN, pdf.y, { width: CONTENT_WIDTH });
  };
  const row = (cells: readonly (string | undefined)[], bold = false) => {
    pdf.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
    const height = Math.max(...cells.map((cell, i) => pdf.heightOfString(cell ?? '', { width: COLUMNS[i]?.width ?? CONTENT_WIDTH })));
    if (pdf.y + height > pdf.page.height - PAGE_MARGIN) pdf.addPage();
    const top = pdf.y;
    cells.forEach((cell, i) => {
      const column = COLUMNS[i];
      if (column && cell) pdf.text(cell, column.x, top, { width: column.width, align: column.align });
    });
    pdf.x = PAGE_MARGIN;
    pdf.y = top + height + 4;
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
  const lines = (isCreditNote ? document.creditNoteLine : document.invoiceLine) ?? [];
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

  pdf.end();
  return finished;
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
