// How a command that runs until stopped (a server in the foreground, a --watch loop) learns
// that it should stop: by default SIGINT or SIGTERM; the demo and tests give their own.
export interface StopSignal {
  /** Resolves with the name of the signal that asked to stop. */
  stopped: Promise<string>;
  dispose(): void;
}

let listening = 0;

/** Whether a command is listening for SIGINT itself (a server, a --watch, a fan-out): main's default interrupt then stays out. */
export function stopIsHandled(): boolean {
  return listening > 0;
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
    let disposed = false;
    dispose = () => {
      if (!disposed) listening--;
      disposed = true;
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    };
    listening++;
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { stopped, dispose };
}
