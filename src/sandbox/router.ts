// The sandbox's HTTP layer on plain node:http: method + path patterns with `{param}`
// segments, body reading with the 1 MiB cap, JSON and form bodies, zod validation, and
// error bodies exactly as docs/interface-decisions.md#error-bodies has them. A handler gets a parsed request and
// returns a `Reply` (or throws `HttpError`), so it never touches the socket and can be
// wrapped (idempotency replay, rate limits) without knowing how responses are written.
//
//   router.patch('/credit-note/requests/{requestId}/status', { body: StatusUpdate }, (req) => {
//     req.params.requestId; req.body.status;   // typed from the path and the schema
//     return json(200, { ... });
//   });
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ZodType } from 'zod';
import type { Clock } from '../clock.js';
import { isLoopbackHost } from '../config/base-url.js';
import { MAX_BODY_BYTES, STATUS_OF_CODE, type ErrorCode } from '../contract/error.js';
import { jsonInputProblem } from '../contract/json-limits.js';
import { validate } from '../contract/validate.js';

// A body over the cap is still read, and thrown away, up to this much, so that the 413
// reaches the client: closing a socket with unread data makes TCP reset the connection,
// and the client may lose the response. Past this, reading stops and the connection is
// closed after the 413 whatever becomes of it.
const DISCARD_LIMIT_BYTES = 16 * MAX_BODY_BYTES;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;
/** `{ requestId: string }` for '/credit-note/requests/{requestId}/status'. */
export type PathParams<P extends string> = { readonly [K in ParamNames<P>]: string };

/** Query parameters; a repeated name keeps its last value. */
export type Query = Readonly<Record<string, string>>;

export interface RouteRequest<P = PathParams<string>, B = unknown, Q = Query> {
  readonly method: HttpMethod;
  /** Without the query string, as received (percent-encoded). */
  readonly path: string;
  /** Percent-decoded path parameters. */
  readonly params: P;
  readonly query: Q;
  readonly headers: IncomingHttpHeaders;
  /**
   * Parsed JSON, or an object of strings for an `application/x-www-form-urlencoded` body,
   * or undefined when there is no body; the validated value when the route has a schema.
   */
  readonly body: B;
  /** The body exactly as received. */
  readonly rawBody: Buffer;
}

export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Bytes for binary downloads (the outbox's PDFs). */
  readonly body: string | Buffer;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(value) };
}

export function html(status: number, markup: string, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'Content-Type': 'text/html; charset=utf-8', ...headers }, body: markup };
}

export function redirect(location: string, status = 302): Reply {
  return { status, headers: { Location: location }, body: '' };
}

/** One failed field of a 400 `validation_failed`: `{ path: 'products.0.unitCode', message }`. */
export interface ErrorDetail {
  path: string;
  message: string;
}

export interface HttpErrorOptions {
  details?: readonly ErrorDetail[];
  /** Retry-After, WWW-Authenticate, Allow, ... */
  headers?: Record<string, string>;
  /** Instead of the code's status: a 503 `server_error` (`sandbox trigger outage`). */
  status?: number;
}

/** Thrown anywhere in a handler: the client gets the contract error body with the code's status. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: readonly ErrorDetail[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  constructor(code: ErrorCode, description: string, options: HttpErrorOptions = {}) {
    super(description);
    this.name = 'HttpError';
    this.code = code;
    this.status = options.status ?? STATUS_OF_CODE[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/**
 * docs/interface-decisions.md#host-header: only requests addressed to a loopback name or address are answered. A web
 * page whose domain was rebound to 127.0.0.1 sends its own Host, and gets 421 instead of
 * the sandbox's state (DNS-rebinding defence).
 */
export function checkHost(host: string | undefined): void {
  const name = host?.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host?.replace(/:\d+$/, '');
  if (name !== undefined && isLoopbackHost(name)) return;
  throw new HttpError('misdirected_request', `this sandbox answers only requests addressed to a loopback host, not ${JSON.stringify(host ?? '')} (DNS-rebinding defence)`);
}

/** The value, typed by the schema, or a 400 `validation_failed` whose details name each field. */
export function validated<T>(schema: ZodType<T>, value: unknown, what: string): T {
  const result = validate(schema, value);
  if (!result.success) throw new HttpError('validation_failed', `${what} is invalid`, { details: result.issues });
  return result.data;
}

export interface RouteSpec<B, Q> {
  body?: ZodType<B>;
  query?: ZodType<Q>;
}

export type Handler<P, B, Q> = (req: RouteRequest<P, B, Q>) => Reply | Promise<Reply>;

