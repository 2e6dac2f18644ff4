// A TCP proxy in front of PostgreSQL that holds one chosen client message: the first chunk a
// client sends whose bytes contain `match` (a query's text travels in the clear in the Query
// and Parse messages) is kept, with everything that connection sends after it, until
// `release()`. The server never sees the statement meanwhile, so a test can run another
// connection's work between two statements of a transaction: an interleaving that is
// otherwise a matter of luck happens every time. Or a test stops the server meanwhile: the
// client sees its connection die inside that statement (either side closing closes the other).
// With `after`, the matching message goes through and the next one of its connection is held:
// the client waits between two statements of its transaction, holding what the first took.
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface PgHoldProxy {
  port: number;
  /** Rewrites a postgres:// URL to go through the proxy. */
  via(url: string): string;
  /** Hold the first client message containing `match` from now on (with `after`: the one after it). */
  arm(match: string, opts?: { after?: boolean }): void;
  /** Resolves once the armed message is held. */
  held(): Promise<void>;
  /** Lets the held message (and what followed it) through. */
  release(): void;
  close(): Promise<void>;
}

export async function startPgHoldProxy(target: { host: string; port: number }): Promise<PgHoldProxy> {
  let armed: { match: Buffer; after: boolean } | undefined;
  let onHeld: (() => void) | undefined;
  let heldPromise: Promise<void> = Promise.resolve();
  let releaseHeld: (() => void) | undefined;
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    let queue: Buffer[] | undefined;
    let holdNext = false;
    client.on('data', (chunk: Buffer) => {
      if (queue) return void queue.push(chunk);
      let hold = holdNext;
      holdNext = false;
      if (!hold && armed && chunk.includes(armed.match)) {
        const { after } = armed;
        armed = undefined;
        if (after) {
          holdNext = true;
          return void upstream.write(chunk);
        }
        hold = true;
      }
      if (hold) {
        queue = [chunk];
        releaseHeld = () => {
          const held = queue ?? [];
          queue = undefined;
          for (const c of held) upstream.write(c);
        };
        onHeld?.();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.host = `127.0.0.1:${port}`;
      return u.toString();
    },
    arm(match, opts = {}) {
      armed = { match: Buffer.from(match), after: opts.after ?? false };
      heldPromise = new Promise<void>((resolve) => {
        onHeld = resolve;
      });
    },
    held: () => heldPromise,
    release() {
      releaseHeld?.();
      releaseHeld = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
