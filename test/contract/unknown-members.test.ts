// Members a file has and the interface does not name, found by walking the schema's JSON
// Schema beside the value (src/contract/unknown-members.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { CreditNoteTemplateRequest, ReceiptTemplateRequest } from '../../src/contract/template.js';
import fc from 'fast-check';
import { unknownMembers, unknownMembersByJsonSchema } from '../../src/contract/unknown-members.js';

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

  it('the walk of the zod schema answers as the walk of its JSON Schema (the receipt and credit-note schemas, random extra members)', () => {
    const { products, ...rest } = groceries();
    const bases: [z.ZodType, unknown][] = [
      ...readdirSync(receipts).map((name): [z.ZodType, unknown] => [ReceiptTemplateRequest, JSON.parse(readFileSync(join(receipts, name), 'utf8'))]),
      [CreditNoteTemplateRequest, { ...rest, products, originatorDocumentReference: { id: 'R-1', issueDate: '2025-01-01' } }],
    ];
    // Adds a member, or replaces a value by another kind, at random places of a document.
    const mutate = (value: unknown, picks: number[], names: string[]): unknown => {
      let at = 0;
      const visit = (v: unknown): unknown => {
        const pick = picks[at++ % picks.length]!;
        if (Array.isArray(v)) return pick % 7 === 0 ? { notAnArray: true } : v.map(visit);
        if (v !== null && typeof v === 'object') {
          const copy: Record<string, unknown> = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, visit(x)]));
          if (pick % 3 === 0) copy[names[pick % names.length]!] = pick % 2 ? 'x' : { nested: 1 };
          if (pick % 11 === 0) return [copy];
          return copy;
        }
        return pick % 13 === 0 ? { stray: v } : v;
      };
      return visit(value);
    };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: bases.length - 1 }), fc.array(fc.nat(1000), { minLength: 1, maxLength: 40 }), fc.array(fc.constantFrom('colour', 'odd key', 'documentNumber', 'name', 'amount', 'x'), { minLength: 1 }), (k, picks, names) => {
        const [schema, base] = bases[k]!;
        const value = mutate(base, picks, names);
        expect(unknownMembers(schema, value)).toEqual(unknownMembersByJsonSchema(schema, value));
      }),
      { numRuns: 300 },
    );
  });

  it('the two walks agree on each kind of schema part (wrappers, nullable, pipes, lazy, records; intersections and tuples take the JSON Schema)', () => {
    type Tree = { name: string; children?: Tree[] };
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(tree).optional() }));
    const schema = z.object({
      a: z.object({ b: z.string() }).optional(),
      c: z.object({ d: z.number() }).nullable(),
      e: z.object({ f: z.string() }).default({ f: 'x' }),
      g: z.string().transform((s) => s.length).pipe(z.number()),
      h: z.preprocess((v) => v, z.object({ i: z.string() })),
      j: z.record(z.string(), z.object({ k: z.string() })),
      l: z.object({}),
      m: z.intersection(z.object({ n: z.string() }), z.object({ o: z.string() })),
      p: z.tuple([z.object({ q: z.string() })]),
      r: tree,
      s: z.discriminatedUnion('kind', [z.object({ kind: z.literal('one'), t: z.string() }), z.object({ kind: z.literal('two'), u: z.string() })]),
      v: z.array(z.object({ w: z.string() }).readonly()).catch([]),
    });
    const values = [
      { a: { b: 'x', extra: 1 }, c: { d: 1, extra: 1 }, e: { f: 'y', extra: 1 }, g: 'x', h: { i: 'x', extra: 1 }, j: { any: { k: 'x', extra: 1 } }, l: { extra: 1 }, r: { name: 'a', children: [{ name: 'b', extra: 1 }] }, s: { kind: 'one', t: 'x', u: 'y', extra: 1 }, v: [{ w: 'x', extra: 1 }], top: 1 },
      { m: { n: 'x', o: 'y', extra: 1 }, p: [{ q: 'x', extra: 1 }] },
      { a: null, c: null, e: [], g: { odd: 1 }, l: [1], r: [] },
    ];
    for (const value of values) expect(unknownMembers(schema, value)).toEqual(unknownMembersByJsonSchema(schema, value));
    expect(unknownMembers(schema, values[0])).toEqual(expect.arrayContaining(['a.extra', 'e.extra', 'l.extra', 'r.children[0].extra', 's.extra', 'v[0].extra', 'top']));
  });
});
