// RFC 8785 JSON Canonicalization Scheme. The RFC defines string and number serialization as
// ECMAScript's JSON.stringify, so only member order, whitespace and the value walk are ours.
// Anything JSON.stringify would drop or convert (undefined members, toJSON) is treated the same.

/** Canonical JSON text of `value`; throws TypeError for NaN, Infinity, BigInt, cycles or no JSON representation. */
export function canonicalize(value: unknown): string {
  const text = serialize(value, '', new Set());
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

function serialize(input: unknown, key: string, ancestors: Set<object>): string | undefined {
  const value = hasToJson(input) ? input.toJSON(key) : input;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      // JSON.stringify would silently write null for these; a hash over that would hide the bug.
      if (!Number.isFinite(value)) throw new TypeError(`${value} is not representable in JSON`);
      return JSON.stringify(value);
    case 'bigint':
      throw new TypeError('BigInt is not representable in JSON');
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (ancestors.has(value)) throw new TypeError('cannot canonicalize a circular structure');
  ancestors.add(value);
  let text: string;
  if (Array.isArray(value)) {
    // Array.from visits holes of sparse arrays, which map() would skip.
    text = `[${Array.from(value, (item: unknown, i) => serialize(item, String(i), ancestors) ?? 'null').join(',')}]`;
  } else {
    const record = value as Record<string, unknown>;
    const members: string[] = [];
    // Default sort compares UTF-16 code units, which is the order RFC 8785 §3.2.3 requires.
    for (const name of Object.keys(record).sort()) {
      const member = serialize(record[name], name, ancestors);
      if (member !== undefined) members.push(`${JSON.stringify(name)}:${member}`);
    }
    text = `{${members.join(',')}}`;
  }
  ancestors.delete(value);
  return text;
}

function hasToJson(value: unknown): value is { toJSON(key: string): unknown } {
  return (
    typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}
