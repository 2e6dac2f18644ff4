// A pass-through HTTP proxy in front of the sandbox that holds chosen requests at a barrier:
// each held request waits until `parties` of them have arrived, or `waitMs` after the first
// one arrived. Two svc processes pointed at it meet at that step if nothing keeps them
// apart, which turns a race that is merely likely into one that always happens; when
// something does keep them apart (a lock), only one arrives and it goes on after `waitMs`.
import { createServer, request as upstreamRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BarrierOptions {
  /** Whether a request is held at the barrier. */
  hold(method: string, path: string): boolean;
  parties: number;
  waitMs: number;
}

export interface BarrierProxy {
  /** SVC_BASE_URL for the processes under test. */
  url: string;
  /** How many held requests have arrived so far. */
  arrived(): number;
  close(): Promise<void>;
}

export async function startBarrierProxy(target: string, opts: BarrierOptions): Promise<BarrierProxy> {
  let arrived = 0;
  let open: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let released: Promise<void> | undefined;
  const barrier = (): Promise<void> => {
    arrived += 1;
    released ??= new Promise<void>((resolve) => {
      open = resolve;
      timer = setTimeout(resolve, opts.waitMs);
    });
    if (arrived >= opts.parties) open?.();
    return released;
  };

  const server = createServer((req, res) => {
    const forward = () => {
      const upstream = upstreamRequest(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', (error) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`barrier proxy: ${error.message}`);
      });
      req.pipe(upstream);
    };
    if (opts.hold(req.method ?? 'GET', req.url ?? '/')) void barrier().then(forward);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrived: () => arrived,
    close: () =>
      new Promise<void>((resolve) => {
        clearTimeout(timer);
        open?.();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
