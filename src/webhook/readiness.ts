// Whether a listener can accept deliveries now (`GET /readyz` on the admin port): its
// delivery port is bound, it has signing secrets to verify with, its journal takes writes
// (the last write did not fail; with a team database, the database answers), and it is not
// draining. A load balancer stops sending to a listener that is not ready, so deliveries go
// to one that can journal them instead of getting 503 here.
import type { NotReady } from './admin.js';

export interface ReadinessOptions {
  /** How many signing secrets are loaded. */
  secrets(): number;
  /** Resolves when the team database answers; undefined for the file journal. */
  ping?: (() => Promise<void>) | undefined;
  pingTimeoutMs?: number;
}

export interface Readiness {
  bound(): void;
  draining(): void;
  /** A journal write failed (deliveries are answered 503), or one succeeded again. */
  journalFailed(error: unknown): void;
  journalWritten(): void;
  check(): Promise<NotReady[]>;
}

export function createReadiness(opts: ReadinessOptions): Readiness {
  let isBound = false;
  let isDraining = false;
  let journalError: string | undefined;
  const timeoutMs = opts.pingTimeoutMs ?? 2_000;
  return {
    bound: () => void (isBound = true),
    draining: () => void (isDraining = true),
    journalFailed: (error) => void (journalError = error instanceof Error ? error.message : String(error)),
    journalWritten: () => void (journalError = undefined),
    async check() {
      const reasons: NotReady[] = [];
      if (isDraining) reasons.push({ check: 'draining', detail: 'the listener is shutting down and takes no new deliveries' });
      if (!isBound) reasons.push({ check: 'delivery_port', detail: 'the delivery port takes no deliveries yet: the listener is starting (binding it, or making its subscriptions)' });
      if (opts.secrets() === 0) reasons.push({ check: 'secrets', detail: 'no webhook signing secret is loaded, so no delivery could be verified' });
      if (opts.ping) {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs)));
        try {
          await Promise.race([opts.ping(), timedOut]);
          // The database answers: a write that failed while it was away is no reason any more.
          journalError = undefined;
        } catch (error) {
          reasons.push({ check: 'database', detail: error instanceof Error ? error.message : String(error) });
        } finally {
          clearTimeout(timer);
        }
      }
      if (journalError !== undefined && !reasons.some((r) => r.check === 'database')) reasons.push({ check: 'journal', detail: `the last journal write failed: ${journalError}` });
      return reasons;
    },
  };
}
