// Members of an input file that its schema does not name (`products[0].colour`): the
// contract's objects are loose (CONTRACT: unknown members are kept, for a service newer than
// svc), so a typo would be sent and signed into the document without a word. The schema's
// JSON Schema is walked beside the value; a member is unknown when no branch of a union
// names it.
import * as z from 'zod';
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
      const memberPath = !/^[A-Za-z_$][\w$]*$/.test(key) ? `${path}[${JSON.stringify(key)}]` : path === '' ? key : `${path}.${key}`;
      const declared = properties.find((p) => Object.hasOwn(p, key));
      if (declared) out.push(...walk(declared[key]!, member, memberPath));
      else out.push(memberPath);
    }
    return out;
  };
  return walk(root, value, '');
}
