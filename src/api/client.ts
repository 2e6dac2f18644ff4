// The one HTTP client of the CLI (over transport.ts): JSON in and out, docs/interface-decisions.md#error-bodies errors as
// ApiError, bounded retries with full jitter, token renewal after a 401, and a --debug
// trace that goes through src/io/redact.ts so it is safe to paste into an issue.
import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { networkTransport, readAll, RESPONSE_BYTES, undiciTransport, type Transport } from './transport.js';
import type { ZodType } from 'zod';
import type { Clock } from '../clock.js';
import { check, type Checked } from '../contract/accept.js';
import { ErrorBody } from '../contract/accept-generated.js';
import { ApiError, ProxyError, SvcError, UnavailableError } from '../errors.js';
import { redactHeaders, redactJson, redactUrl } from '../io/redact.js';
import type { IOStreams } from '../io/streams.js';
import { VERSION } from '../version.js';
import { certificateError, isCertificateProblem } from '../net/certificate-problem.js';
import { DEFAULT_ANSWER_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, type NetworkSettings } from '../net/settings.js';
import { humanDuration } from '../io/duration.js';
import { proxyFor, shownProxy } from '../net/proxy-for.js';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Supplies bearer tokens; on a 401 the client calls `invalidate` and retries once with a new token. */
export interface TokenSource {
  token(): Promise<string>;
  invalidate(): Promise<void>;
}

/** docs/interface-decisions.md#api-keys: a company API key, sent as X-API-Key instead of a bearer token. */
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
  /** Validates (and types) the 2xx response body: a schema, or one with an accepter (src/contract/accept.ts). */
  schema?: ZodType<T> | Checked<T>;
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
  /** "manual": a 3xx answer is returned as it is (its Location read by the caller), not followed or refused. */
  redirect?: 'manual';
  /** "return": a 4xx answer (429 aside, which is waited out) is returned as it is, its page read by the caller, not thrown. */
  clientErrors?: 'return';
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
  /**
   * Like request, but a 2xx body is handed to `consume` as it arrives (retries and errors as
   * for request). A body that breaks or stalls half-way is asked for again, and `consume`
   * starts over on the new one, within the same retry budget: it must keep nothing of a
   * failed reading (requests that may be retried only: GET by default).
   */
  requestStream<R>(opts: RawRequestOptions, consume: (res: StreamedResponse) => Promise<R>): Promise<R>;
  /** A client like this one whose waits between attempts go through `hooks` (a run over many Grants shares them); close it too. */
  paced?(hooks: Required<Pick<ApiClientOptions, 'sleep' | 'beforeAttempt'>>): ApiClient;
  close(): Promise<void>;
}

export interface ApiClientOptions {
  baseUrl: string;
  io: IOStreams;
  debug: boolean;
  clock: Clock;
  /** Timeouts and proxies (src/net/settings.ts); default: no proxy, the default timeouts. */
  network?: NetworkSettings;
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

/** Failures that are a slow service rather than a broken connection. */
const SLOW_CODES: ReadonlySet<string> = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

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
  const network = opts.network ?? { timeouts: { connectMs: DEFAULT_CONNECT_TIMEOUT_MS, answerMs: DEFAULT_ANSWER_TIMEOUT_MS }, proxy: undefined };
  const transport: Transport = opts.dispatcher ? undiciTransport(opts.dispatcher) : networkTransport(network);
  const sleep = opts.sleep ?? defaultSleep;
  const random = opts.random ?? Math.random;
  const userAgent = `svc/${VERSION} node/${process.version}`;
  const trace = (text: string) => {
    if (opts.debug) opts.io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  };
  const failure = (code: string, attempts: number, error: unknown, method: Method, path: string, answered?: number): SvcError => {
    if (isCertificateProblem(code)) {
      const proxy = proxyOf(error);
      const caFiles = [
        ...(network.extraCaCerts === undefined ? [] : [{ variable: 'NODE_EXTRA_CA_CERTS', file: network.extraCaCerts }]),
        ...(network.caFile === undefined ? [] : [{ variable: 'SVC_CA_FILE', file: network.caFile }]),
      ];
      return certificateError(proxy ?? originOf(baseUrl), code, error, { atProxy: proxy !== undefined, caFiles });
    }
    // zlib's codes: the service was reached, and what it sent is damaged.
    if (code.startsWith('Z_')) return undecodable(method, path, code, error);
    return unreachable(baseUrl, code, attempts, error, network, answered);
  };

