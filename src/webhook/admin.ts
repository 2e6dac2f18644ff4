// `svc webhook listen --admin-port`: a second HTTP server, never the delivery port, for
// whoever runs the listener as a service (systemd, a load balancer, Prometheus):
//
//   GET /healthz   200 while the process runs
//   GET /readyz    200 when deliveries can be accepted; else 503 and a JSON body naming why
//   GET /metrics   Prometheus text format 0.0.4 (metrics.ts)
//
// Anything else is 404. It answers only GETs, holds no secret and changes nothing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bindError } from '../net/bind-error.js';

/** One reason the listener is not ready, e.g. { check: "database", detail: "…unreachable" }. */
export interface NotReady {
  check: 'delivery_port' | 'secrets' | 'journal' | 'database' | 'draining';
  detail: string;
}

export interface AdminOptions {
  host: string;
  port: number;
  /** The reasons it is not ready now; empty when ready. */
  readiness(): Promise<NotReady[]>;
  metrics: { contentType: string; text(): Promise<string> };
}

export interface RunningAdmin {
  readonly url: string;
  close(): Promise<void>;
}

export async function startAdmin(opts: AdminOptions): Promise<RunningAdmin> {
  const answer = (res: ServerResponse, status: number, type: string, text: string) => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
    res.end(text);
  };
  const json = (res: ServerResponse, status: number, body: object) => answer(res, status, 'application/json', `${JSON.stringify(body)}\n`);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/healthz' && path !== '/readyz' && path !== '/metrics') return json(res, 404, { error: 'not_found', error_description: 'GET /healthz, /readyz or /metrics' });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return json(res, 405, { error: 'method_not_allowed', error_description: `${path} answers GET` });
    }
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    if (path === '/metrics') return answer(res, 200, opts.metrics.contentType, await opts.metrics.text());
    const reasons = await opts.readiness();
    return reasons.length === 0 ? json(res, 200, { status: 'ready' }) : json(res, 503, { status: 'not_ready', reasons });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(bindError(error, opts.host, opts.port, { port: '--admin-port', host: '--admin-host' })));
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
