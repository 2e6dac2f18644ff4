// What a running listener tells its operator about, in one vocabulary shared by the metrics
// (metrics.ts, loaded only with --admin-port) and the logs (log.ts): how each delivery
// request was answered, what was processed, what a forward target answered.
import type { SignatureFailure } from './signature.js';

/** How a delivery request was answered. */
/** `off_route`: not a delivery at all (another path, or not a POST: a health check sent to the wrong port). */
export type DeliveryOutcome = 'accepted' | 'duplicate' | 'bad_signature' | 'stale' | 'future' | 'malformed' | 'off_route' | 'unavailable';

export interface ListenerMetrics {
  /** One answered request; `seconds` from its arrival to a 2xx (acknowledgements only). */
  delivery(outcome: DeliveryOutcome, seconds?: number): void;
  processed(event: string | null, ok: boolean): void;
  /** A delivery's forward to a target, once it is over (its last attempt's answer). `statusClass`: 2xx, 3xx, 4xx, 5xx, or error (no answer). */
  forwarded(target: string, statusClass: string): void;
  /** One request sent to a target, a retry included. */
  forwardAttempt(target: string, statusClass: string): void;
}

export const NO_METRICS: ListenerMetrics = {
  delivery: () => undefined,
  processed: () => undefined,
  forwarded: () => undefined,
  forwardAttempt: () => undefined,
};

/** A refusal (receiver.ts's status and kind) as a metric outcome: stale and future signatures apart, as they call for a clock to fix (this one's, or the sender's). */
export function refusalOutcome(rejection: { status: number; signature?: SignatureFailure | undefined }): DeliveryOutcome {
  const { status, signature } = rejection;
  if (status >= 500) return 'unavailable';
  if (status === 400) return signature === 'stale' || signature === 'future' ? signature : 'bad_signature';
  if (status === 404 || status === 405) return 'off_route';
  return 'malformed';
}

/** 200 → "2xx"; no answer → "error". */
export function statusClassOf(status: number | undefined): string {
  return status === undefined ? 'error' : `${Math.floor(status / 100)}xx`;
}
