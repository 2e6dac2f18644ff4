// Turns zod failures into the `{ path, message }` issues of docs/interface-decisions.md#error-bodies with messages a
// user can act on. The messages come from a per-parse error map rather than `z.config()`, so
// that importing the contract never changes how unrelated zod schemas report errors.
import * as z from './zod.js';
import { ValidationError } from '../errors.js';

export interface Issue {
  /** Dotted path such as `products.0.unitCode`; empty for the value itself. */
  path: string;
  message: string;
}

export type Validated<T> = { success: true; data: T } | { success: false; issues: Issue[] };

/** Parses `value`, or throws `ValidationError` naming `what` ("receipt file", "service response"). */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = validate(schema, value);
  if (!result.success) throw new ValidationError(what, result.issues);
  return result.data;
}

/** Like `schema.safeParse`, with this module's messages; the sandbox answers 400 with `issues` as `details`. */
export function validate<S extends z.ZodType>(schema: S, value: unknown): Validated<z.output<S>> {
  // Without parse options zod takes its compiled fast path, about 3x faster (a queue of
  // thousands is validated item by item); the messages matter only for a value that fails,
  // which is parsed again with them. The error map changes messages, never the verdict.
  const fast = schema.safeParse(value);
  if (fast.success) return { success: true, data: fast.data };
  const result = schema.safeParse(value, { error: contractErrorMap });
  return result.success ? { success: true, data: result.data } : { success: false, issues: issuesOf(result.error) };
}

/**
 * Flattens a ZodError. A failed union reports the branch that got furthest into the value,
 * which is the one the author meant (a known webhook event whose `data` is wrong, say).
 */
export function issuesOf(error: z.ZodError): Issue[] {
  return flatten(error.issues, []);
}

function flatten(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[]): Issue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union') {
      const branch = deepestBranch(issue.errors);
      if (branch !== undefined) return flatten(branch, path);
    }
    return [{ path: path.map(String).join('.'), message: issue.message }];
  });
}

function deepestBranch(branches: readonly z.core.$ZodIssue[][]): z.core.$ZodIssue[] | undefined {
  let best: z.core.$ZodIssue[] | undefined;
  let bestDepth = -1;
  for (const branch of branches) {
    const depth = Math.max(-1, ...branch.map((i) => i.path.length));
    if (depth > bestDepth) {
      best = branch;
      bestDepth = depth;
    }
  }
  return best;
}

/** Messages for zod's built-in checks; schemas that know better set their own. */
export const contractErrorMap: z.core.$ZodErrorMap = (issue) => {
  // An absent member fails whatever check comes first (type, enum value, ...): say what is meant.
  if (issue.input === undefined && issue.code !== 'custom') return 'is required';
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'int') return 'must be a whole number';
      if (issue.expected === 'number' && typeof issue.input === 'number') return 'must be a finite number';
      return `must be ${article(issue.expected)}, not ${article(kindOf(issue.input))}`;
    case 'too_small':
      return tooSmall(issue.origin, Number(issue.minimum), issue.inclusive ?? true);
    case 'too_big':
      return tooBig(issue.origin, Number(issue.maximum), issue.inclusive ?? true);
    case 'invalid_format':
      return FORMAT_MESSAGES[issue.format] ?? `must be a valid ${issue.format}`;
    case 'invalid_value':
      return oneOf(issue.values);
    case 'invalid_union':
      // A discriminated union reports at the discriminator's path, but with the whole object as input.
      if (issue.discriminator !== undefined && Array.isArray(issue.options)) {
        const tag: unknown = isRecord(issue.input) ? issue.input[issue.discriminator] : undefined;
        return tag === undefined ? 'is required' : oneOf(issue.options);
      }
      return 'does not match any accepted form';
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `has unknown members: ${issue.keys.join(', ')}`;
    case 'invalid_key':
      return 'has an invalid key';
    case 'invalid_element':
      return 'has an invalid entry';
    default:
      return undefined;
  }
};

const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  datetime: 'must be an ISO 8601 date-time with a time zone, such as 2024-05-01T12:00:00Z',
  email: 'must be an email address',
  e164: 'must be a phone number in E.164 form, such as +4915112345678',
  base64: 'must be standard Base64 with padding',
  guid: 'must be a UUID',
  uuid: 'must be a UUID',
  url: 'must be an http or https URL',
};

function tooSmall(origin: string, minimum: number, inclusive: boolean): string {
  if (origin === 'string') return minimum <= 1 ? 'must not be empty' : `must be at least ${minimum} characters`;
  if (origin === 'array' || origin === 'set') return minimum <= 1 ? 'must have at least one entry' : `must have at least ${minimum} entries`;
  if (minimum === 0) return inclusive ? 'must not be negative' : 'must be greater than 0';
  return inclusive ? `must be at least ${minimum}` : `must be greater than ${minimum}`;
}

function tooBig(origin: string, maximum: number, inclusive: boolean): string {
  if (origin === 'string') return `must be at most ${maximum} characters`;
  if (origin === 'array' || origin === 'set') return `must have at most ${maximum} entries`;
  return inclusive ? `must be at most ${maximum}` : `must be less than ${maximum}`;
}

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((v) => JSON.stringify(v)).join(', ');
  return values.length === 1 ? `must be ${shown}` : `must be one of ${shown}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function article(kind: string): string {
  if (kind === 'null' || kind === 'undefined') return kind;
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}
