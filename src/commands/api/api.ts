// `svc api METHOD PATH`: any operation of the interface with the profile's base URL and
// credentials, the way `gh api` does it. The same client as every command: retries where
// they are safe, a token renewed after a 401, the exit codes of docs/interface-decisions.md#exit-codes for a refusal. The
// credentials follow the path: a read_stores token of that Grant for GET /oauth2/grants/{id},
// the usual token for /oauth2/token/validate, none for the other /oauth2/ and /sandbox/ paths,
// the company API key (or else a manage_client_applications token) for the public key, and for
// the rest what `receipt send` uses (the Grant's write_receipts token, or the company API key).
import { writeReceiptsCaller } from '../../auth/caller.js';
import { refuseEmptyCredentials } from '../../auth/credentials.js';
import { MANAGE_SCOPE } from '../../keys/client-application.js';
import { DETAILS_SCOPE } from '../../auth/grant-details.js';
import type { ApiKeyAuth, Method, TokenSource } from '../../api/client.js';
import { ApiError, AuthError, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { readJsonInput } from '../../io/input.js';
import { printable } from '../../io/printable.js';

export interface ApiOptions {
  method: string;
  path: string;
  field?: string[] | undefined;
  rawField?: string[] | undefined;
  input?: string | undefined;
  header?: string[] | undefined;
  include?: boolean | undefined;
}

const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export async function run(opts: ApiOptions, f: Factory): Promise<void> {
  const method = opts.method.toUpperCase() as Method;
  if (!METHODS.includes(method)) throw new UsageError(`${opts.method} is not a method svc api sends`, { hint: `use one of ${METHODS.join(', ')}` });
  if (!opts.path.startsWith('/')) {
    throw new UsageError(`the path must start with / (it is below the profile's base URL): ${opts.path}`, { hint: 'e.g. svc api GET /credit-note' });
  }
  const params = [...(opts.field ?? []).map((p) => parseParam(p, '--field', true)), ...(opts.rawField ?? []).map((p) => parseParam(p, '--raw-field', false))];
  const inQuery = method === 'GET' || method === 'DELETE';
  if (opts.input !== undefined && params.length > 0 && !inQuery) {
    throw new UsageError('--input and --field/--raw-field both give the body', { hint: 'put the fields into the input file, or leave out --input' });
  }
  const body = opts.input !== undefined ? await readJsonInput(opts.input, f) : !inQuery && params.length > 0 ? Object.fromEntries(params) : undefined;
  const query = inQuery ? Object.fromEntries(params.map(([k, v]) => [k, v === null ? 'null' : String(v)])) : undefined;
  const headers = Object.fromEntries((opts.header ?? []).map(parseHeader));

  const api = await f.api();
  // The caller's own credential header is sent as given: svc adds none of its own, so a 401
  // is not met with a token of svc's renewed and the request sent again.
  const ownCredential = OWN_CREDENTIAL_HEADERS.find((name) => headers[name] !== undefined);
  const auth = ownCredential === undefined ? await credentialsFor(f, opts.path) : undefined;
  const request = { method, path: opts.path, ...(query ? { query } : {}), ...(body !== undefined ? { body } : {}), headers, ...(auth ? { auth } : {}), accept: 'application/json' };
  const res = await api.requestRaw(request).catch((error: unknown) => {
    throw ownCredential === undefined ? error : refusedOwnCredential(error, ownCredential);
  });
  if (opts.include) {
    // Before the body, and never through --jq, which filters the body only (as `gh api -i --jq`).
    const out = f.io.unfilteredStdout ?? f.io.stdout;
    out.write(`HTTP ${res.status}\n`);
    for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out.write(`${name}: ${Array.isArray(value) ? value.join(', ') : value}\n`);
    out.write('\n');
  }
  f.io.stdout.write(res.body);
  if (res.body.length > 0 && res.body[res.body.length - 1] !== 0x0a) f.io.stdout.write('\n');
}

/** Headers that carry a credential of the caller's own (names as parseHeader gives them), shown as written in the docs. */
const OWN_CREDENTIAL_HEADERS = ['authorization', 'x-api-key'] as const;
const SHOWN_NAME = { authorization: 'Authorization', 'x-api-key': 'X-API-Key' } as const;

/** A 401 to the caller's own header: that header is what was refused (named, never its value), not a login of svc's. */
function refusedOwnCredential(error: unknown, header: (typeof OWN_CREDENTIAL_HEADERS)[number]): unknown {
  if (!(error instanceof ApiError) || error.status !== 401) return error;
  const name = SHOWN_NAME[header];
  return new AuthError(`the service refused the ${name} header given with -H (${error.status} ${error.code})`, {
    hint:
      header === 'authorization'
        ? 'check the token in -H "Authorization: Bearer …" (`svc token get` prints one of this profile\'s), or leave out that -H and svc sends this profile\'s own credentials'
        : 'check the key in -H "X-API-Key: …", or leave out that -H and svc sends this profile\'s own credentials',
    cause: error,
  });
}

/** docs/interface-decisions.md#authentication: the Grant's details want a bearer with read_stores, for that Grant. */
const GRANT_DETAILS = /^\/oauth2\/grants\/([^/?#]+)$/;
/** docs/interface-decisions.md#api-keys: a company API key, or a bearer with manage_client_applications. */
const PUBLIC_KEY = /^\/client-application\/[^/?#]+\/public-key$/;

/** What the path needs (docs/interface-decisions.md#authentication, #oauth-details), and nothing where it needs nothing. */
async function credentialsFor(f: Factory, path: string): Promise<TokenSource | ApiKeyAuth | undefined> {
  const bare = path.replace(/[?#].*$/, '');
  const { tokenSourceFor } = await import('../../auth/session.js');
  const grant = GRANT_DETAILS.exec(bare);
  if (grant) return tokenSourceFor(f, { grant: decodeURIComponent(grant[1]!), scope: DETAILS_SCOPE });
  // Asks about the token it is sent: the one every other command would use.
  if (bare === '/oauth2/token/validate') return (await writeReceiptsCaller(f)).auth;
  if (bare.startsWith('/oauth2/') || bare.startsWith('/sandbox/') || bare === '/openapi.json') return undefined;
  if (bare.startsWith('/client-application')) {
    if (PUBLIC_KEY.test(bare) && !f.env.SVC_TOKEN) {
      // A stored key does not stand in for an empty SVC_API_KEY: that variable is named.
      if (!f.env.SVC_API_KEY) await refuseEmptyCredentials(f);
      const apiKey = await (await f.secrets()).get('api-key');
      if (apiKey) return { apiKey };
    }
    return tokenSourceFor(f, { scope: MANAGE_SCOPE });
  }
  return (await writeReceiptsCaller(f)).auth;
}

/** `key=value`; with typing, true/false/null and numbers held exactly become JSON values. */
function parseParam(text: string, flag: string, typed: boolean): [string, unknown] {
  const at = text.indexOf('=');
  if (at <= 0) throw new UsageError(`${flag}${shownName(text)}: expected key=value`);
  const key = text.slice(0, at);
  const value = text.slice(at + 1);
  if (!typed) return [key, value];
  if (value === 'true' || value === 'false') return [key, value === 'true'];
  if (value === 'null') return [key, null];
  if (/^-?\d+(\.\d+)?$/.test(value) && exactNumber(value)) return [key, Number(value)];
  return [key, value];
}

/**
 * Whether a JavaScript number holds the decimal exactly as typed: an integer up to 2^53 - 1,
 * or at most 15 significant digits. Anything longer (a 20-digit ID) stays a string rather than
 * being sent rounded.
 */
function exactNumber(value: string): boolean {
  if (!value.includes('.')) return Number.isSafeInteger(Number(value));
  const digits = value.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return digits.length <= 15;
}

/**
 * What a malformed parameter is called, without what may be its value: `-H "Authorization
 * Bearer $TOKEN"` must not put the token into a CI log. The text before a space, ':' or '=', else nothing.
 */
function shownName(text: string): string {
  const cut = text.search(/[\s:=]/);
  return cut > 0 ? ` ${text.slice(0, cut)}…` : '';
}

/** A header's name is an RFC 9110 (RFC 7230) token: no spaces, no separators, ASCII only. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header's value may carry (Node's rule): tab, printable ASCII and Latin-1; never CR, LF, NUL or another control. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers whose name, typed without its colon, is followed by a credential. */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|x-api-key|cookie)$/i;

/** Checked before any request: a malformed header would otherwise fail in the HTTP stack, as if the service could not be reached. */
function parseHeader(text: string): [string, string] {
  const at = text.indexOf(':');
  if (at <= 0) throw new UsageError(`--header${shownName(text)}: expected "Name: value"`);
  const name = text.slice(0, at).trim();
  const value = text.slice(at + 1).trim();
  if (!HEADER_NAME.test(name)) {
    const spaced = /\s/.test(name);
    throw new UsageError(`--header ${shownHeaderName(name)}: not a header name (letters, digits and ${"!#$%&'*+.^_`|~-"} only${spaced ? ', no spaces' : ''})`, {
      hint: spaced ? 'a header is "Name: value", its name one word ending at the first ":", e.g. -H "X-Request-Id: 42"' : 'give it as "Name: value", e.g. -H "X-Request-Id: 42"',
    });
  }
  if (!HEADER_VALUE.test(value)) {
    // The value is never shown: it may be a token.
    throw new UsageError(`--header ${name.toLowerCase()}: its value holds a line break or another character a header cannot carry (a control character, or one beyond Latin-1)`, {
      hint: 'give one header per -H, its value on one line',
    });
  }
  return [name.toLowerCase(), value];
}

/**
 * A refused header name, quoted: `-H "Authorization Bearer $TOKEN:…"` shows only its first
 * word, since what follows a credential header's name is the credential.
 */
function shownHeaderName(name: string): string {
  const first = name.split(/\s/)[0] ?? '';
  return /\s/.test(name) && CREDENTIAL_HEADER.test(first) ? `"${printable(first)} …"` : JSON.stringify(printable(name));
}