  /** One request's retries: how many so far, and the time spent waiting between them. */
  interface Attempts {
    retries: number;
    waitedMs: number;
    told: boolean;
    /** The status an earlier attempt was answered with (429, 5xx): the service was reached. */
    answered?: number;
  }

  async function send(req: RawRequestOptions, accept: string, stream = false, attempts: Attempts = { retries: 0, waitedMs: 0, told: false }): Promise<Exchanged> {
    const sent: Sent = {
      method: req.method,
      path: pathOf(req.path),
      url: buildUrl(baseUrl, req.path, req.query),
      accept,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      jsonBody: req.body,
    };
    const retryable = isRetryable(req);
    let renewedToken = false;
    let redirects = 0;
    const nextDelay = (retryAfterMs: number | undefined) => retryDelay(attempts, random, retryAfterMs);
    const wait = async (delay: number, why: string) => {
      attempts.retries += 1;
      attempts.waitedMs += delay;
      trace(`* ${why}: retrying in ${delay} ms (retry ${attempts.retries} of ${MAX_ATTEMPTS - 1})`);
      await sleep(delay);
    };

    const refusesLocally = URL.canParse(baseUrl) && LOOPBACK_HOST.test(new URL(baseUrl).hostname);
    for (;;) {
      const headers = await buildHeaders(req, sent, userAgent);
      // After the headers: getting a token may itself take a while (and a request).
      await opts.beforeAttempt?.();
      let res: Exchanged;
      try {
        const via = opts.debug && network.proxy !== undefined ? proxyFor(new URL(sent.url), network.proxy) : undefined;
        res = await exchange(transport, sent, headers, { clock: opts.clock, trace, debug: opts.debug, stream, via, network });
      } catch (error) {
        const code = transportCode(error);
        if (code === undefined) throw error;
        const proxyStatus = proxyStatusOf(error);
        // A proxy's 5xx to CONNECT is the service out of its reach for now (as a 502 from
        // the service would be): tried again. Its 407 or 403 is not mended by trying.
        const proxyGatewayFailure = proxyStatus !== undefined && proxyStatus >= 500;
        if (isCertificateProblem(code) || (proxyStatus !== undefined && !proxyGatewayFailure)) throw failure(code, attempts.retries + 1, error, sent.method, sent.path);
        // Nothing listening on this machine's port: no retry brings it up (2.5 s saved for CI).
        const refusedHere = code === 'ECONNREFUSED' && refusesLocally && proxyOf(error) === undefined;
        const delay = retryable && (TRANSIENT_CODES.has(code) || proxyGatewayFailure) && !refusedHere ? nextDelay(undefined) : undefined;
        if (delay === undefined) throw failure(code, attempts.retries + 1, error, sent.method, sent.path, attempts.answered);
        if (SLOW_CODES.has(code)) tellSlow(attempts, code, proxyOf(error));
        await wait(delay, `${proxyGatewayFailure ? `the proxy's ${proxyStatus}` : describeCode(code, network)} on ${sent.method} ${sent.path}`);
        continue;
      }
      if (res.status >= 200 && res.status < 300) return res;
      if (res.status >= 300 && res.status < 400) {
        if (req.redirect === 'manual') return res;
        const next = sameOriginRedirect(res, sent, baseUrl);
        if (next !== undefined && redirects < MAX_REDIRECTS) {
          redirects += 1;
          trace(`* ${res.status}: following ${next} (same origin)`);
          sent.url = next;
          continue;
        }
        throw redirectError(res, sent, baseUrl);
      }

      const apiError = await toApiError(res, sent, opts.clock);
      if (res.status === 401 && typeof req.auth === 'object' && 'invalidate' in req.auth && !renewedToken) {
        renewedToken = true;
        trace('* 401: renewing the token and retrying once');
        await req.auth.invalidate();
        continue;
      }
      if (req.clientErrors === 'return' && res.status >= 400 && res.status < 500 && res.status !== 429) return res;
      if (res.status === 429 || (res.status >= 500 && retryable)) {
        const delay = nextDelay(apiError.retryAfterMs);
        if (delay !== undefined) {
          attempts.answered = res.status;
          await wait(delay, `${res.status} on ${sent.method} ${sent.path}`);
          continue;
        }
        if (apiError.retryAfterMs !== undefined && apiError.retryAfterMs > RETRY_BUDGET_MS - attempts.waitedMs) throw retryAfterTooLong(apiError, sent);
        // Given up after retries: the message says it was not a single answer.
        if (attempts.retries > 0) throw await toApiError(res, sent, opts.clock, attempts.retries + 1);
      }
      throw apiError;
    }
  }

  /** On a terminal, once per request: a slow service is being waited for, not hung on. */
  function tellSlow(attempts: Attempts, code: string, proxy: string | undefined): void {
    if (attempts.told || !opts.io.stderrIsTTY) return;
    attempts.told = true;
    // The proxy when it is the one that is silent (its failures are marked with it).
    const host = proxy !== undefined ? `the proxy ${proxy}` : URL.canParse(baseUrl) ? new URL(baseUrl).host : baseUrl;
    const after = code === 'UND_ERR_CONNECT_TIMEOUT' ? `no connection to ${host} after ${seconds(network.timeouts.connectMs)}` : `no answer from ${host} after ${seconds(network.timeouts.answerMs)}`;
    // Over a spinner's line, which the next frame draws again below.
    opts.io.stderr.write(`${opts.io.redraw ? '\r\x1b[2K' : ''}${after}, trying again (${attempts.retries + 2} of ${MAX_ATTEMPTS})\n`);
  }

  return {
    baseUrl,
    async request<T>(req: RequestOptions<T>): Promise<T> {
      const res = await send(req, 'application/json');
      const value = parseJson(res, req.method, pathOf(req.path));
      if (!req.schema) return value as T;
      const parsed = await check(req.schema, value);
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
    async requestStream<R>(req: RawRequestOptions, consume: (res: StreamedResponse) => Promise<R>): Promise<R> {
      const attempts: Attempts = { retries: 0, waitedMs: 0, told: false };
      for (;;) {
        const { status, headers, stream } = await send(req, req.accept ?? 'application/json', true, attempts);
        try {
          return await consume({ status, headers, text: textOf(stream) });
        } catch (error) {
          if (!(error instanceof BrokenBody)) throw error;
          stream?.destroy();
          const delay = isRetryable(req) && TRANSIENT_CODES.has(error.code) ? retryDelay(attempts, random) : undefined;
          if (delay === undefined) throw failure(error.code, attempts.retries + 1, error.cause, req.method, pathOf(req.path));
          if (SLOW_CODES.has(error.code)) tellSlow(attempts, error.code, proxyOf(error.cause));
          attempts.retries += 1;
          attempts.waitedMs += delay;
          trace(`* ${describeCode(error.code, network)} in the body of ${req.method} ${pathOf(req.path)}: asking again in ${delay} ms (retry ${attempts.retries} of ${MAX_ATTEMPTS - 1})`);
          await sleep(delay);
        }
      }
    },
    paced: (hooks) => createApiClient({ ...opts, ...hooks }),
    async close() {
      await transport.close();
    },
  };
}

const MAX_REDIRECTS = 5;
const ACCEPT_ENCODING = 'gzip, br';

/** 5xx and connection failures are retried for GET/HEAD/PUT/DELETE, or with an Idempotency-Key, unless said otherwise. */
function isRetryable(req: RawRequestOptions): boolean {
  return req.retry ?? (req.idempotencyKey !== undefined || IDEMPOTENT_METHODS.has(req.method));
}

/** The wait before the next attempt, or undefined when the attempts or the budget are spent. */
function retryDelay(attempts: { retries: number; waitedMs: number }, random: () => number, retryAfterMs?: number): number | undefined {
  const delay = Math.ceil(retryAfterMs ?? random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempts.retries));
  if (attempts.retries + 1 >= MAX_ATTEMPTS || attempts.waitedMs + delay > RETRY_BUDGET_MS) return undefined;
  return delay;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function originOf(baseUrl: string): string {
  return URL.canParse(baseUrl) ? new URL(baseUrl).origin : baseUrl;
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
  // Compressed answers are about half the bytes of a queue of encrypted requests, for a few
  // hundred ms of decoding per 17 MB (bench/credit-note-poll.mjs, docs/networks.md).
  const headers: Record<string, string> = { accept: sent.accept, 'accept-encoding': ACCEPT_ENCODING, 'user-agent': userAgent };
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
  /** The proxy the request goes through (--debug names it, without its credentials). */
  via: string | undefined;
  network: NetworkSettings;
}

async function exchange(
  transport: Transport,
  sent: Sent,
  headers: Record<string, string>,
  { clock, trace, debug, stream, via, network }: ExchangeOptions,
): Promise<Exchanged> {
  if (debug) {
    if (via !== undefined) trace(`* through the proxy ${shownProxy(via)}`);
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
      body = await readAll(res.body, RESPONSE_BYTES, `the answer to ${sent.method} ${sent.path}`);
    }
  } catch (error) {
    const proxyStatus = proxyStatusOf(error);
    const code = transportCode(error);
    const what = proxyStatus !== undefined ? `the proxy answered ${proxyStatus}` : code === undefined ? 'error' : code.startsWith('UND_ERR_') ? describeCode(code, network) : code;
    trace(`! ${sent.method} ${sent.path} failed after ${clock.now() - started} ms: ${what}`);
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

/** A body that broke or stalled half-way through a streamed reading (requestStream asks again). */
class BrokenBody extends Error {
  readonly code: string;
  constructor(code: string, cause: unknown) {
    super(`the answer broke off (${code})`, { cause });
    this.code = code;
  }
}

async function* textOf(stream: Readable | undefined): AsyncGenerator<string> {
  if (stream === undefined) return;
  stream.setEncoding('utf8');
  try {
    for await (const piece of stream) yield piece as string;
  } catch (error) {
    const code = transportCode(error);
    throw code === undefined ? error : new BrokenBody(code, error);
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

/** An answer whose body does not decompress as its content-encoding says (a proxy that mangles it, or a broken server). */
function undecodable(method: Method, path: string, code: string, cause: unknown): SvcError {
  const encoding = (cause as { encoding?: unknown } | undefined)?.encoding;
  return new SvcError(`unexpected response from the service for ${method} ${path}: its body (content-encoding ${typeof encoding === 'string' ? encoding : 'unknown'}) does not decompress (${code})`, {
    cause,
    hint: 'the service or a proxy on the way sent it damaged: try again, and if it stays, report it with the output of --debug',
  });
}

/** A 2xx answer that is not JSON where JSON was asked for. */
export function notJsonResponse(method: Method, path: string, contentType: string | string[] | undefined): SvcError {
  return new SvcError(`unexpected response from the service for ${method} ${path}: not JSON (content-type ${String(contentType ?? 'none')})`);
}

const NOT_JSON = Symbol('not JSON');

function parseJson(res: RawResponse, method: Method, path: string): unknown {
  if (res.body.length === 0) return undefined;
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    throw notJsonResponse(method, path, res.headers['content-type']);
  }
}

async function toApiError(res: RawResponse, sent: Sent, clock: Clock, attempts?: number): Promise<ApiError> {
  const retryAfterMs = parseRetryAfter(res.headers['retry-after'], clock);
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    body = NOT_JSON;
  }
  const parsed = body === NOT_JSON ? undefined : await check(ErrorBody, body);
  const common = { status: res.status, retryAfterMs, method: sent.method, path: sent.path, ...(attempts !== undefined && { attempts }) };
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

/** A failure code as a person reads it: the socket codes as they are (curl's), undici's in words. */
function describeCode(code: string, network: NetworkSettings): string {
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection within ${seconds(network.timeouts.connectMs)}`;
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `no answer within ${seconds(network.timeouts.answerMs)}`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `the answer stalled for ${seconds(network.timeouts.answerMs)}`;
    case 'UND_ERR_SOCKET':
      return 'the connection closed';
    case 'ENOTFOUND':
      return 'ENOTFOUND: no such host';
    default:
      return code.startsWith('Z_') ? 'an answer that does not decompress' : code;
  }
}

/** The proxy (shown without credentials) a failure happened at, as the transport marked it. */
function proxyOf(error: unknown): string | undefined {
  const proxy = (error as { proxy?: unknown } | undefined)?.proxy;
  return typeof proxy === 'string' ? proxy : undefined;
}

/** The variable, as set, that gave the proxy for this URL (ALL_PROXY or http_proxy, say), for hints. */
function proxyVariable(baseUrl: string, network: NetworkSettings): string {
  const variables = network.proxy?.variables;
  if (variables === undefined) return 'HTTPS_PROXY / HTTP_PROXY';
  return baseUrl.startsWith('http://') ? variables.http : variables.https;
}

/** The status a proxy refused the tunnel with (407: it wants credentials). */
function proxyStatusOf(error: unknown): number | undefined {
  const status = (error as { proxyStatus?: unknown } | undefined)?.proxyStatus;
  return typeof status === 'number' ? status : undefined;
}

/** The connection was taken, then closed or reset: something listens there. */
const CLOSED_ON_US = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function unreachable(baseUrl: string, code: string, attempts: number, cause: unknown, network: NetworkSettings, answered?: number): SvcError {
  const host = URL.canParse(baseUrl) ? new URL(baseUrl).hostname : '';
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  // The service itself answered an earlier attempt (503 during an outage, a 429) and then did
  // not answer the last: it is the service that is unavailable, not something else on the port.
  if (answered !== undefined && proxyOf(cause) === undefined) {
    const said = `${answered} ${STATUS_CODES[answered] ?? ''}`.trim();
    return new UnavailableError(`cannot reach the service at ${baseUrl} (${describeCode(code, network)})${tries}; the service answered ${said} before`, {
      cause,
      hint: `the service is unavailable for now (it answered ${said}, then did not answer at all): try again in a moment`,
    });
  }
  const proxy = proxyOf(cause);
  const status = proxyStatusOf(cause);
  if (proxy !== undefined && status !== undefined && status >= 500) {
    return new UnavailableError(`the proxy ${proxy} could not connect to ${baseUrl} (${status} ${STATUS_CODES[status] ?? ''})`.replace(' )', ')') + tries, {
      cause,
      hint: 'the proxy cannot reach the service: check the base URL (`svc config get base-url`), or name the host in NO_PROXY to go without the proxy',
    });
  }
  if (proxy !== undefined && status !== undefined) {
    return new ProxyError(
      status === 407
        ? `the proxy ${proxy} wants credentials (407 Proxy Authentication Required) to reach ${baseUrl}`
        : `the proxy ${proxy} refused to connect to ${baseUrl} (${status} ${STATUS_CODES[status] ?? ''})`.replace(' )', ')'),
      {
        cause,
        hint:
          status === 407
            ? 'give them in the proxy URL: HTTPS_PROXY=http://user:password@host:port (percent-encode special characters)'
            : 'check the proxy, or name the host in NO_PROXY to go without it',
      },
    );
  }
  if (proxy !== undefined) {
    return new UnavailableError(`cannot reach the proxy ${proxy} for ${baseUrl} (${describeCode(code, network)})${tries}`, {
      cause,
      hint: `check ${proxyVariable(baseUrl, network)} (is the proxy running?), or name the host in NO_PROXY to go without it`,
    });
  }
  return new UnavailableError(`cannot reach the service at ${baseUrl} (${describeCode(code, network)})${tries}`, {
    cause,
    // It took the connection and then said nothing: running, but slower than svc waits.
    hint: code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
      ? `the service took the connection but did not answer in time; to wait longer than ${seconds(network.timeouts.answerMs)}: SVC_HTTP_TIMEOUT=SECONDS (default ${DEFAULT_ANSWER_TIMEOUT_MS / 1000})`
      : LOOPBACK_HOST.test(host) && CLOSED_ON_US.has(code)
      ? 'something on this machine took the connection and closed it: check that it is the sandbox (`svc sandbox start` prints its URL) and that the base URL points to it (`svc config get base-url`, SVC_BASE_URL)'
      : LOOPBACK_HOST.test(host)
      ? 'is the sandbox running? start it with `svc sandbox start`'
      : network.proxy === undefined
        ? 'check the network connection and the base URL (`svc config get base-url`); behind a proxy, set HTTPS_PROXY'
        : 'check the network connection and the base URL (`svc config get base-url`)',
  });
}

/** Where a 3xx answer points, if svc follows it: a GET or HEAD to the same origin. */
function sameOriginRedirect(res: RawResponse, sent: Sent, baseUrl: string): string | undefined {
  const location = locationOf(res, sent);
  if (location === undefined || (sent.method !== 'GET' && sent.method !== 'HEAD')) return undefined;
  if (res.status === 304) return undefined;
  return new URL(location).origin === originOf(baseUrl) ? location : undefined;
}

function locationOf(res: RawResponse, sent: Sent): string | undefined {
  const header = res.headers.location;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !URL.canParse(value, sent.url)) return undefined;
  return new URL(value, sent.url).toString();
}

/** A redirect svc does not follow: another origin (credentials are never carried there), or a write. */
function redirectError(res: RawResponse, sent: Sent, baseUrl: string): SvcError {
  const location = locationOf(res, sent);
  const what = `${res.status} ${STATUS_CODES[res.status] ?? ''}`.trim();
  if (location === undefined) return new SvcError(`the service answered ${what} to ${sent.method} ${sent.path} with no Location`);
  const elsewhere = new URL(location).origin !== originOf(baseUrl);
  return new SvcError(`the service answered ${what} to ${sent.method} ${sent.path}, pointing to ${redactUrl(location)}`, {
    hint: elsewhere
      ? `svc follows redirects only within ${originOf(baseUrl)} and never carries credentials elsewhere: if the service moved, set the base URL (\`svc config set base-url …\` or SVC_BASE_URL)`
      : 'svc follows a redirect only for a read (GET, HEAD): check the base URL (`svc config get base-url`)',
  });
}

/** 429 or 5xx with a Retry-After longer than svc waits: how long the service asked for. */
function retryAfterTooLong(error: ApiError, sent: Sent): ApiError {
  const asked = humanDuration((error.retryAfterMs ?? 0) / 1000);
  return new ApiError({
    status: error.status,
    code: error.code,
    description: `${error.description ?? error.code}: the service asks to try again in ${asked} (Retry-After), longer than svc waits (${RETRY_BUDGET_MS / 1000} s)`,
    retryAfterMs: error.retryAfterMs,
    details: error.details,
    method: sent.method,
    path: sent.path,
  });
}
