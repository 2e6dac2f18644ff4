// The HTTP end of `svc webhook listen` (docs/interface-decisions.md#events-and-delivery-rules, #webhook-signatures): a
// delivery is answered 2xx only once its signature verified over the exact raw bytes and
// the journal has it on disk. Everything refused is refused before anything is stored:
// 400 for a missing, malformed, non-matching or out-of-window signature, 413 past 1 MiB
// (without reading further), 415 for a body that is not JSON, 404/405 off the one route.
// A journal that cannot be written answers 503, so the sender retries.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clock.js';
import { bindError } from '../net/bind-error.js';
import { companyIdIn } from './company.js';
import { JOURNALLED_HEADERS, type Journal, type StoredDelivery } from './journal.js';
import { OWN_PATH_SEGMENT } from './own-path.js';
import { SIGNATURE_TOLERANCE_SECONDS, verifySignature, type SignatureFailure } from './signature.js';
import { MAX_BODY_BYTES } from '../contract/error.js';

/** docs/interface-decisions.md#body-size-limit: bodies over 1 MiB are refused. */

const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/** Why a signature was refused, with what the person watching can act on: the skew and who is ahead, how many secrets were tried. */
function signatureReason(check: { reason: SignatureFailure; timestamp?: number }, secrets: number, now: number, tolerance: number, noMatchAdvice: (tried: number) => string): string {
  const skew = check.timestamp === undefined ? 0 : Math.abs(now - check.timestamp);
  switch (check.reason) {
    case 'stale':
      return `stale signature: signed ${skew} s before this clock's now (tolerance ${tolerance} s); this machine's clock is ahead of the sender's, or the delivery was held that long`;
    case 'future':
      return `signature from the future: signed ${skew} s after this clock's now (tolerance ${tolerance} s); the sender's clock is ahead of this machine's`;
    case 'no_match':
      return `no secret matched (${secrets} secret${secrets === 1 ? '' : 's'} tried): ${noMatchAdvice(secrets)}`;
    default:
      return SIGNATURE_PROBLEMS[check.reason];
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** What the acknowledgement reads of a delivery's envelope: the body is parsed once, here; the processor validates the rest. */
interface Envelope {
  /** The event's name for the journal; null when it names none. */
  event: string | null;
  /** The company it is of, where the interface puts it (`creditNoteInitiationRequest` or `encryptedCreditNote`): for the log. */
  companyId?: string;
}

/** The envelope, or undefined when the body is not a JSON document in UTF-8. */
function envelopeOfJsonText(raw: Buffer): Envelope | undefined {
  let value: unknown;
  try {
    value = JSON.parse(UTF8.decode(raw));
  } catch {
    return undefined;
  }
  const named = (value as { event?: unknown } | null)?.event;
  const event = typeof named === 'string' && named !== '' ? named : null;
  const companyId = companyIdIn(value);
  return companyId === undefined ? { event } : { event, companyId };
}

const SIGNATURE_PROBLEMS: Readonly<Record<SignatureFailure, string>> = {
  missing: 'the X-Service-Signature header is missing',
  malformed: 'the X-Service-Signature header is not of the form t=<unix seconds>,v1=<hex>',
  no_match: 'no signature matches a known secret over the exact body',
  stale: 'the signature is older than the tolerance',
  future: 'the signature time is ahead of this clock by more than the tolerance',
};

// Each is a different thing to fix (a clock, a secret, the sender), so each is counted apart.
const SIGNATURE_KINDS: Readonly<Record<SignatureFailure, string>> = {
  missing: 'no signature header',
  malformed: 'malformed signature header',
  no_match: 'no secret matched',
  stale: 'signed too long ago (stale)',
  future: 'signed in the future',
};

export interface ReceiverOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /**
   * The path deliveries are accepted on, e.g. /webhooks, and a Grant's own path below it
   * (/webhooks/g1f2e…, docs/interface-decisions.md#own-paths-for-subscriptions: a subscription may be given a path of its own).
   */
  path: string;
  journal: Pick<Journal, 'record'>;
  /** The secrets a delivery to this path may be signed with, read per request. */
  secrets(path: string): readonly string[];
  /**
   * Called when no secret matched: looks for secrets added since (a subscription made while
   * listening) and resolves true when there are new ones, so the check runs once more.
   */
  refreshSecrets?: (() => Promise<boolean>) | undefined;
  /** What to do when no secret matched, given how many were tried; by default: subscribe, or set SVC_WEBHOOK_SECRET. */
  noMatchAdvice?: ((tried: number) => string) | undefined;
  clock: Clock;
  toleranceSeconds?: number;
  maxBodyBytes?: number;
  /** A delivery that was just acknowledged; called after the 2xx is sent, with the seconds since its request arrived and the company its envelope names. */
  onDelivery(delivery: StoredDelivery, duplicate: boolean, ackSeconds: number, companyId: string | undefined): void;
  /** The journal refused a delivery (it was answered 503); `companyId` as the verified envelope names it. */
  onJournalError(error: unknown, raw: Buffer, companyId: string | undefined): void;
  /** A request refused (4xx), with the reason in words a person can act on; never the body or a secret. */
  onRejected?: ((rejection: Rejection) => void) | undefined;
  /**
   * True while the listener is starting (its subscriptions being made or checked): a delivery
   * is answered 503 with Retry-After and not read, so that none is taken before `listening`.
   */
  starting?: (() => boolean) | undefined;
  /** A delivery answered 503 because the listener was starting. */
  onStarting?: (() => void) | undefined;
}

export interface Rejection {
  status: number;
  code: string;
  /** In a few words, the same for every request refused alike ("signed in the future"): what a count is kept by. */
  kind: string;
  /** The whole reason for this one, with figures (the skew, the secrets tried). */
  reason: string;
  /** Why a signature was refused (400 invalid_signature): what the metrics count it by. */
  signature?: SignatureFailure;
}

export interface RunningReceiver {
  /** http://HOST:PORT/PATH, with the port actually bound. */
  readonly url: string;
  readonly port: number;
  /** Requests are being answered right now. */
  busy(): boolean;
  /**
   * Stops accepting connections, lets requests in progress finish (their journal writes
   * included), then closes every connection. Resolves when none is left.
   */
  close(): Promise<void>;
}

/** The listener's path, or a Grant's own path below it (`svc webhook subscribe --own-path`). */
function isDeliveryPath(pathname: string, path: string): boolean {
  if (pathname === path) return true;
  const base = path.endsWith('/') ? path : `${path}/`;
  return pathname.startsWith(base) && OWN_PATH_SEGMENT.test(pathname.slice(base.length));
}

/**
 * Why a path is not a delivery path, true of the request: a segment below the listener's path
 * that is not of a subscription's own form (`g` and 24 hex digits) is no subscription's path.
 */
function offPath(pathname: string, path: string): string {
  const base = path.endsWith('/') ? path : `${path}/`;
  const where = `deliveries are accepted at POST ${path}, or at a subscription's own path below it (${base}g followed by 24 hex digits)`;
  // The sender's text, in a log line: printable ASCII and cut short.
  const shown = pathname.replace(/[^\x21-\x7e]/g, '?');
  const said = shown.length > 100 ? `${shown.slice(0, 100)}…` : shown;
  const segment = pathname.startsWith(base) ? pathname.slice(base.length) : undefined;
  if (segment !== undefined && segment !== '' && !segment.includes('/')) return `no subscription has the path ${said}: ${where}`;
  return `${where}; this request was to ${said}`;
}

export async function startReceiver(opts: ReceiverOptions): Promise<RunningReceiver> {
  const max = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const tolerance = opts.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  const active = new Set<Promise<void>>();
  let closing = false;

  const reply = (res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    // While closing, a kept-alive connection would only be cut under the next request.
    const close = closing || status === 413 ? { connection: 'close' } : {};
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers, ...close });
    res.end(text);
  };
  const refuse = (res: ServerResponse, status: number, error: string, kind: string, description: string, more: { headers?: Record<string, string>; reason?: string; signature?: SignatureFailure } = {}) => {
    if (status < 500) opts.onRejected?.({ status, code: error, kind, reason: more.reason ?? description, ...(more.signature === undefined ? {} : { signature: more.signature }) });
    reply(res, status, { error, error_description: description, timestamp: new Date(opts.clock.now()).toISOString() }, more.headers);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrived = performance.now();
    const pathname = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (!isDeliveryPath(pathname, opts.path)) return refuse(res, 404, 'not_found', 'not the delivery path', offPath(pathname, opts.path));
    if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'not a POST', 'deliveries are POST requests', { headers: { allow: 'POST' } });
    if (opts.starting?.()) {
      opts.onStarting?.();
      return refuse(res, 503, 'unavailable', 'starting', 'the listener is starting; retry later', { headers: { 'retry-after': '1' } });
    }
    const contentType = req.headers['content-type'];
    if (!JSON_CONTENT_TYPE.test(contentType ?? '')) {
      // What it was sent with, quoted (escapes and all) and cut short: the header is the sender's text.
      const given = contentType === undefined ? 'no Content-Type' : `Content-Type ${JSON.stringify(contentType.length > 80 ? `${contentType.slice(0, 80)}…` : contentType)}`;
      return refuse(res, 415, 'unsupported_media_type', 'not Content-Type: application/json', `sent with ${given}; a delivery has Content-Type: application/json`);
    }
    const tooLarge = () => refuse(res, 413, 'payload_too_large', 'body too large', `the body is larger than ${max} bytes`);
    if (Number(req.headers['content-length'] ?? 0) > max) return tooLarge();
    // Node joins repeated headers with ", ", which the strict grammar then refuses as malformed.
    const header = req.headers['x-service-signature'];
    // No need to read a body that cannot be accepted.
    if (typeof header !== 'string' || header === '') return refuse(res, 400, 'invalid_signature', SIGNATURE_KINDS.missing, SIGNATURE_PROBLEMS.missing, { signature: 'missing' });

    const raw = await readBody(req, max);
    if (raw === 'aborted') return;
    if (raw === 'too_large') return tooLarge();

    const check = () => verifySignature(header, raw, opts.secrets(pathname), Math.floor(opts.clock.now() / 1000), tolerance);
    let verified = check();
    if (!verified.ok && verified.reason === 'no_match' && (await opts.refreshSecrets?.())) verified = check();
    if (!verified.ok) {
      const reason = signatureReason(verified, opts.secrets(pathname).length, Math.floor(opts.clock.now() / 1000), tolerance, opts.noMatchAdvice ?? (() => 'subscribe this profile, or set SVC_WEBHOOK_SECRET'));
      return refuse(res, 400, 'invalid_signature', SIGNATURE_KINDS[verified.reason], SIGNATURE_PROBLEMS[verified.reason], { reason, signature: verified.reason });
    }
    // Signed, but not a JSON document in UTF-8: nothing any event could be made of, and not journalled.
    const envelope = envelopeOfJsonText(raw);
    if (envelope === undefined) return refuse(res, 415, 'unsupported_media_type', 'body not JSON', 'the signed body is not a JSON document in UTF-8');

    const headers: Record<string, string> = {};
    for (const name of JOURNALLED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    let recorded;
    try {
      recorded = await opts.journal.record(raw, headers, envelope.event);
    } catch (error) {
      opts.onJournalError(error, raw, envelope.companyId);
      return refuse(res, 503, 'unavailable', 'not stored', 'the delivery could not be stored; retry later', { headers: { 'retry-after': '1' } });
    }
    const { entry, duplicate } = recorded;
    reply(res, 200, { received: true, id: entry.id, duplicate });
    opts.onDelivery({ entry, raw, headers }, duplicate, (performance.now() - arrived) / 1000, envelope.companyId);
  }

  const server: Server = createServer((req, res) => {
    const handled = handle(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 500, 'server_error', 'receiver failed', 'the receiver failed; retry later');
      else res.destroy();
    });
    active.add(handled);
    void handled.finally(() => active.delete(handled));
  });
  // Bounds on slow or stalled senders; a real sender finishes a 1 MiB body far sooner.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(bindError(error, opts.host, opts.port, { port: '--port', host: '--host' })));
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const settle = async () => {
    while (active.size > 0) await Promise.allSettled([...active]);
  };
  return {
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}${opts.path}`,
    port,
    busy: () => active.size > 0,
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await settle();
      server.closeAllConnections();
      // Requests that arrived on a kept-alive connection before it was cut.
      await settle();
      await closed;
    },
  };
}

type BodyOutcome = Buffer | 'too_large' | 'aborted';

/** The exact bytes of the body, or why there are none; stops reading at the limit. */
function readBody(req: IncomingMessage, max: number): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off('data', onData);
        req.pause();
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
    req.once('error', () => resolve('aborted'));
    req.once('aborted', () => resolve('aborted'));
  });
}
