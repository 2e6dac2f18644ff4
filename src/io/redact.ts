// Redaction for anything that may reach a terminal or a log: the --debug HTTP trace above
// all. Every function here is total (never throws) and fails closed: when in doubt a value
// is replaced, because a trace pasted into an issue must be safe to share.

export const REDACTED = '[redacted]';

const MASK = '••••';
const MAX_DEPTH = 64;

// Credentials whose value must never be shown. Keys are compared after lower-casing and
// dropping "_" and "-", so client_secret, clientSecret and Client-Secret are one key.
// `code` is matched exactly: reasonCode, unitCode or currencyCode are ordinary data.
const SECRET_KEY = /^(code|authorization|cookie)$|(token|secret|password|passphrase|privatekey|privatekeypem|apikey|codeverifier)$/;
// Decrypted customer identifiers: the last 4 characters stay, so a person can tell them apart.
const MASKED_KEY = /(iban|cardnumber)$/;
// An OAuth redirect parameter that is no credential by name but lets a callback be forged.
const STATE_PARAM = 'state';

const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-service-signature',
]);

// Headers whose value is (or holds) a URL: a redirect's Location carries the OAuth code and
// state, so their query and fragment parameters are redacted as a request's URL is.
const URL_HEADERS = new Set(['location', 'content-location', 'referer', 'refresh', 'link']);

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '');
}

function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(normalizeKey(key));
}

function isMaskedKey(key: string): boolean {
  return MASKED_KEY.test(normalizeKey(key));
}

/**
 * A card number or IBAN reduced to its last 4 characters, e.g. "•••• 1234". Spaces and dashes
 * are ignored, and the length is not revealed; 4 characters or fewer are masked entirely.
 */
export function maskLast4(value: string): string {
  const compact = String(value).replace(/[\s-]/g, '');
  return compact.length <= 4 ? MASK : `${MASK} ${compact.slice(-4)}`;
}

/**
 * Header values with credentials replaced; the scheme of Authorization ("Bearer") stays visible,
 * and a URL a header carries (Location, Referer, ...) has its secret parameters redacted.
 */
export function redactHeaders(
  headers: Readonly<Record<string, string | number | readonly string[] | undefined>>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  try {
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const lower = name.toLowerCase();
      const shown: string | string[] = Array.isArray(value) ? [...(value as readonly string[])] : String(value);
      if (URL_HEADERS.has(lower)) setOwn(out, name, Array.isArray(shown) ? shown.map(redactUrl) : redactUrl(shown));
      else if (!SECRET_HEADERS.has(lower)) setOwn(out, name, shown);
      else if (lower.endsWith('authorization') && typeof shown === 'string') setOwn(out, name, redactAuthorization(shown));
      else setOwn(out, name, Array.isArray(shown) ? shown.map(() => REDACTED) : REDACTED);
    }
  } catch {
    return { headers: REDACTED };
  }
  return out;
}

function redactAuthorization(value: string): string {
  const scheme = /^([A-Za-z][\w.-]*)\s+\S/.exec(value);
  return scheme ? `${scheme[1]} ${REDACTED}` : REDACTED;
}

/**
 * A copy of a JSON-like value with secret members replaced and card numbers/IBANs masked,
 * at any depth and inside arrays. The input is not modified.
 */
export function redactJson(value: unknown): unknown {
  try {
    return walk(value, new WeakSet(), 0);
  } catch {
    return REDACTED;
  }
}

function walk(value: unknown, ancestors: WeakSet<object>, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (ancestors.has(value)) return '[circular]';
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return walk(toJSON.call(value), ancestors, depth + 1);
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => walk(item, ancestors, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      setOwn(out, key, redactMember(key, member, ancestors, depth + 1));
    }
    return out;
  } finally {
    // Only the current path counts as a cycle: the same object shared by two siblings is shown twice.
    ancestors.delete(value);
  }
}

function redactMember(key: string, member: unknown, ancestors: WeakSet<object>, depth: number): unknown {
  // An empty or null secret is shown as it is: its absence is what one debugs.
  if (isSecretKey(key)) return member === null || member === undefined || member === '' ? member : REDACTED;
  if (isMaskedKey(key)) return maskDeep(member, ancestors, depth);
  return walk(member, ancestors, depth);
}

function maskDeep(value: unknown, ancestors: WeakSet<object>, depth: number): unknown {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return maskLast4(String(value));
  if (Array.isArray(value)) {
    return depth >= MAX_DEPTH ? REDACTED : value.map((item) => maskDeep(item, ancestors, depth + 1));
  }
  return walk(value, ancestors, depth);
}

// Plain assignment would turn a "__proto__" member of parsed JSON into a prototype change.
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The URL with secret query and fragment parameters (code, state, code_verifier, token, ...)
 * replaced, card numbers/IBANs masked, and any userinfo password removed. The rest of the
 * text is kept byte for byte, so the result reads like the request that was sent.
 */
export function redactUrl(url: string): string {
  try {
    const userinfo = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i.exec(url);
    let rest = url;
    let prefix = '';
    if (userinfo) {
      const user = (userinfo[2] ?? '').split(':')[0] ?? '';
      prefix = `${userinfo[1] ?? ''}${user}${(userinfo[2] ?? '').includes(':') ? `:${REDACTED}` : ''}@`;
      rest = url.slice(userinfo[0].length);
    }
    return prefix + rest.replace(/([?#])([^#]*)/g, (_m, mark: string, params: string) => `${mark}${redactParams(params)}`);
  } catch {
    return REDACTED;
  }
}

function redactParams(params: string): string {
  return params
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = safeDecode(pair.slice(0, eq));
      const value = pair.slice(eq + 1);
      if (isSecretKey(name) || normalizeKey(name) === STATE_PARAM) return `${pair.slice(0, eq)}=${REDACTED}`;
      if (isMaskedKey(name)) return `${pair.slice(0, eq)}=${maskLast4(safeDecode(value))}`;
      return pair;
    })
    .join('&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
