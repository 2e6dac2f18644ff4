// A proxy in front of the sandbox for the fan-out tests: it records every request (when it
// arrived, when it was answered, a 429's Retry-After) and answers 403 where a test says so.
import { createServer, request as upstreamRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

export interface Seen {
  at: number;
  method: string;
  path: string;
  status: number;
  /** Seconds, on a 429. */
  retryAfter?: number;
  answeredAt: number;
}

export interface RecordingProxy {
  url: string;
  seen: Seen[];
  refuse: (method: string, path: string) => boolean;
  close(): Promise<void>;
}

/** Forwards to the sandbox; answers 403 insufficient_scope where `refuse` says so. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const state: RecordingProxy = { url: '', seen: [], refuse: () => false, close: async () => undefined };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const method = req.method ?? 'GET';
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (state.refuse(method, path)) {
        state.seen.push({ at, method, path, status: 403, answeredAt: Date.now() });
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'insufficient_scope', error_description: 'refused by the test', timestamp: new Date().toISOString() }));
        return;
      }
      const upstream = upstreamRequest(new URL(req.url ?? '/', target), { method, headers: req.headers }, (up) => {
        const body: Buffer[] = [];
        up.on('data', (c: Buffer) => body.push(c));
        up.on('end', () => {
          const retryAfter = up.statusCode === 429 ? Number(up.headers['retry-after']) : undefined;
          state.seen.push({ at, method, path, status: up.statusCode ?? 502, answeredAt: Date.now(), ...(retryAfter === undefined ? {} : { retryAfter }) });
          res.writeHead(up.statusCode ?? 502, up.headers);
          res.end(Buffer.concat(body));
        });
      });
      upstream.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/**
 * After each 429, nothing arrived until its Retry-After had passed (requests already on
 * their way when it was answered aside: 100 ms).
 */
export function expectNoRequestWhileHeld(seen: readonly Seen[]): number {
  const limited = seen.filter((s) => s.status === 429);
  for (const answer of limited) {
    const from = answer.answeredAt + 100;
    const until = answer.answeredAt + (answer.retryAfter ?? 1) * 1000 - 100;
    const early = seen.filter((s) => s.at > from && s.at < until);
    expect(early, `requests within the Retry-After of the 429 at ${answer.answeredAt}`).toEqual([]);
  }
  return limited.length;
}
