// The parser of a repeatable flag. The command definitions give it to each flag that may be
// repeated, and the completion tree (tree.ts) knows a flag repeats by it: so it lives here,
// below both.

/** Collects repeated flags (`--item a --item b`) into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
