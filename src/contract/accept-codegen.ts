// Writes src/contract/accept-generated.ts (`npm run gen:acceptors`): for each schema named in
// ACCEPTED, an accepter (src/contract/accept.ts) generated from the schema's own definition.
// Only what can be repeated exactly is generated: strings, finite numbers and integers,
// booleans, null, enums and literals, unknown, optional, nullable, arrays, and objects whose
// unknown keys are kept, dropped or refused; with zod's length, size, regex and integer
// checks. Anything else (a refinement, a transform, a default, a union, another format) stops
// the generation with its path: such a schema is left to zod. test/contract/accept.test.ts
// keeps the file in step with the schemas and compares every accepter with its schema.
import type * as z from 'zod';

/** The schemas given accepters, by module of src/contract: those a one-request command reads. */
export const ACCEPTED: Readonly<Record<string, readonly string[]>> = {
  error: ['ErrorBody'],
  'sandbox-inspect': ['OutboxMessageList', 'SandboxDeliveryList'],
};

export const GENERATED_FILE = 'src/contract/accept-generated.ts';

interface Def {
  type: string;
  checks?: readonly z.core.$ZodCheck[];
  check?: string;
  format?: string;
  pattern?: RegExp;
  coerce?: boolean;
  innerType?: z.core.$ZodType;
  element?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  catchall?: z.core.$ZodType;
  entries?: Record<string, unknown>;
  values?: readonly unknown[];
}

interface CheckDef {
  check: string;
  minimum?: number;
  maximum?: number;
  value?: unknown;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
  when?: unknown;
}

