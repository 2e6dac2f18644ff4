// What the verbs that serve in the foreground until stopped share (`svc sandbox start`,
// `svc webhook listen`): their --port flag. How they learn to stop is the factory's
// `stopSignal` (src/io/stop-signal.ts).
import { UsageError } from '../errors.js';

/** A port given with `flag` (--port, --admin-port): 0 to 65535, 0 for a free one. */
export function parsePort(value: string, flag = '--port'): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port <= 65535)) throw new UsageError(`${flag}: "${value}" is not a port number from 0 to 65535`, { hint: `${flag} 0 picks a free port` });
  return port;
}
