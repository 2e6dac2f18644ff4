// `--forward-to`: hands the delivery to the merchant's own app on this machine exactly as it
// arrived (raw body, content type and signature), so the app verifies it like the real thing.
import { STATUS_CODES } from 'node:http';
import { Agent, request } from 'undici';
import { isLoopbackHost } from '../config/base-url.js';
import { UsageError } from '../errors.js';
import { JOURNALLED_HEADERS, type StoredDelivery } from './journal.js';

const FORWARD_TIMEOUT_MS = 10_000;

/** Only http(s) to this machine: the journal's bodies are not for another host to receive in the clear or otherwise. */
export function parseForwardUrl(value: string): URL {
  // `localhost:3000` parses as a URL of scheme "localhost:": what was meant is the address.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && /^[^\s/:]+:\d+(\/|$)/.test(value)) {
    throw new UsageError(`--forward-to: ${value} has no scheme`, { hint: `give the whole address: --forward-to http://${value}` });
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--forward-to: "${value}" is not a URL`, { hint: 'give a full address such as http://127.0.0.1:3000/webhooks' });
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isLoopbackHost(url.hostname)) {
    throw new UsageError(`--forward-to: ${value} is not an http(s) address on this machine`, {
      hint: 'forward to 127.0.0.1, ::1 or localhost, e.g. http://127.0.0.1:3000/webhooks',
    });
  }
  if (url.username || url.password) {
    throw new UsageError('--forward-to: credentials in the URL are refused', { hint: 'the app verifies each delivery by its X-Service-Signature; leave user:password@ out of the address' });
  }
  return url;
}

export interface ForwardResult {
  /** The app's HTTP status; undefined when it could not be reached. */
  status: number | undefined;
  /** "200 OK", "failed: ECONNREFUSED", "no answer within 10 s": in words, never undici's codes. */
  text: string;
  /** Ended by abort(), not by the app: nothing to try again or to hold against the app. */
  aborted?: true;
}

export interface Forwarder {
  /** Never rejects: an app that is down is something to show, not a reason to stop listening. */
  forward(delivery: StoredDelivery, extraHeaders?: Record<string, string>): Promise<ForwardResult>;
  /** Ends the forwards under way at once (the listener's drain ran out of time): each resolves aborted. */
  abort(): void;
  /** Drops its keep-alive connections, so the process can end. */
  close(): Promise<void>;
}

const ABORTED = 'aborted: the listener stopped before the app answered';

export function createForwarder(url: URL, timeoutMs = FORWARD_TIMEOUT_MS): Forwarder {
  const agent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  // A signal of its own for each forward, dropped when it ends: one signal shared by every
  // forward would hold a listener per forward under way (256 at most), and Node warns on stderr
  // past 10, outside a JSON log.
  const underWay = new Set<AbortController>();
  let stopped = false;
  let closed: Promise<void> | undefined;
  // What the app did, as a person reads it: undici's codes name its internals.
  const failure = (error: unknown): ForwardResult => {
    if (stopped) return { status: undefined, text: ABORTED, aborted: true };
    const code = (error as { code?: unknown } | null)?.code;
    const seconds = `${timeoutMs / 1000} s`;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return { status: undefined, text: `no answer within ${seconds}` };
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return { status: undefined, text: `no connection within ${seconds}` };
    if (code === 'UND_ERR_SOCKET') return { status: undefined, text: 'failed: the app closed the connection before it answered' };
    return { status: undefined, text: `failed: ${typeof code === 'string' ? code : error instanceof Error ? error.message : String(error)}` };
  };
  return {
    async forward(delivery, extraHeaders = {}) {
      const headers: Record<string, string> = { ...extraHeaders };
      for (const name of JOURNALLED_HEADERS) {
        const value = delivery.headers[name];
        if (value !== undefined) headers[name] = value;
      }
      const own = new AbortController();
      if (stopped) own.abort();
      underWay.add(own);
      try {
        const res = await request(url, { dispatcher: agent, method: 'POST', headers, body: delivery.raw, signal: own.signal });
        await res.body.dump();
        return { status: res.statusCode, text: `${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}`.trim() };
      } catch (error) {
        return failure(error);
      } finally {
        underWay.delete(own);
      }
    },
    abort() {
      stopped = true;
      for (const own of underWay) own.abort();
    },
    // After abort() nothing is waited for: close() would wait for requests in flight. Once:
    // a pool closed already refuses to be closed again.
    close: () => (closed ??= stopped ? agent.destroy() : agent.close()),
  };
}
