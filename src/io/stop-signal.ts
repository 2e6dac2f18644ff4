// How a command that runs until stopped (a server in the foreground, a --watch loop) learns
// that it should stop: by default SIGINT or SIGTERM; the demo and tests give their own.
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
      // Not while the signal is being dispatched: a signal-exit handler (loaded with
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
