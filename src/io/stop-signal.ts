// How a command that runs until stopped (a server in the foreground, a --watch loop) learns
// that it should stop: by default SIGINT or SIGTERM; the demo and tests give their own.
export interface StopOptions {
  /** SIGHUP too (the terminal went away, or a supervisor's reload): for servers, which drain on it rather than die. */
  hangup?: boolean;
}

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

/** SIGINT or SIGTERM (and SIGHUP when asked), once: a second Ctrl-C during shutdown gets Node's default (exit at once). */
export function processStopSignal(opts: StopOptions = {}): StopSignal {
  const signals: NodeJS.Signals[] = opts.hangup ? ['SIGINT', 'SIGTERM', 'SIGHUP'] : ['SIGINT', 'SIGTERM'];
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
      for (const signal of signals) process.off(signal, stop);
    };
    listening++;
    for (const signal of signals) process.on(signal, stop);
  });
  return { stopped, dispose };
}
