// Responses checked without loading zod. Loading zod and building a command's schemas is about
// a third of what a one-request command adds to a bare request (docs/benchmarks.md#start-up),
// yet nearly every answer is valid. So a schema on that path also has an accepter, generated
// from the schema itself (src/contract/accept-codegen.ts, `npm run gen:acceptors`): plain
// code that returns exactly what the schema's parse would return for a value it is sure of,
// and NO otherwise. On NO the schema is loaded and decides, with its own messages: an accepter
// only ever saves time; what is valid, and what a parse returns, stay the schema's.
import type { ZodType } from 'zod';

/** What an accepter returns when the schema must decide: the value is invalid, or unusual. */
export const NO: unique symbol = Symbol('the schema decides');

export type Accepter<T> = (value: unknown) => T | typeof NO;

/** A schema with an accepter in front of it; the schema itself is loaded only when needed. */
export interface Checked<T> {
  /** The schema's name, for messages. */
  readonly name: string;
  readonly accept: Accepter<T>;
  /** The zod schema (its module is imported on the first call). */
  schema(): Promise<ZodType<T>>;
}

/** The subset of zod's safeParse result that callers read. */
export type Checking<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };

export function checked<T>(name: string, accept: Accepter<T>, schema: () => Promise<ZodType<T>>): Checked<T> {
  let loaded: Promise<ZodType<T>> | undefined;
  return { name, accept, schema: () => (loaded ??= schema()) };
}

export function isChecked<T>(schema: ZodType<T> | Checked<T>): schema is Checked<T> {
  return typeof (schema as Partial<Checked<T>>).accept === 'function';
}

/** `schema.safeParse(value)`, through the accepter first when the schema has one. */
export async function check<T>(schema: ZodType<T> | Checked<T>, value: unknown): Promise<Checking<T>> {
  if (!isChecked(schema)) return schema.safeParse(value);
  const accepted = schema.accept(value);
  if (accepted !== NO) return { success: true, data: accepted };
  return (await schema.schema()).safeParse(value);
}

// What generated accepters call. Each repeats what zod does for a value that passes, so that
// the accepter says yes exactly when zod would; anything else is NO.

/** A plain object (as JSON.parse makes them): zod reads keys through `in` and `for…in`, which agree with own keys only there. */
export function plainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** A finite number (zod's number type). */
export function finiteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Zod's string length: Unicode code points, where they can differ from UTF-16 units. */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

/** Zod's min_length check on a string or an array. */
export function atLeast(value: string | readonly unknown[], minimum: number): boolean {
  const units = value.length;
  return (typeof value === 'string' && units >= minimum && units < minimum * 2 ? codePoints(value) : units) >= minimum;
}

/** Zod's max_length check on a string or an array. */
export function atMost(value: string | readonly unknown[], maximum: number): boolean {
  const units = value.length;
  return (typeof value === 'string' && units > maximum ? codePoints(value) : units) <= maximum;
}
