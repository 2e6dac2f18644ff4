// Members of an input file that its schema does not name (`products[0].colour`): the
// contract's objects are loose (docs/interface-decisions.md#unknown-members-and-values: unknown members are kept, for a service newer than
// svc), so a typo would be sent and signed into the document without a word. The schema's
// JSON Schema is walked beside the value; a member is unknown when no branch of a union
// names it. Building that JSON Schema costs a one-receipt `receipt send` ~10 ms (zod's
// generator runs cold once per process), so the zod schema itself is walked where it is made
// of what the JSON Schema would say plainly (objects, arrays, unions, wrappers, scalars), with
// the same answers (test/contract/unknown-members.test.ts holds the two walks together), and
// anything else (an intersection, a tuple...) takes the JSON Schema.
import * as z from './zod.js';
import type { ZodType } from 'zod';

type JsonSchema = {
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema | JsonSchema[];
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
};

const cache = new WeakMap<ZodType, JsonSchema>();

/** Paths (`products[0].colour`) of the members of `value` that `schema` does not declare, in document order. */
export function unknownMembers(schema: ZodType, value: unknown): string[] {
  try {
    return walkZod(schema, value, '');
  } catch (error) {
    if (error instanceof NotPlain) return unknownMembersByJsonSchema(schema, value);
    throw error;
  }
}

/** A schema part whose JSON Schema the zod walk does not mirror. */
class NotPlain extends Error {}

/** The zod definition members the walk reads (zod 4's `_zod.def`). */
interface Def {
  type: string;
  shape?: Record<string, ZodType>;
  element?: ZodType;
  options?: ZodType[];
  innerType?: ZodType;
  in?: ZodType;
  out?: ZodType;
  getter?: () => ZodType;
}
const defOf = (schema: ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isTransform = (schema: ZodType): boolean => (schema as unknown as { _zod: { traits: Set<string> } })._zod.traits.has('$ZodTransform');

// What JSON Schema's walk sees of each kind: no properties nor items (nothing below is unknown).
const SCALARS = new Set(['string', 'number', 'int', 'boolean', 'bigint', 'symbol', 'null', 'undefined', 'void', 'never', 'any', 'unknown', 'date', 'enum', 'literal', 'nan', 'template_literal', 'file', 'success', 'record', 'transform', 'custom']);
// Wrappers the JSON Schema replaces by what they wrap (`io: 'input'`).
const WRAPPERS = new Set(['optional', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

function walkZod(schema: ZodType, value: unknown, path: string): string[] {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return walkZod(def.innerType!, value, path);
  if (def.type === 'pipe') return walkZod(isTransform(def.in!) ? def.out! : def.in!, value, path);
  if (def.type === 'lazy') return walkZod(def.getter!(), value, path);
  if (SCALARS.has(def.type)) return [];
  // JSON Schema: anyOf [the schema, {type: null}], whose null branch names nothing.
  if (def.type === 'nullable') return [];
  if (def.type === 'union') {
    const perBranch = def.options!.map((option) => walkZod(option, value, path));
    return perBranch.reduce((common, next) => common.filter((p) => next.includes(p)));
  }
  if (def.type === 'array') {
    if (!Array.isArray(value)) return [];
    return value.flatMap((item, i) => walkZod(def.element!, item, `${path}[${i}]`));
  }
  if (def.type === 'object') {
    const shape = def.shape!;
    if (Object.getOwnPropertySymbols(shape).length > 0) throw new NotPlain();
    if (Array.isArray(value) || value === null || typeof value !== 'object') return [];
    const out: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      const memberPath = memberPathOf(path, key);
      if (Object.hasOwn(shape, key)) out.push(...walkZod(shape[key]!, member, memberPath));
      else out.push(memberPath);
    }
    return out;
  }
  throw new NotPlain();
}

const memberPathOf = (path: string, key: string): string => (!/^[A-Za-z_$][\w$]*$/.test(key) ? `${path}[${JSON.stringify(key)}]` : path === '' ? key : `${path}.${key}`);

/** The same answer from the schema's JSON Schema (zod's generator): the reference walk. */
export function unknownMembersByJsonSchema(schema: ZodType, value: unknown): string[] {
  let root = cache.get(schema);
  if (!root) {
    root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    cache.set(schema, root);
  }
  const defs = { ...root.definitions, ...root.$defs };
  const resolve = (s: JsonSchema): JsonSchema => {
    let current = s;
    for (let i = 0; current.$ref && i < 32; i++) current = defs[current.$ref.replace(/^#\/(\$defs|definitions)\//, '')] ?? {};
    return current;
  };
  const walk = (s: JsonSchema, v: unknown, path: string): string[] => {
    const schemaHere = resolve(s);
    const branches = schemaHere.anyOf ?? schemaHere.oneOf;
    if (branches) {
      // Unknown only where every branch says so (the branch the value meant is unknowable).
      const perBranch = branches.map((b) => walk(b, v, path));
      return perBranch.reduce((common, next) => common.filter((p) => next.includes(p)));
    }
    const parts = [schemaHere, ...(schemaHere.allOf ?? []).map(resolve)];
    const out: string[] = [];
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        const itemSchema = schemaHere.prefixItems?.[i] ?? (Array.isArray(schemaHere.items) ? schemaHere.items[i] : schemaHere.items);
        if (itemSchema) out.push(...walk(itemSchema, item, `${path}[${i}]`));
      });
      return out;
    }
    const properties = parts.flatMap((p) => (p.properties ? [p.properties] : []));
    if (v === null || typeof v !== 'object' || properties.length === 0) return out;
    for (const [key, member] of Object.entries(v)) {
      const memberPath = memberPathOf(path, key);
      const declared = properties.find((p) => Object.hasOwn(p, key));
      if (declared) out.push(...walk(declared[key]!, member, memberPath));
      else out.push(memberPath);
    }
    return out;
  };
  return walk(root, value, '');
}
