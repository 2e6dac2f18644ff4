// RFC 8785 JSON Canonicalization Scheme. The RFC defines string and number serialization as
// ECMAScript's JSON.stringify, so only member order, whitespace and the value walk are ours.
// Anything JSON.stringify would drop or convert (undefined members, toJSON) is treated the same.
// It runs on every document svc hashes (templateHash, finalHash), so it is one pass that
// appends to a single string and leaves escaping to JSON.stringify only where needed.

/** Canonical JSON text of `value`; throws TypeError for NaN, Infinity, BigInt, cycles or no JSON representation. */
export function canonicalize(value: unknown): string {
  const text = serialize(value, '', new Set());
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

export interface CanonicalMember {
  name: string;
  /** `"name":value` exactly as it appears in the object's canonical text. */
  text: string;
}

/**
 * The members of a plain object's canonical text, in canonical order, so that a caller can
 * assemble the object's text from them, with members of its own: the canonical text is
 * "{" + texts joined by "," + "}". Members with no JSON representation are left out.
 */
export function canonicalMembers(value: object): CanonicalMember[] {
  const record = value as Record<string, unknown>;
  const members: CanonicalMember[] = [];
  for (const name of Object.keys(record).sort()) {
    const member = serialize(record[name], name, new Set([value]));
    if (member !== undefined) members.push({ name, text: `${quote(name)}:${member}` });
  }
  return members;
}

// Characters JSON.stringify escapes (and lone surrogates, which it writes as \udXXX).
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function serialize(input: unknown, key: string, ancestors: Set<object>): string | undefined {
  const value = hasToJson(input) ? input.toJSON(key) : input;
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // JSON.stringify would silently write null for these; a hash over that would hide the bug.
      if (!Number.isFinite(value)) throw new TypeError(`${value} is not representable in JSON`);
      // Number::toString is JSON's number serialization for finite values (-0 gives "0").
      return String(value);
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
    text = '[';
    // An index loop visits holes of sparse arrays, which forEach/map would skip.
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ',';
      text += serialize(value[i], String(i), ancestors) ?? 'null';
    }
    text += ']';
  } else {
    const record = value as Record<string, unknown>;
    text = '{';
    let first = true;
    // Default sort compares UTF-16 code units, which is the order RFC 8785 §3.2.3 requires.
    for (const name of Object.keys(record).sort()) {
      const member = serialize(record[name], name, ancestors);
      if (member === undefined) continue;
      text += `${first ? '' : ','}${quote(name)}:${member}`;
      first = false;
    }
    text += '}';
  }
  ancestors.delete(value);
  return text;
}

function hasToJson(value: unknown): value is { toJSON(key: string): unknown } {
  return (
    typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}
