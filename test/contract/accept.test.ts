// The accepters of src/contract/accept-generated.ts against their schemas: the file is what
// the schemas generate today, and for thousands of values, valid and broken, an accepter
// says yes only where zod says yes and then returns what zod returns, key order included.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { check, NO, type Checked } from '../../src/contract/accept.js';
import { ACCEPTED, GENERATED_FILE, generateAcceptors } from '../../src/contract/accept-codegen.js';
import * as generated from '../../src/contract/accept-generated.js';

const root = join(import.meta.dirname, '..', '..');

async function contractModules(): Promise<Record<string, Record<string, unknown>>> {
  const modules: Record<string, Record<string, unknown>> = {};
  for (const module of Object.keys(ACCEPTED)) modules[module] = (await import(`../../src/contract/${module}.ts`)) as Record<string, unknown>;
  return modules;
}

/** A text of the value that keeps what toEqual ignores: key order, undefined members, -0, prototypes. */
function exactly(value: unknown): string {
  const seen = (v: unknown): unknown => {
    if (v === undefined) return '<undefined>';
    if (Object.is(v, -0)) return '<-0>';
    if (Array.isArray(v)) return v.map(seen);
    if (typeof v === 'object' && v !== null) {
      return { '<proto>': Object.getPrototypeOf(v) === Object.prototype ? 'Object' : String(Object.getPrototypeOf(v)), ...Object.fromEntries(Object.keys(v).map((k) => [k, seen((v as Record<string, unknown>)[k])])), '<keys>': Object.keys(v) };
    }
    return v;
  };
  return JSON.stringify(seen(value));
}

/** A small seeded generator, so that a failure can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = ['', 'a', 'ab', '\u{1F600}', '\uD83D', '\uDE00', 'x\u{1F600}', 'R-2025-000871', ' ', 'é', '0', 'null'];
const ODD = [undefined, null, 0, -0, 1, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, -(2 ** 53), true, false, '', 'text', [], {}, Object.create(null), new Date(0)];

/** A value for `schema`: valid when `valid`, else anything from ODD at random places. */
function sample(schema: z.core.$ZodType, next: () => number, valid: boolean): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  if (!valid && next() < 0.15) return pick(ODD);
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'string':
      return pick(valid ? STRINGS.filter((s) => z.safeParse(schema, s).success) : STRINGS);
    case 'number':
      return pick(valid ? [0, 1, 7, 2 ** 31, 0.5, -0].filter((n) => z.safeParse(schema, n).success) : [0, 1, -1, 0.5, -0, 2 ** 53, Number.NaN]);
    case 'boolean':
      return next() < 0.5;
    case 'enum':
      return pick([...Object.values(def.entries as object), ...(valid ? [] : ['OTHER'])]);
    case 'unknown':
      return pick([1, 'x', null, { nested: [1] }, [], undefined]);
    case 'optional':
      return next() < 0.3 ? undefined : sample(def.innerType as z.core.$ZodType, next, valid);
    case 'array': {
      const length = Math.floor(next() * 4);
      return Array.from({ length }, () => sample(def.element as z.core.$ZodType, next, valid));
    }
    case 'object': {
      const shape = def.shape as Record<string, z.core.$ZodType>;
      const keys = Object.keys(shape);
      // Keys in a shuffled order, some absent, and extra ones (integer-like ones too, which
      // objects order first).
      const order = [...keys, 'extra', '7', '__proto__'].sort(() => next() - 0.5);
      const entries: string[] = [];
      for (const key of order) {
        const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
        if (field === undefined) {
          if (next() < 0.3 && (key !== '__proto__' || !valid)) entries.push(`${JSON.stringify(key)}:${JSON.stringify(pick([1, 'x', null, { a: 1 }]))}`);
          continue;
        }
        const value = sample(field, next, valid);
        if (value === undefined && (field._zod.optin === 'optional' || !valid) && next() < 0.7) continue;
        entries.push(`${JSON.stringify(key)}:${value === undefined ? 'null' : JSON.stringify(value)}`);
      }
      // Through JSON.parse, as answers are: an own __proto__ key stays a key.
      const made = JSON.parse(`{${entries.join(',')}}`) as Record<string, unknown>;
      if (!valid && next() < 0.1) for (const key of keys) if (next() < 0.3) made[key] = undefined;
      return made;
    }
    default:
      throw new Error(`no sample for ${def.type}`);
  }
}

