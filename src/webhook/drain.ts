// A listener's drain (SIGTERM, SIGINT or SIGHUP; see docs/interface-decisions.md): readiness turns
// 503 at once, the delivery port stops taking connections, the requests in flight are
// journalled and answered, and what was processed is forwarded, all within --drain-timeout;
// then the process ends with 0, also when the time ran out (the forwards still under way are
// aborted then). A delivery journalled but not processed by then stays in the journal: the
// next start (or another listener on the same team journal) processes it.
// A second signal ends the drain and the process at once.
import { ExitCode } from '../errors.js';
import { parseDurationSeconds } from '../io/duration.js';

export const DEFAULT_DRAIN_TIMEOUT = '30s';

export function parseDrainTimeout(value: string | undefined): number {
  return parseDurationSeconds(value ?? DEFAULT_DRAIN_TIMEOUT, { name: '--drain-timeout', minSeconds: 0, maxSeconds: 3600 }) * 1000;
}

/** Resolves true when `work` finished within `ms`, false when the time ran out first. */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  // No deadline (a listener that failed to start winds down without one): setTimeout would
  // warn that Infinity does not fit its 32 bits, on the stderr of a JSON log.
  if (!Number.isFinite(ms)) return work.then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * During a drain, SIGINT, SIGTERM or SIGHUP again quits at once with exit 3 (cancelled): the person
 * or supervisor has chosen not to wait. Nothing acknowledged is lost by it: an acknowledged
 * delivery is journalled already, and one not processed is processed at the next start.
 */
export function quitOnSecondSignal(say: (signal: string) => void): { dispose(): void } {
  const quit = (signal: NodeJS.Signals) => {
    say(signal);
    // The one exit outside main.ts: the drain that main.ts waits for is what is being abandoned.
    process.exit(ExitCode.cancelled);
  };
  process.on('SIGINT', quit);
  process.on('SIGTERM', quit);
  process.on('SIGHUP', quit);
  return {
    dispose() {
      process.off('SIGINT', quit);
      process.off('SIGTERM', quit);
      process.off('SIGHUP', quit);
    },
  };
}
