// A pass-through HTTP proxy in front of the sandbox that holds one chosen request, so that a
// test can kill the svc process at that step: either before the request reaches the service
// ("before": the service never sees it), or after the service answered it ("after": the
// service did the work, and the answer never reaches svc — a crash after the submission was
// accepted, or an answer lost on the way).
import { createServer, request as upstreamRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldOptions {
  /** The request to hold (the first one that matches). */
  hold(method: string, path: string): boolean;
  when: 'before' | 'after';
}

export interface HoldProxy {
  /** SVC_BASE_URL for the process under test. */
  url: string;
  /** Resolves once the chosen request is held (for "after": once the service has answered it). */
  held: Promise<void>;
  close(): Promise<void>;
}

export async function startHoldProxy(target: string, opts: HoldOptions): Promise<HoldProxy> {
  let holding = false;
  let markHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    markHeld = resolve;
  });
  const forward = (req: IncomingMessage, body: Buffer, answer: (status: number, headers: IncomingMessage['headers'], data: Buffer) => void, fail: (error: Error) => void) => {
    const upstream = upstreamRequest(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => answer(res.statusCode ?? 502, res.headers, Buffer.concat(chunks)));
    });
    upstream.on('error', fail);
    upstream.end(body);
  };
  const server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const hold = !holding && opts.hold(req.method ?? 'GET', req.url ?? '/');
      if (hold) holding = true;
      if (hold && opts.when === 'before') return markHeld();
      forward(
        req,
        body,
        (status, headers, data) => {
          if (hold) return markHeld();
          res.writeHead(status, headers);
          res.end(data);
        },
        (error) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`hold proxy: ${error.message}`);
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    held,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
