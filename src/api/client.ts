// The one HTTP client of the CLI (over transport.ts): JSON in and out, CONTRACT.md §4 errors as
// ApiError, bounded retries with full jitter, token renewal after a 401, and a --debug
// trace that goes through src/io/redact.ts so it is safe to paste into an issue.
import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { nodeTransport, readAll, undiciTransport, type Transport } from './transport.js';
import type { ZodType } from 'zod';
import type { Clock } from '../clock.js';
import { ErrorBody } from '../contract/error.js';
import { ApiError, SvcError, UnavailableError } from '../errors.js';
import { redactHeaders, redactJson, redactUrl } from '../io/redact.js';
import type { IOStreams } from '../io/streams.js';
import { VERSION } from '../version.js';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Supplies bearer tokens; on a 401 the client calls `invalidate` and retries once with a new token. */
export interface TokenSource {
  token(): Promise<string>;
  invalidate(): Promise<void>;
}

/** CONTRACT.md §5: a company API key, sent as X-API-Key instead of a bearer token. */
export interface ApiKeyAuth {
  apiKey: string;
}

export interface RequestOptions<T> {
  method: Method;
  /** Path below the base URL, starting with "/". */
  path: string;
  query?: Record<string, string | undefined>;
  /** JSON body. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Validates (and types) the 2xx response body. */
  schema?: ZodType<T>;
  /** Bearer token, a source that can renew it after a 401, or a company API key. */
  auth?: string | TokenSource | ApiKeyAuth;
  /** Sent as Idempotency-Key; also makes a POST safe to retry. */
  idempotencyKey?: string;
  /** Override whether 5xx/connection failures are retried (default: GET/HEAD/PUT/DELETE, or with idempotencyKey). */
  retry?: boolean;
}

export interface RawRequestOptions extends Omit<RequestOptions<never>, 'schema'> {
  /** Accept header, e.g. "application/pdf" (default any). */
  accept?: string;
}

/** A 2xx answer whose body is not decoded: binary downloads such as PDFs. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A 2xx answer whose body is read as it arrives: long lists that are worked on meanwhile. */
export interface StreamedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8 text, piece by piece; a broken connection is an UnavailableError (exit 5). */
  text: AsyncIterable<string>;
}

export interface ApiClient {
  readonly baseUrl: string;
  request<T = unknown>(opts: RequestOptions<T>): Promise<T>;
  requestRaw(opts: RawRequestOptions): Promise<RawResponse>;
  /** Like request, but a 2xx body is handed over unread (retries and errors as for request). */
  requestStream(opts: RawRequestOptions): Promise<StreamedResponse>;
  /** A client like this one whose waits between attempts go through `hooks` (a run over many Grants shares them); close it too. */
  paced?(hooks: Required<Pick<ApiClientOptions, 'sleep' | 'beforeAttempt'>>): ApiClient;
  close(): Promise<void>;
}

export interface ApiClientOptions {
  baseUrl: string;
  io: IOStreams;
  debug: boolean;
  clock: Clock;
  /** Replaces the client's own keep-alive Agent (tests pass a MockAgent); the caller closes it. */
  dispatcher?: Dispatcher;
  /** Waits between retries; tests make it instant. */
  sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1), for the retry jitter. */
  random?: () => number;
  /** Awaited before every attempt: a run over many Grants holds every request while one was told to wait (429). */
  beforeAttempt?: () => Promise<void>;
}

const MAX_ATTEMPTS = 4;
/** Total time spent waiting between attempts; a longer Retry-After fails at once instead. */
const RETRY_BUDGET_MS = 30_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;
const TRACE_BODY_LIMIT = 4096;

const IDEMPOTENT_METHODS: ReadonlySet<Method> = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

// Failures after which the same request may well succeed: refused while the service starts,
// reset by a proxy, or too slow. Only retried where a second delivery is harmless.
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
]);

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Sent {
  method: Method;
  /** The path as the user may see it in errors: no query string. */
  path: string;
  url: string;
  accept: string;
  body: string | undefined;
  jsonBody: unknown;
}

