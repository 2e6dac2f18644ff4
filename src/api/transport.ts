// How the API client's bytes travel. The default is Node's own node:http (node:https for an
// https base URL, loaded only then), with keep-alive agents: it is in Node's start-up
// snapshot, so a command pays nothing to load it, where undici cost some 39 ms of every
// command that made a request (PERF-NOTES.md). Tests that script answers with undici's
// MockAgent pass a dispatcher instead, and undici is loaded for them alone.
//
// Timeouts, as undici's were: 10 s to connect, 30 s for the response head, 30 s of silence
// in the body. They fail with undici's error codes, which the client retries (client.ts).
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

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

const CONNECT_TIMEOUT_MS = 10_000;
const HEADERS_TIMEOUT_MS = 30_000;
const BODY_TIMEOUT_MS = 30_000;

function timeoutError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

export function nodeTransport(): Transport {
  const http = new HttpAgent({ keepAlive: true });
  let https: Promise<{ agent: HttpsAgent; request: typeof httpRequest }> | undefined;
  const httpsParts = () =>
    (https ??= import('node:https').then((m) => ({ agent: new m.Agent({ keepAlive: true }), request: m.request as typeof httpRequest })));

  return {
    async send(url, req) {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const { agent, request } = secure ? await httpsParts() : { agent: http, request: httpRequest };
      const options: RequestOptions = { method: req.method, headers: req.headers, agent };
      if (req.body !== undefined) options.headers = { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
      return new Promise<TransportResponse>((resolve, reject) => {
        const outgoing = request(target, options);
        let settled = false;
        const fail = (error: Error) => {
          if (settled) return;
          settled = true;
          clearTimeout(headersTimer);
          outgoing.destroy(error);
          reject(error);
        };
        const headersTimer = setTimeout(() => fail(timeoutError('UND_ERR_HEADERS_TIMEOUT', `no response within ${HEADERS_TIMEOUT_MS} ms`)), HEADERS_TIMEOUT_MS);
        outgoing.on('socket', (socket) => {
          if (!socket.connecting) return;
          const connectTimer = setTimeout(() => fail(timeoutError('UND_ERR_CONNECT_TIMEOUT', `could not connect within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
          const done = () => clearTimeout(connectTimer);
          socket.once(secure ? 'secureConnect' : 'connect', done);
          socket.once('close', done);
        });
        outgoing.on('error', fail);
        outgoing.on('response', (res: IncomingMessage) => {
          settled = true;
          clearTimeout(headersTimer);
          // Silence in the body: the stream errors, which whoever reads it sees.
          res.setTimeout(BODY_TIMEOUT_MS, () => res.destroy(timeoutError('UND_ERR_BODY_TIMEOUT', `the body stalled for ${BODY_TIMEOUT_MS} ms`)));
          resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
        });
        outgoing.end(req.body);
      });
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
    async send(url, req) {
      const { request } = await import('undici');
      const res = await request(url, { dispatcher, method: req.method as Dispatcher.HttpMethod, headers: req.headers, body: req.body });
      return { statusCode: res.statusCode, headers: res.headers, body: res.body };
    },
    close: async () => undefined,
  };
}

/** Reads a whole body. */
export async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}
