// A free TCP port on loopback, for listeners that must know their port before they start
// (a redirect URI registered ahead of the login that listens on it).
import { createServer } from 'node:net';

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