export function createApiClient(opts: ApiClientOptions): ApiClient {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const transport: Transport = opts.dispatcher ? undiciTransport(opts.dispatcher) : nodeTransport();
  const sleep = opts.sleep ?? defaultSleep;
  const random = opts.random ?? Math.random;
  const userAgent = `svc/${VERSION} node/${process.version}`;
  const trace = (text: string) => {
    if (opts.debug) opts.io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  };

  async function send(req: RawRequestOptions, accept: string, stream = false): Promise<Exchanged> {
    const sent: Sent = {
      method: req.method,
      path: pathOf(req.path),
      url: buildUrl(baseUrl, req.path, req.query),
      accept,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      jsonBody: req.body,
    };
    const retryable = req.retry ?? (req.idempotencyKey !== undefined || IDEMPOTENT_METHODS.has(req.method));
    let retries = 0;
    let waitedMs = 0;
    let renewedToken = false;
    // Returns the wait before the next attempt, or undefined when the budget is spent.
    const nextDelay = (retryAfterMs: number | undefined): number | undefined => {
      const backoff = random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retries);
      const delay = Math.ceil(retryAfterMs ?? backoff);
      if (retries + 1 >= MAX_ATTEMPTS || waitedMs + delay > RETRY_BUDGET_MS) return undefined;
      return delay;
    };
    const wait = async (delay: number, why: string) => {
      retries += 1;
      waitedMs += delay;
      trace(`* ${why}: retrying in ${delay} ms (retry ${retries} of ${MAX_ATTEMPTS - 1})`);
      await sleep(delay);
    };

    const refusesLocally = URL.canParse(baseUrl) && LOOPBACK_HOST.test(new URL(baseUrl).hostname);
    for (;;) {
      const headers = await buildHeaders(req, sent, userAgent);
      // After the headers: getting a token may itself take a while (and a request).
      await opts.beforeAttempt?.();
      let res: Exchanged;
      try {
        res = await exchange(transport, sent, headers, { clock: opts.clock, trace, debug: opts.debug, stream });
      } catch (error) {
        const code = transportCode(error);
        if (code === undefined) throw error;
        // Nothing listening on this machine's port: no retry brings it up (2.5 s saved for CI).
        const refusedHere = code === 'ECONNREFUSED' && refusesLocally;
        const delay = retryable && TRANSIENT_CODES.has(code) && !refusedHere ? nextDelay(undefined) : undefined;
        if (delay === undefined) throw unreachable(baseUrl, code, retries + 1, error);
        await wait(delay, `${code} on ${sent.method} ${sent.path}`);
        continue;
      }
      if (res.status >= 200 && res.status < 300) return res;

      const apiError = toApiError(res, sent, opts.clock);
      if (res.status === 401 && typeof req.auth === 'object' && 'invalidate' in req.auth && !renewedToken) {
        renewedToken = true;
        trace('* 401: renewing the token and retrying once');
        await req.auth.invalidate();
        continue;
      }
      if (res.status === 429 || (res.status >= 500 && retryable)) {
        const delay = nextDelay(apiError.retryAfterMs);
        if (delay !== undefined) {
          await wait(delay, `${res.status} on ${sent.method} ${sent.path}`);
          continue;
        }
      }
      throw apiError;
    }
  }

  return {
    baseUrl,
    async request<T>(req: RequestOptions<T>): Promise<T> {
      const res = await send(req, 'application/json');
      const value = parseJson(res, req.method, pathOf(req.path));
      if (!req.schema) return value as T;
      const parsed = req.schema.safeParse(value);
      if (parsed.success) return parsed.data;
      throw unexpectedResponse(
        req.method,
        pathOf(req.path),
        parsed.error.issues.map((issue) => ({ path: issue.path.map((p) => String(p)).join('.'), message: issue.message })),
      );
    },
    async requestRaw(req: RawRequestOptions): Promise<RawResponse> {
      const { status, headers, body } = await send(req, req.accept ?? '*/*');
      return { status, headers, body };
    },
    async requestStream(req: RawRequestOptions): Promise<StreamedResponse> {
      const { status, headers, stream } = await send(req, req.accept ?? 'application/json', true);
      return { status, headers, text: textOf(stream, baseUrl) };
    },
    paced: (hooks) => createApiClient({ ...opts, ...hooks }),
    async close() {
      await transport.close();
    },
  };
}

function pathOf(path: string): string {
  return path.split('?')[0] ?? path;
}

function buildUrl(baseUrl: string, path: string, query: Record<string, string | undefined> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.append(name, value);
  const search = params.toString();
  if (!search) return baseUrl + path;
  return `${baseUrl}${path}${path.includes('?') ? '&' : '?'}${search}`;
}

async function buildHeaders(req: RawRequestOptions, sent: Sent, userAgent: string): Promise<Record<string, string>> {
  const headers: Record<string, string> = { accept: sent.accept, 'user-agent': userAgent };
  if (sent.body !== undefined) headers['content-type'] = 'application/json';
  if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
  if (typeof req.auth === 'object' && 'apiKey' in req.auth) headers['x-api-key'] = req.auth.apiKey;
  else if (req.auth !== undefined) {
    const token = typeof req.auth === 'string' ? req.auth : await req.auth.token();
    headers.authorization = `Bearer ${token}`;
  }
  for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}

/** An answer; with `stream`, a 2xx one's body is left unread in `stream`. */
interface Exchanged extends RawResponse {
  stream?: Readable;
}

interface ExchangeOptions {
  clock: Clock;
  trace: (text: string) => void;
  debug: boolean;
  stream: boolean;
}

