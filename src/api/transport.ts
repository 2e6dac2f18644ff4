// How the API client's bytes travel. The default is Node's own node:http (node:https for an
// https base URL, loaded only then), with keep-alive agents: it is in Node's start-up
// snapshot, so a command pays nothing to load it, where undici cost some 39 ms of every
// command that made a request (docs/benchmarks.md#start-up). Through a proxy (HTTPS_PROXY and the like,
// src/net/proxy-for.ts) undici's ProxyAgent carries the request, loaded only then; tests
// that script answers with undici's MockAgent pass a dispatcher instead.
//
// Timeouts (src/net/settings.ts): 10 s to connect, 30 s for the response head, 30 s of
// silence in the body, or SVC_HTTP_TIMEOUT. They fail with undici's error codes, which the
// client retries and describes (client.ts). A compressed answer (gzip, deflate, br) is
// decompressed here, whatever was asked for.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { finished, type Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { SvcError } from '../errors.js';
import { proxyFor } from '../net/proxy-for.js';
import { DEFAULT_ANSWER_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, type NetworkSettings, type Timeouts } from '../net/settings.js';

export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface TransportResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

export interface Transport {
  send(url: string, req: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: DEFAULT_CONNECT_TIMEOUT_MS, answerMs: DEFAULT_ANSWER_TIMEOUT_MS };

function timeoutError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Direct, or through the proxy the environment names for the target. */
export function networkTransport(settings: NetworkSettings): Transport {
  const direct = nodeTransport(settings.timeouts, settings.caFile);
  const proxy = settings.proxy;
  if (proxy === undefined) return direct;
  const proxied = new Map<string, Transport>();
  return {
    async send(url, req) {
      const via = proxyFor(new URL(url), proxy);
      if (via === undefined) return direct.send(url, req);
      let transport = proxied.get(via);
      if (transport === undefined) {
        const variable = (new URL(url).protocol === 'https:' ? proxy.variables?.https : proxy.variables?.http) ?? 'HTTPS_PROXY';
        const unsupported = (await import('../net/settings.js')).unsupportedProxy(via, variable);
        if (unsupported !== undefined) throw unsupported;
        const ca = settings.caFile === undefined ? undefined : (await import('../net/trusted-cas.js')).trustedCas(settings.caFile);
        transport = (await import('./undici-transport.js')).proxyTransport(via, settings.timeouts, ca);
        proxied.set(via, transport);
      }
      return transport.send(url, req);
    },
    async close() {
      await Promise.all([direct.close(), ...[...proxied.values()].map((t) => t.close())]);
    },
  };
}

/** `caFile`: SVC_CA_FILE, read on the first https request (net/trusted-cas.ts). */
export function nodeTransport(timeouts: Timeouts = DEFAULT_TIMEOUTS, caFile?: string): Transport {
  const http = new HttpAgent({ keepAlive: true });
  let https: Promise<{ agent: HttpsAgent; request: typeof httpRequest }> | undefined;
  const httpsParts = () =>
    (https ??= Promise.all([import('node:https'), caFile === undefined ? undefined : import('../net/trusted-cas.js')]).then(([m, cas]) => ({
      agent: new m.Agent({ keepAlive: true, ...(cas && caFile !== undefined && { ca: cas.trustedCas(caFile) }) }),
      request: m.request as typeof httpRequest,
    })));

  return {
    async send(url, req) {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const { agent, request } = secure ? await httpsParts() : { agent: http, request: httpRequest };
      const options: RequestOptions = { method: req.method, headers: req.headers, agent };
      if (req.body !== undefined) options.headers = { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
      const response = await new Promise<TransportResponse>((resolve, reject) => {
        const outgoing = request(target, options);
        let settled = false;
        const fail = (error: Error) => {
          if (settled) return;
          settled = true;
          clearTimeout(headersTimer);
          outgoing.destroy(error);
          reject(error);
        };
        const headersTimer = setTimeout(() => fail(timeoutError('UND_ERR_HEADERS_TIMEOUT', `no response within ${timeouts.answerMs} ms`)), timeouts.answerMs);
        outgoing.on('socket', (socket) => {
          if (!socket.connecting) return;
          const connectTimer = setTimeout(() => fail(timeoutError('UND_ERR_CONNECT_TIMEOUT', `could not connect within ${timeouts.connectMs} ms`)), timeouts.connectMs);
          const done = () => clearTimeout(connectTimer);
          socket.once(secure ? 'secureConnect' : 'connect', done);
          socket.once('close', done);
        });
        outgoing.on('error', fail);
        outgoing.on('response', (res: IncomingMessage) => {
          settled = true;
          clearTimeout(headersTimer);
          // Silence in the body: the stream errors, which whoever reads it sees.
          res.setTimeout(timeouts.answerMs, () => res.destroy(timeoutError('UND_ERR_BODY_TIMEOUT', `the body stalled for ${timeouts.answerMs} ms`)));
          resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
        });
        outgoing.end(req.body);
      });
      return decoded(response);
    },
    async close() {
      http.destroy();
      if (https) (await https).agent.destroy();
    },
  };
}

/** undici with a given dispatcher (tests' MockAgent); the caller closes the dispatcher. */
export function undiciTransport(dispatcher: Dispatcher): Transport {
  return {
    send: async (url, req) => (await import('./undici-transport.js')).dispatcherTransport(dispatcher).send(url, req),
    close: async () => undefined,
  };
}

const DECODERS = { gzip: 'createGunzip', 'x-gzip': 'createGunzip', deflate: 'createInflate', br: 'createBrotliDecompress' } as const;

/**
 * The body decompressed as it arrives (content-encoding gzip, deflate or br; node:zlib is
 * loaded only then), the header dropped since the body no longer is. An unknown encoding is
 * left as it is.
 */
export async function decoded(res: TransportResponse): Promise<TransportResponse> {
  const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (!(encoding in DECODERS)) return res;
  const [zlib, { pipeline }] = await Promise.all([import('node:zlib'), import('node:stream')]);
  // Pieces as large as a socket's reads: zlib's default 16 KiB would quadruple the pieces
  // every reader of the body handles.
  const decoder = zlib[DECODERS[encoding as keyof typeof DECODERS]]({ chunkSize: 64 * 1024 });
  // Bytes that do not decompress are named with their encoding (before any reader sees the error).
  decoder.once('error', (error) => Object.assign(error, { encoding }));
  // An error of either side (a reset, a stall, bytes that do not decompress) ends the other.
  pipeline(res.body, decoder, () => undefined);
  const headers = { ...res.headers };
  delete headers['content-encoding'];
  delete headers['content-length'];
  return { statusCode: res.statusCode, headers, body: decoder };
}

/**
 * An answer read whole is at most this: the largest the service sends whole is a document
 * (a template, a receipt); lists that grow (the return queue) are read as they arrive.
 */
export const RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Reads a whole body, at most `limit` bytes: past it the body is let go and the request fails.
 * A body that breaks off rejects with its error, as `for await` over it would (both end by
 * stream.finished); listening for its chunks instead of iterating saves the async iterator's
 * setup, ~0.2 ms of every command's first answer.
 */
export function readAll(body: Readable, limit = RESPONSE_BYTES, what = 'the answer'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let refused = false;
    const onData = (chunk: Buffer | string) => {
      const piece = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += piece.length;
      if (total > limit) {
        refused = true;
        body.off('data', onData);
        body.destroy();
        reject(new SvcError(`${what} is larger than ${limit / (1024 * 1024)} MiB: svc stopped reading it`, { hint: 'the service (or a proxy before it) sent far more than any answer of the interface; check SVC_BASE_URL' }));
        return;
      }
      chunks.push(piece);
    };
    body.on('data', onData);
    finished(body, (error) => {
      if (refused) return;
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, total));
    });
  });
}
