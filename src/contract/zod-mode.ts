// How zod checks values in this process. On a schema's first parse zod generates and compiles
// (new Function) a parser specialised to its shape, about 3x faster per value afterwards; that
// code is not in the bundle, so svc's code cache (src/startup/) cannot keep it, and a command
// that checks a handful of values pays the compiling on every run (~5% of a one-receipt
// `receipt send`'s instructions). Commands that check many values of a kind (a queue of
// thousands, a batch, a listener) keep the compiled parsers; the others interpret. Zod reads
// the choice when a schema is built, so it is made before the command's modules load; and
// it is kept here, without loading zod, which ./zod.ts applies once something loads it (a
// command whose answers have accepters, ./accept.ts, never does).

/** Commands that check many values of one schema: zod's compiled parsers pay for themselves. */
const PARSES_MANY = new Set([
  'credit-note poll',
  'credit-note triage',
  'receipt list',
  'webhook listen',
  'webhook replay',
  'webhook events',
  'sandbox start',
  'grants list',
  'db import',
  'db migrate',
  'demo',
]);

export interface CommandShape {
  /** The command's path without `svc` (`receipt send`). */
  path: string;
  /** Its parsed options. */
  opts: object;
}

/** Whether the command checks many values of a kind (so zod should compile its parsers). */
export function parsesMany({ path, opts }: CommandShape): boolean {
  const o = opts as { batch?: unknown; allGrants?: unknown; grants?: unknown };
  return PARSES_MANY.has(path) || o.batch !== undefined || o.allGrants === true || o.grants !== undefined;
}

interface ZodSettings {
  jitless: boolean;
}

/** The mode chosen (none until a command runs: zod's own default then), and how to apply it. */
let chosen: ZodSettings | undefined;
let apply: ((settings: ZodSettings) => void) | undefined;

/** Sets zod's mode for the command about to run; call before its modules are imported. */
export function setZodMode(command: CommandShape): void {
  chosen = { jitless: !parsesMany(command) };
  apply?.(chosen);
}

/** Called by ./zod.ts when zod loads: applies the mode chosen, now and at each later choice. */
export function onZodLoaded(configure: (settings: ZodSettings) => void): void {
  apply = configure;
  if (chosen !== undefined) configure(chosen);
}