async function exchange(
  transport: Transport,
  sent: Sent,
  headers: Record<string, string>,
  { clock, trace, debug, stream }: ExchangeOptions,
): Promise<Exchanged> {
  if (debug) {
    trace(`> ${sent.method} ${redactUrl(sent.url)}`);
    for (const [name, value] of Object.entries(redactHeaders(headers))) trace(`> ${name}: ${String(value)}`);
    if (sent.body !== undefined) trace(prefixLines('> ', truncate(JSON.stringify(redactJson(sent.jsonBody), null, 2))));
  }
  const started = clock.now();
  let res: Awaited<ReturnType<Transport['send']>>;
  let body: Buffer;
  let streamed: Readable | undefined;
  try {
    res = await transport.send(sent.url, { method: sent.method, headers, body: sent.body });
    if (stream && res.statusCode >= 200 && res.statusCode < 300) {
      streamed = res.body;
      body = Buffer.alloc(0);
    } else {
      body = await readAll(res.body);
    }
  } catch (error) {
    trace(`! ${sent.method} ${sent.path} failed after ${clock.now() - started} ms: ${transportCode(error) ?? 'error'}`);
    throw error;
  }
  if (debug) {
    trace(`< ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''} (${clock.now() - started} ms)`);
    for (const [name, value] of Object.entries(redactHeaders(res.headers))) trace(`< ${name}: ${String(value)}`);
    if (streamed !== undefined) trace('< (body read as it arrives, not shown)');
    else if (body.length > 0) trace(prefixLines('< ', describeBody(body, res.headers['content-type'])));
  }
  return { status: res.statusCode, headers: res.headers, body, ...(streamed && { stream: streamed }) };
}

async function* textOf(stream: Readable | undefined, baseUrl: string): AsyncGenerator<string> {
  if (stream === undefined) return;
  stream.setEncoding('utf8');
  try {
    for await (const piece of stream) yield piece as string;
  } catch (error) {
    const code = transportCode(error);
    throw code === undefined ? error : unreachable(baseUrl, code, 1, error);
  }
}

function describeBody(body: Buffer, contentType: string | string[] | undefined): string {
  const type = String(contentType ?? '');
  const text = body.toString('utf8');
  try {
    return truncate(JSON.stringify(redactJson(JSON.parse(text)), null, 2));
  } catch {
    // Not JSON: a proxy's error page is worth seeing, a PDF is not.
    return /^(text\/|application\/(xml|problem))/i.test(type) || type === ''
      ? truncate(text)
      : `(${body.length} bytes of ${type})`;
  }
}

function truncate(text: string): string {
  return text.length <= TRACE_BODY_LIMIT
    ? text
    : `${text.slice(0, TRACE_BODY_LIMIT)}\n… (${text.length - TRACE_BODY_LIMIT} more characters)`;
}

function prefixLines(prefix: string, text: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

/** A 2xx answer that breaks the contract: the first three issues, each with its path. */
export function unexpectedResponse(method: Method, path: string, issues: readonly { path: string; message: string }[]): SvcError {
  const shown = issues.slice(0, 3).map((issue) => `${issue.path || '(root)'}: ${issue.message}`);
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return new SvcError(`unexpected response from the service for ${method} ${path}: ${shown.join('; ')}${more}`, {
    hint: 'the service may be newer than this svc; try upgrading svc',
  });
}

/** A 2xx answer that is not JSON where JSON was asked for. */
export function notJsonResponse(method: Method, path: string, contentType: string | string[] | undefined): SvcError {
  return new SvcError(`unexpected response from the service for ${method} ${path}: not JSON (content-type ${String(contentType ?? 'none')})`);
}

function parseJson(res: RawResponse, method: Method, path: string): unknown {
  if (res.body.length === 0) return undefined;
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    throw notJsonResponse(method, path, res.headers['content-type']);
  }
}

function toApiError(res: RawResponse, sent: Sent, clock: Clock): ApiError {
  const retryAfterMs = parseRetryAfter(res.headers['retry-after'], clock);
  let parsed: ReturnType<typeof ErrorBody.safeParse> | undefined;
  try {
    parsed = ErrorBody.safeParse(JSON.parse(res.body.toString('utf8')));
  } catch {
    parsed = undefined;
  }
  const common = { status: res.status, retryAfterMs, method: sent.method, path: sent.path };
  if (parsed?.success) {
    return new ApiError({
      ...common,
      code: parsed.data.error,
      description: parsed.data.error_description,
      details: parsed.data.details?.map((d) => ({ path: d.path, message: d.message })),
    });
  }
  return new ApiError({ ...common, code: `http_${res.status}`, description: STATUS_CODES[res.status] });
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
function parseRetryAfter(header: string | string[] | undefined, clock: Clock): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - clock.now());
}

/** The socket-level error code of a failed exchange; undefined for anything that is not one (a bug). */
function transportCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  // Node reports a refused dual-stack connect (localhost: ::1 then 127.0.0.1) as an AggregateError.
  const candidates = [error, (error as { errors?: unknown[] }).errors?.[0], (error as { cause?: unknown }).cause];
  for (const candidate of candidates) {
    const code = (candidate as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && code !== 'UND_ERR_INVALID_ARG') return code;
  }
  return undefined;
}

function unreachable(baseUrl: string, code: string, attempts: number, cause: unknown): UnavailableError {
  const host = URL.canParse(baseUrl) ? new URL(baseUrl).hostname : '';
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  return new UnavailableError(`cannot reach the service at ${baseUrl} (${code})${tries}`, {
    cause,
    hint: LOOPBACK_HOST.test(host)
      ? 'is the sandbox running? start it with `svc sandbox start`'
      : 'check the network connection and the base URL (`svc config get base-url`)',
  });
}
