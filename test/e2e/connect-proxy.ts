// A CONNECT proxy on loopback, as a company network has one: it opens tunnels (to the host
// names it knows, each mapped to a loopback port, so that a name no resolver knows is reached
// only through it), may ask for credentials (407), and counts every CONNECT it is asked for.
import { createServer, type IncomingMessage } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ConnectProxyOptions {
  /** "host:port" the client asks for → "127.0.0.1:port" to connect to; other targets get 502. */
  routes: Record<string, string>;
  /** Require Proxy-Authorization: Basic with these. */
  credentials?: { user: string; password: string };
  /** Speak TLS to the client with this key and certificate (an https:// proxy). */
  tls?: { key: string; cert: string };
}

export interface ConnectProxy {
  /** http://127.0.0.1:PORT (https://localhost:PORT with `tls`) */
  url: string;
  port: number;
  /** Every CONNECT asked for ("host:port"), answered or refused. */
  connects: string[];
  /** How many were refused with 407. */
  refused(): number;
  close(): Promise<void>;
}

export async function startConnectProxy(opts: ConnectProxyOptions): Promise<ConnectProxy> {
  const connects: string[] = [];
  let refused = 0;
  const sockets = new Set<Socket>();
  // Only tunnels here: svc never sends a plain request through a proxy.
  const plain = (_req: IncomingMessage, res: import('node:http').ServerResponse) => void res.writeHead(405).end();
  const server = opts.tls ? createTlsServer({ key: opts.tls.key, cert: opts.tls.cert }, plain) : createServer(plain);
  server.on('tlsClientError', () => undefined);
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    const target = req.url ?? '';
    connects.push(target);
    if (opts.credentials) {
      const expected = `Basic ${Buffer.from(`${opts.credentials.user}:${opts.credentials.password}`).toString('base64')}`;
      if (req.headers['proxy-authorization'] !== expected) {
        refused++;
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
        return;
      }
    }
    const route = opts.routes[target];
    if (route === undefined) {
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host, port] = route.split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: opts.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    port,
    connects,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