export interface AddRoute {
  <Path extends string>(path: Path, handler: Handler<PathParams<Path>, unknown, Query>): void;
  <Path extends string, B = unknown, Q = Query>(path: Path, spec: RouteSpec<B, Q>, handler: Handler<PathParams<Path>, B, Q>): void;
}

export interface Router {
  readonly get: AddRoute;
  readonly post: AddRoute;
  readonly put: AddRoute;
  readonly patch: AddRoute;
  readonly delete: AddRoute;
  /** Serves the routes on `server` (its 'request' and 'checkContinue' events). */
  attach(server: Server): void;
  /** Writes a contract error body (docs/interface-decisions.md#error-bodies) stamped with the sandbox clock. */
  sendError(
    res: ServerResponse,
    status: number,
    code: ErrorCode,
    description: string,
    details?: readonly ErrorDetail[],
  ): void;
}

/**
 * The router with every handler registered through it wrapped by `wrap` (which runs before
 * the route's own handler): the rate limit, an outage.
 */
export function wrapHandlers(router: Router, wrap: (handler: Handler<any, any, any>) => Handler<any, any, any>): Router {
  const add = (to: AddRoute): AddRoute =>
    ((path: string, specOrHandler: object, handler?: Handler<any, any, any>) =>
      typeof specOrHandler === 'function' ? to(path, wrap(specOrHandler as Handler<any, any, any>)) : to(path, specOrHandler, wrap(handler as Handler<any, any, any>))) as AddRoute;
  return { ...router, get: add(router.get), post: add(router.post), put: add(router.put), patch: add(router.patch), delete: add(router.delete) };
}

export interface RouterOptions {
  /** Stamps error bodies. */
  clock: Clock;
  /** One line per request, and internal errors; never bodies or query strings. */
  log?: (line: string) => void;
  /** Sees every answer of a route (and may replace it): the contract check of the tests. */
  checkReply?: (method: string, pattern: string, reply: Reply) => Reply;
  /**
   * Awaited before an answer is sent (`sandbox start --state`: what the request changed is
   * on disk first); a failure turns the answer into a 500.
   */
  beforeReply?: (method: string, path: string) => Promise<void>;
  /**
   * How long to hold each answer, in ms, after it is ready (`sandbox start --latency`: a
   * service across a network); a timer, no CPU.
   */
  delay?: () => number;
}

type Segment = { literal: string } | { param: string };
type AnyHandler = Handler<Readonly<Record<string, string>>, unknown, unknown>;

interface Route {
  method: HttpMethod;
  pattern: string;
  segments: Segment[];
  /** Orders overlapping patterns: '0' per literal segment, '1' per parameter; lower wins. */
  rank: string;
  spec: RouteSpec<unknown, unknown>;
  handler: AnyHandler;
}

