// What the verbs that serve in the foreground until stopped share (`svc sandbox start`,
// `svc webhook listen`): their --port flag, and the signals that ask them to stop.
import { UsageError } from '../errors.js';

export interface StopSignal {
  /** Resolves with the name of the signal that asked to stop. */
  stopped: Promise<string>;
  dispose(): void;
}

/** SIGINT or SIGTERM, once: a second Ctrl-C during shutdown gets Node's default (exit at once). */
export function processStopSignal(): StopSignal {
  let dispose = () => {};
  const stopped = new Promise<string>((resolveStop) => {
    const stop = (signal: NodeJS.Signals) => {
      // Not while the signal is being dispatched: a signal-exit handler (loaded with ora or
      // @inquirer) that then finds itself the only listener re-raises the signal and kills
      // the process before the shutdown has run.
      setImmediate(dispose);
      resolveStop(signal);
    };
    dispose = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { stopped, dispose };
}

export function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port <= 65535)) throw new UsageError(`--port: "${value}" is not a port number from 0 to 65535`, { hint: '--port 0 picks a free port' });
  return port;
}
