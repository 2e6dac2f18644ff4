// Members a file has and the interface does not name, found by walking the schema's JSON
// Schema beside the value (src/contract/unknown-members.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { CreditNoteTemplateRequest, ReceiptTemplateRequest } from '../../src/contract/template.js';
import { unknownMembers } from '../../src/contract/unknown-members.js';

const receipts = join(import.meta.dirname, '..', '..', 'fixtures', 'receipts');
const groceries = () => JSON.parse(readFileSync(join(receipts, 'groceries.json'), 'utf8')) as Record<string, unknown> & { products: Record<string, unknown>[] };

describe('unknownMembers', () => {
  it('finds none in the fixtures', () => {
    for (const name of readdirSync(receipts)) expect(unknownMembers(ReceiptTemplateRequest, JSON.parse(readFileSync(join(receipts, name), 'utf8'))), name).toEqual([]);
  });

  it('names each unknown member by its path, nested and at the top', () => {
    const receipt = groceries();
    receipt.products[0]!.colour = 'red';
    receipt['documentNumbr'] = 'R-1';
    receipt['odd key'] = 1;
    expect(unknownMembers(ReceiptTemplateRequest, receipt)).toEqual(['products[0].colour', 'documentNumbr', '["odd key"]']);
  });

  it('in a credit note too', () => {
    const { products, ...rest } = groceries();
    const creditNote = { ...rest, products: [{ ...products[0], colour: 'red' }], originatorDocumentReference: { id: 'R-1', issueDate: '2025-01-01' } };
    expect(unknownMembers(CreditNoteTemplateRequest, creditNote)).toContain('products[0].colour');
  });

  it('a union: unknown only when no branch names it', () => {
    const schema = z.union([z.looseObject({ a: z.string() }), z.looseObject({ b: z.string() })]);
    expect(unknownMembers(schema, { a: 'x', b: 'y', c: 1 })).toEqual(['c']);
  });
});