/** The generated module's text, from the modules' exports (`import('./error.js')` and so on). */
export function generateAcceptors(modules: Readonly<Record<string, Record<string, unknown>>>, accepted: Readonly<Record<string, readonly string[]>> = ACCEPTED): string {
  const functions: string[] = [];
  const constants: string[] = [];
  const names = new Map<z.core.$ZodType, string>();
  const bodies = new Map<string, string>();
  const helpers = new Set<string>(['NO', 'checked', 'type Checked']);

  const fail = (path: string, why: string): never => {
    throw new Error(`no accepter for ${path}: ${why} (leave the schema to zod, or teach src/contract/accept-codegen.ts)`);
  };

  const constant = (expression: string): string => {
    const name = `k${constants.length}`;
    constants.push(`const ${name} = ${expression};`);
    return name;
  };

  const literal = (value: unknown, path: string): string => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      return JSON.stringify(value);
    }
    return fail(path, `the value ${String(value)} is not one JSON gives`);
  };

  /** Statements that return NO unless `v` passes the checks. */
  const checksOf = (schema: z.core.$ZodType, kind: 'string' | 'number' | 'array', path: string): string[] => {
    const def = schema._zod.def as unknown as Def;
    const lines: string[] = [];
    const all = [...(def.check !== undefined ? [schema as unknown as z.core.$ZodCheck] : []), ...(def.checks ?? [])];
    for (const check of all) {
      const c = check._zod.def as unknown as CheckDef;
      if (c.when !== undefined && c.check !== 'min_length' && c.check !== 'max_length') fail(path, `a conditional ${c.check} check`);
      if (c.check === 'min_length' && kind !== 'number') {
        helpers.add('atLeast');
        lines.push(`if (!atLeast(v, ${c.minimum})) return NO;`);
      } else if (c.check === 'max_length' && kind !== 'number') {
        helpers.add('atMost');
        lines.push(`if (!atMost(v, ${c.maximum})) return NO;`);
      } else if ((c.check === 'greater_than' || c.check === 'less_than') && kind === 'number' && typeof c.value === 'number') {
        const op = c.check === 'greater_than' ? (c.inclusive ? '>=' : '>') : c.inclusive ? '<=' : '<';
        lines.push(`if (!(v ${op} ${c.value})) return NO;`);
      } else if (c.check === 'number_format' && kind === 'number' && c.format === 'safeint') {
        lines.push('if (!Number.isSafeInteger(v)) return NO;');
      } else if (c.check === 'string_format' && kind === 'string' && (c.format === 'regex' || c.format === 'guid') && c.pattern instanceof RegExp) {
        const pattern = constant(String(c.pattern));
        lines.push(`${pattern}.lastIndex = 0;`, `if (!${pattern}.test(v)) return NO;`);
      } else {
        fail(path, `a ${c.check}${c.format ? ` (${c.format})` : ''} check on a ${kind}`);
      }
    }
    return lines;
  };

  /** The name of a function `(v: unknown): unknown` that returns what `schema` parses `v` to, or NO. */
  const accepter = (schema: z.core.$ZodType, path: string): string => {
    const known = names.get(schema);
    if (known !== undefined) return known;
    const def = schema._zod.def as unknown as Def;
    if (def.coerce) fail(path, 'coercion');
    const plainChecks = () => {
      if (def.check !== undefined || (def.checks?.length ?? 0) > 0) fail(path, `a check on ${def.type}`);
    };
    let body: string[];
    switch (def.type) {
      case 'string':
        body = ["if (typeof v !== 'string') return NO;", ...checksOf(schema, 'string', path), 'return v;'];
        break;
      case 'number':
        helpers.add('finiteNumber');
        body = ['if (!finiteNumber(v)) return NO;', ...checksOf(schema, 'number', path), 'return v;'];
        break;
      case 'boolean':
        plainChecks();
        body = ["return typeof v === 'boolean' ? v : NO;"];
        break;
      case 'null':
        plainChecks();
        body = ['return v === null ? v : NO;'];
        break;
      case 'unknown':
      case 'any':
        plainChecks();
        body = ['return v;'];
        break;
      case 'enum':
      case 'literal': {
        plainChecks();
        const values = def.type === 'enum' ? Object.values(def.entries ?? {}) : (def.values ?? []);
        const set = constant(`new Set<unknown>([${values.map((value) => literal(value, path)).join(', ')}])`);
        body = [`return ${set}.has(v) ? v : NO;`];
        break;
      }
      case 'optional': {
        plainChecks();
        if (schema._zod.optin !== 'optional' || schema._zod.optout !== 'optional') fail(path, 'an optional with a default');
        const inner = accepter(def.innerType as z.core.$ZodType, path);
        body = [`return v === undefined ? undefined : ${inner}(v);`];
        break;
      }
      case 'nullable': {
        plainChecks();
        const inner = accepter(def.innerType as z.core.$ZodType, path);
        body = [`return v === null ? null : ${inner}(v);`];
        break;
      }
      case 'array': {
        const element = accepter(def.element as z.core.$ZodType, `${path}[]`);
        body = [
          'if (!Array.isArray(v)) return NO;',
          ...checksOf(schema, 'array', path),
          'const out: unknown[] = new Array(v.length);',
          'for (let i = 0; i < v.length; i++) {',
          `  const item = ${element}(v[i]);`,
          '  if (item === NO) return NO;',
          '  out[i] = item;',
          '}',
          'return out;',
        ];
        break;
      }
      case 'object':
        plainChecks();
        body = objectBody(def, path);
        break;
      default:
        return fail(path, `a ${def.type}`);
    }
    // Schemas alike (each z.string() is an instance of its own) share one function.
    const text = body.map((line) => `  ${line}`).join('\n');
    const name = bodies.get(text) ?? `a${bodies.size}`;
    if (!bodies.has(text)) {
      bodies.set(text, name);
      functions.push(`function ${name}(v: unknown): unknown {\n${text}\n}`);
    }
    names.set(schema, name);
    return name;
  };

  // Zod's object parse (handlePropertyResult, handleCatchall), for a plain object and keys
  // present or absent, with optional (in and out) or required fields only.
  const objectBody = (def: Def, path: string): string[] => {
    helpers.add('plainObject');
    const shape = def.shape ?? {};
    const keys = Object.keys(shape);
    if (Object.getOwnPropertySymbols(shape).length > 0) fail(path, 'a symbol key');
    const lines = ['if (!plainObject(v)) return NO;', 'const out: Record<string, unknown> = {};'];
    if (keys.length > 0) lines.push('let value: unknown;');
    for (const key of keys) {
      const keyPath = `${path}.${key}`;
      if (key in Object.prototype) fail(keyPath, 'a key every object has');
      const field = shape[key] as z.core.$ZodType;
      const { optin, optout } = field._zod;
      const k = JSON.stringify(key);
      const run = accepter(field, keyPath);
      if (optin === 'optional' && optout === 'optional') {
        lines.push(`if (${k} in v) {`, `  value = ${run}(v[${k}]);`, '  if (value === NO) return NO;', `  out[${k}] = value;`, '}');
      } else if (optin === undefined && optout === undefined) {
        lines.push(`if (!(${k} in v)) return NO;`, `value = ${run}(v[${k}]);`, 'if (value === NO) return NO;', `out[${k}] = value;`);
      } else {
        fail(keyPath, `a field ${optin ?? 'required'} in and ${optout ?? 'required'} out`);
      }
    }
    const catchall = def.catchall?._zod.def.type;
    if (catchall === 'unknown') {
      const known = constant(`new Set<string>(${JSON.stringify(keys)})`);
      lines.push('for (const key in v) {', `  if (key !== '__proto__' && !${known}.has(key)) out[key] = v[key];`, '}');
    } else if (catchall === 'never') {
      const known = constant(`new Set<string>(${JSON.stringify(keys)})`);
      lines.push('for (const key in v) {', `  if (!${known}.has(key)) return NO;`, '}');
    } else if (catchall !== undefined) {
      fail(path, `unknown keys checked as ${catchall}`);
    }
    lines.push('return out;');
    return lines;
  };

  const exports: string[] = [];
  const imports: string[] = [];
  for (const [module, wanted] of Object.entries(accepted)) {
    const exported = modules[module] ?? fail(module, 'no such module given');
    imports.push(`import type { ${wanted.map((name) => `${name} as ${name}Schema`).join(', ')} } from './${module}.js';`);
    for (const name of wanted) {
      const schema = (exported[name] as z.core.$ZodType | undefined) ?? fail(`${module}.${name}`, 'not exported');
      const run = accepter(schema, name);
      exports.push(
        `export const ${name}: Checked<z.output<typeof ${name}Schema>> = checked(${JSON.stringify(name)}, ${run} as (v: unknown) => z.output<typeof ${name}Schema> | typeof NO, async () => (await import('./${module}.js')).${name});`,
      );
    }
  }
  const helperList = [...helpers].sort((a, b) => a.replace('type ', '').localeCompare(b.replace('type ', '')));
  return [
    '// Generated by `npm run gen:acceptors` (src/contract/accept-codegen.ts) from the schemas it names: do not edit.',
    '// Each accepter returns what its schema would parse a value to, or NO where the schema must decide.',
    "import type * as z from 'zod';",
    `import { ${helperList.join(', ')} } from './accept.js';`,
    ...imports,
    '',
    ...constants,
    '',
    ...functions.flatMap((f) => [f, '']),
    ...exports,
    '',
  ].join('\n');
}