describe('accepters generated from the schemas (src/contract/accept-generated.ts)', () => {
  it('the committed file is what the schemas generate today', async () => {
    const committed = readFileSync(join(root, GENERATED_FILE), 'utf8');
    expect(committed === generateAcceptors(await contractModules()), `${GENERATED_FILE} is out of date: run npm run gen:acceptors`).toBe(true);
  });

  for (const [module, names] of Object.entries(ACCEPTED)) {
    for (const name of names) {
      it(`${name}: yes only where zod says yes, returning exactly what zod returns`, async () => {
        const schema = (await contractModules())[module]?.[name] as z.ZodType;
        const accepter = (generated as unknown as Record<string, Checked<unknown>>)[name] as Checked<unknown>;
        const next = random(0x5eed + name.length);
        let yes = 0;
        let validTried = 0;
        for (let i = 0; i < 4000; i++) {
          const valid = i % 2 === 0;
          const value = sample(schema as unknown as z.core.$ZodType, next, valid);
          const zod = schema.safeParse(value);
          const accepted = accepter.accept(value);
          if (accepted !== NO) {
            yes++;
            expect(zod.success, `accepted what zod refuses: ${exactly(value)}`).toBe(true);
            expect(exactly(accepted), `for ${exactly(value)}`).toBe(exactly(zod.data));
          }
          if (valid && zod.success) {
            validTried++;
            // The point of an accepter: a valid answer as JSON gives it never needs zod.
            const viaJson = JSON.parse(JSON.stringify(value)) as unknown;
            if (schema.safeParse(viaJson).success && !JSON.stringify(value).includes('"__proto__"')) {
              expect(accepter.accept(viaJson), `declined a valid ${exactly(viaJson)}`).not.toBe(NO);
            }
          }
          // check() gives zod's verdict whichever way it goes.
          const checked = await check(accepter, value);
          expect(checked.success).toBe(zod.success);
        }
        expect(yes).toBeGreaterThan(1000);
        expect(validTried).toBeGreaterThan(1000);
      });
    }
  }

  it('a value the accepter declines is checked by the schema, with its messages', async () => {
    const result = await check(generated.OutboxMessageList, [{ messageId: '', to: 'a@b.c', documentNumber: 'R-1', createdAt: 'now', size: -1 }]);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error.issues.map((i) => i.path.join('.'))).toEqual(['0.messageId', '0.size']);
  });

  it('refuses to generate what it cannot repeat exactly, naming where', () => {
    const cases: [z.ZodType, RegExp][] = [
      [z.looseObject({ a: z.string().refine((s) => s !== 'x') }), /no accepter for Bad\.a: a custom check/],
      [z.object({ a: z.string().transform((s) => s.length) }), /no accepter for Bad\.a: a pipe/],
      [z.array(z.union([z.string(), z.number()])), /no accepter for Bad\[\]: a union/],
      [z.object({ a: z.number().default(1) }), /no accepter for Bad\.a: a default/],
      [z.string().email(), /no accepter for Bad: a string_format \(email\) check/],
      [z.object({ constructor: z.string() }), /no accepter for Bad\.constructor: a key every object has/],
    ];
    for (const [schema, message] of cases) expect(() => generateAcceptors({ m: { Bad: schema } }, { m: ['Bad'] })).toThrow(message);
  });

  it('src/ loads zod at run time only through src/contract/zod.ts (which applies the mode a command chose)', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts') && path !== join(root, 'src', 'contract', 'zod.ts')) {
          const text = readFileSync(path, 'utf8');
          if (/^import (?!type )[^;]*from 'zod(\/[^']*)?';/m.test(text) || /import\('zod/.test(text)) offenders.push(path.slice(root.length + 1));
        }
      }
    };
    walk(join(root, 'src'));
    expect(offenders).toEqual([]);
  });
});
