// A raw TCP proxy in front of PostgreSQL that stops one chosen statement on its way: the
// first client chunk whose bytes contain the armed text (a statement's text travels in the
// clear in the Query and Parse messages) is held, with everything its connection sends
// after it. The server never sees it; the client waits inside that query. A test then stops
// PostgreSQL (or terminates the backend), and the client sees its connection die in the
// middle of the query: the fault happens at the same step every time. Closing either side
// closes the other.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface PgFaultProxy {
  /** The URL rewritten to go through the proxy. */
  via(url: string): string;
  /**
   * Holds the first client message containing `text` from now on (with `after`: lets that
   * one through, and holds the next message of its connection); resolves once held.
   */
  hold(text: string, opts?: { after?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export async function startPgFaultProxy(port: number): Promise<PgFaultProxy> {
  let armed: { text: Buffer; after: boolean; held(): void } | undefined;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    let holding = false;
    let holdNext: (() => void) | undefined;
    client.on('data', (chunk: Buffer) => {
      if (holding) return;
      if (holdNext) {
        holding = true;
        return holdNext();
      }
      if (armed && chunk.includes(armed.text)) {
        const { after, held } = armed;
        armed = undefined;
        if (after) {
          holdNext = held;
          return void upstream.write(chunk);
        }
        holding = true;
        return held();
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxyPort = (server.address() as AddressInfo).port;
  return {
    via: (url) => {
      const u = new URL(url);
      u.host = `127.0.0.1:${proxyPort}`;
      return u.toString();
    },
    hold: (text, opts = {}) => new Promise<void>((resolve) => (armed = { text: Buffer.from(text), after: opts.after ?? false, held: resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