export function createRouter({ clock, log = () => {}, checkReply, beforeReply, delay }: RouterOptions): Router {
  const routes: Route[] = [];

  const add = (method: HttpMethod): AddRoute => {
    function addRoute(path: string, specOrHandler: RouteSpec<unknown, unknown> | AnyHandler, maybeHandler?: AnyHandler): void {
      const handler = typeof specOrHandler === 'function' ? specOrHandler : maybeHandler;
      const spec = typeof specOrHandler === 'function' ? {} : specOrHandler;
      if (!handler) throw new TypeError(`route ${method} ${path} has no handler`);
      if (!path.startsWith('/')) throw new TypeError(`route pattern "${path}" must start with /`);
      if (routes.some((r) => r.method === method && r.pattern === path)) throw new TypeError(`route ${method} ${path} is defined twice`);
      const segments = path
        .slice(1)
        .split('/')
        .map((s): Segment => (/^\{\w+\}$/.test(s) ? { param: s.slice(1, -1) } : { literal: s }));
      routes.push({ method, pattern: path, segments, rank: segments.map((s) => ('param' in s ? '1' : '0')).join(''), spec, handler });
    }
    // The overloads type params, body and query per route; stored routes only need to be callable.
    return addRoute as AddRoute;
  };

  const errorReply = (status: number, code: ErrorCode, description: string, options: HttpErrorOptions = {}): Reply =>
    json(
      status,
      {
        error: code,
        error_description: description,
        timestamp: new Date(clock.now()).toISOString(),
        ...(options.details ? { details: options.details } : {}),
      },
      options.headers,
    );

  // Responses to which "100 Continue" went out, so the client is sending its body.
  const continued = new WeakSet<ServerResponse>();

  async function dispatch(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<Reply> {
    checkHost(req.headers.host);
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    const segments = path.startsWith('/') ? path.slice(1).split('/') : undefined;
    const matches = segments
      ? routes.flatMap((route) => {
          const params = matchSegments(route.segments, segments);
          return params ? [{ route, params }] : [];
        })
      : [];
    if (matches.length === 0) throw new HttpError('not_found', `no route matches ${method} ${path}`);
    const match = matches.filter((m) => m.route.method === method).sort((a, b) => a.route.rank.localeCompare(b.route.rank))[0];
    if (!match) {
      const allow = [...new Set(matches.map((m) => m.route.method))].join(', ');
      throw new HttpError('method_not_allowed', `${method} is not allowed on ${path}`, { headers: { Allow: allow } });
    }

    const rawBody = await readBody(req, res, expectsContinue);
    const parsed = parseBody(rawBody, req.headers['content-type']);
    const query = Object.fromEntries(new URLSearchParams(queryAt === -1 ? '' : target.slice(queryAt + 1)));
    const { spec, handler } = match.route;
    const reply = await handler({
      method: match.route.method,
      path,
      params: match.params,
      query: spec.query ? validated(spec.query, query, 'the query') : query,
      headers: req.headers,
      body: spec.body ? validated(spec.body, parsed, 'the request body') : parsed,
      rawBody,
    });
    return checkReply ? checkReply(match.route.method, match.route.pattern, reply) : reply;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    const started = performance.now();
    // Kept now: a destroyed request lets go of its socket.
    const socket = req.socket;
    let reply: Reply;
    try {
      reply = await dispatch(req, res, expectsContinue);
    } catch (error) {
      // The client went away mid-request: nobody to answer, nothing went wrong here.
      if (socket.destroyed) return;
      if (error instanceof HttpError) {
        reply = errorReply(error.status, error.code, error.message, error);
      } else {
        log(`internal error in ${req.method} ${pathOf(req)}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        reply = errorReply(500, 'server_error', 'the sandbox failed to handle this request');
      }
    }
    if (beforeReply) {
      try {
        await beforeReply(req.method ?? 'GET', pathOf(req));
      } catch {
        reply = errorReply(500, 'server_error', 'the sandbox could not save its state; what this request did may be lost at the next restart');
      }
    }
    const held = delay?.() ?? 0;
    if (held > 0) await new Promise((resolve) => setTimeout(resolve, held));
    if (socket.destroyed) return;
    // A client still waiting for "100 Continue" may send its body anyway; do not read it as the next request.
    send(res, expectsContinue && !continued.has(res) ? { ...reply, headers: { ...reply.headers, Connection: 'close' } } : reply);
    log(`${req.method} ${pathOf(req)} ${reply.status} ${Math.round(performance.now() - started)}ms`);
  }

  async function readBody(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<Buffer> {
    const tooLarge = () =>
      new HttpError('payload_too_large', `the request body is larger than ${MAX_BODY_BYTES} bytes`, {
        headers: { Connection: 'close' },
      });
    if (expectsContinue) {
      if (Number(req.headers['content-length']) > MAX_BODY_BYTES) throw tooLarge();
      res.writeContinue();
      continued.add(res);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else if (size > DISCARD_LIMIT_BYTES) break;
    }
    if (size > MAX_BODY_BYTES) throw tooLarge();
    return Buffer.concat(chunks, size);
  }

  return {
    get: add('GET'),
    post: add('POST'),
    put: add('PUT'),
    patch: add('PATCH'),
    delete: add('DELETE'),
    attach(server) {
      const serve = (expectsContinue: boolean) => (req: IncomingMessage, res: ServerResponse) => {
        handle(req, res, expectsContinue).catch((error: unknown) => {
          log(`cannot answer ${req.method} ${pathOf(req)}: ${error instanceof Error ? error.message : String(error)}`);
          res.destroy();
        });
      };
      server.on('request', serve(false));
      server.on('checkContinue', serve(true));
    },
    sendError(res, status, code, description, details) {
      send(res, errorReply(status, code, description, details ? { details } : {}));
    },
  };
}

function matchSegments(pattern: readonly Segment[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of pattern.entries()) {
    const segment = segments[i] ?? '';
    if ('literal' in part) {
      if (part.literal !== segment) return undefined;
    } else {
      if (segment === '') return undefined;
      try {
        params[part.param] = decodeURIComponent(segment);
      } catch {
        throw new HttpError('invalid_request', 'the path is not valid percent-encoding');
      }
    }
  }
  return params;
}

function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new HttpError('invalid_request', 'body is not valid JSON');
  }
  // Too deep, or a string with no UTF-8 form: refused before any handler walks it.
  const problem = jsonInputProblem(value);
  if (problem) throw new HttpError('validation_failed', 'the request body is invalid', { details: [{ path: problem.path, message: problem.message }] });
  return value;
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
}

function send(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, {
    'Cache-Control': 'no-store',
    ...reply.headers,
    'Content-Length': String(Buffer.byteLength(reply.body)),
  });
  res.end(reply.body);
}
