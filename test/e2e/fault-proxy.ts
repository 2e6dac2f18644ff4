// A pass-through HTTP front for the sandbox that misbehaves on request: slow answers, a 503,
// a reset connection, a body cut or stalled half-way, silence, a compressed answer, a
// redirect. It counts every request it sees, so a test can say how often svc tried.
import { createServer, request as upstreamRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';

export type Fault =
  /** Forward, and answer after `ms`. */
  | { kind: 'delay'; ms: number }
  /** Answer this instead of forwarding. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** Close the connection without an answer. */
  | { kind: 'reset' }
  /** Forward, send the headers and half the body, then close the connection. */
  | { kind: 'cut' }
  /** Forward, send the headers and half the body, then nothing more. */
  | { kind: 'stall' }
  /** Never answer. */
  | { kind: 'silence' }
  /** Forward, and compress the answer with this encoding if the request accepts it. */
  | { kind: 'encode'; encoding: 'gzip' | 'br' }
  /** Forward, and label the answer gzip without compressing it (a proxy that mangles bodies). */
  | { kind: 'garble' };

export interface FaultRequest {
  method: string;
  /** Path and query. */
  path: string;
  /** 1 for the first request with this method and path (query aside), 2 for the next... */
  attempt: number;
  headers: IncomingHttpHeaders;
}

export interface FaultProxyOptions {
  /** Serve HTTPS with this key and certificate (PEM): a TLS front for the sandbox. */
  tls?: { key: string; cert: string; /** Offer TLS 1.0 and nothing newer (an old server). */ tls10Only?: boolean };
  /** The host name in `url` (default 127.0.0.1; `localhost` for a certificate made out to it). */
  host?: string;
}

export interface FaultProxy {
  /** SVC_BASE_URL for the process under test. */
  url: string;
  /** Connections accepted so far (TLS handshakes included, failed ones too). */
  connections(): number;
  /** How many requests with this method reached the proxy on paths starting with `pathPrefix`. */
  attempts(method: string, pathPrefix: string): number;
  /** Every request seen, in order. */
  seen: FaultRequest[];
  close(): Promise<void>;
}

/** `fault` decides per request; undefined forwards it unchanged. */
export async function startFaultProxy(target: string, fault: (req: FaultRequest) => Fault | undefined = () => undefined, options: FaultProxyOptions = {}): Promise<FaultProxy> {
  const counts = new Map<string, number>();
  const seen: FaultRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const key = `${method} ${path.split('?')[0]}`;
      const attempt = (counts.get(key) ?? 0) + 1;
      counts.set(key, attempt);
      const request: FaultRequest = { method, path, attempt, headers: req.headers };
      seen.push(request);
      const chosen = fault(request);
      if (chosen?.kind === 'silence') return;
      if (chosen?.kind === 'reset') return req.socket.destroy();
      if (chosen?.kind === 'status') {
        res.writeHead(chosen.status, { 'content-type': 'application/json', ...chosen.headers });
        return res.end(chosen.body ?? JSON.stringify({ error: { code: 'unavailable', message: `fault proxy: ${chosen.status}` } }));
      }
      // Asked for no compression: the sandbox answers plainly, and an `encode` fault decides.
      const headers = { ...req.headers, host: new URL(target).host };
      delete headers['accept-encoding'];
      const upstream = upstreamRequest(new URL(path, target), { method, headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          const send = () => deliver(res, chosen, req.headers, answer.statusCode ?? 502, answer.headers, Buffer.concat(body));
          if (chosen?.kind === 'delay') setTimeout(send, chosen.ms);
          else send();
        });
      });
      upstream.on('error', (error) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`fault proxy: ${error.message}`);
      });
      upstream.end(Buffer.concat(chunks));
    });
  };
  const server = options.tls ? createTlsServer({ key: options.tls.key, cert: options.tls.cert, ...(options.tls.tls10Only && { minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' }) }, handle) : createServer(handle);
  // A failed handshake is the client's business; the server goes on.
  server.on('tlsClientError', () => undefined);
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://${options.host ?? '127.0.0.1'}:${port}`,
    connections: () => connections,
    seen,
    attempts: (method, pathPrefix) => seen.filter((r) => r.method === method && r.path.startsWith(pathPrefix)).length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function deliver(res: ServerResponse, fault: Fault | undefined, requestHeaders: IncomingHttpHeaders, status: number, headers: IncomingHttpHeaders, body: Buffer): void {
  const out: IncomingHttpHeaders = { ...headers };
  delete out['transfer-encoding'];
  delete out.connection;
  delete out['keep-alive'];
  let data = body;
  if (fault?.kind === 'encode' && String(requestHeaders['accept-encoding'] ?? '').includes(fault.encoding)) {
    data = fault.encoding === 'gzip' ? gzipSync(body) : brotliCompressSync(body);
    out['content-encoding'] = fault.encoding;
  }
  if (fault?.kind === 'garble') out['content-encoding'] = 'gzip';
  out['content-length'] = String(data.length);
  if (fault?.kind === 'cut' || fault?.kind === 'stall') {
    res.writeHead(status, out);
    res.write(data.subarray(0, Math.floor(data.length / 2)));
    if (fault.kind === 'cut') setTimeout(() => res.socket?.destroy(), 50);
    return;
  }
  res.writeHead(status, out);
  res.end(data);
}
