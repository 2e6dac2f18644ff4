// What a JSON input must be beyond its schema, on the CLI and in the sandbox alike:
// - nested at most MAX_JSON_DEPTH levels: deeper input is refused as invalid rather than
//   ending in "Maximum call stack size exceeded" somewhere in the code that walks it;
// - no lone surrogate (U+D800–U+DFFF without its pair) in any string or key: such a string
//   has no UTF-8 form and no canonical JSON (RFC 8785, docs/interface-decisions.md#canonical-json-limits), so no templateHash.
// The walk is iterative, so the check itself cannot overflow the stack.

export const MAX_JSON_DEPTH = 64;

export interface JsonProblem {
  /** Dotted path of the offending value, e.g. `products.0.name`; '' for the root. */
  path: string;
  message: string;
}

export function jsonInputProblem(value: unknown): JsonProblem | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 1 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (!current.isWellFormed()) return { path, message: 'contains a lone surrogate (half of a UTF-16 pair), which has no UTF-8 or canonical JSON form' };
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth > MAX_JSON_DEPTH) return { path, message: `nests deeper than ${MAX_JSON_DEPTH} levels` };
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: join(path, String(i)), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      if (!key.isWellFormed()) return { path: join(path, key.toWellFormed()), message: 'has a key with a lone surrogate, which has no UTF-8 or canonical JSON form' };
      stack.push({ value: (current as Record<string, unknown>)[key], path: join(path, key), depth: depth + 1 });
    }
  }
  return undefined;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
