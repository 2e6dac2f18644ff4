// Sandbox-only endpoints (docs/interface-decisions.md#sandbox-endpoints), shared by the sandbox and the `svc sandbox` verbs.
import * as z from './zod.js';

/** Ten years: enough to expire anything the service issues, small enough to keep dates valid. */
export const MAX_CLOCK_ADVANCE_SECONDS = 10 * 365 * 24 * 60 * 60;

/** `GET /sandbox/health`. */
export const SandboxHealth = z.looseObject({
  status: z.literal('ok'),
  version: z.string(),
  startedAt: z.iso.datetime(),
  /** When the data it holds began (its start, or the making of a `--state` state); older sandboxes lack it. */
  stateSince: z.iso.datetime().optional(),
  /** Whether its state survives a restart (`sandbox start --state`). */
  persistent: z.boolean().optional(),
  now: z.iso.datetime(),
});
export type SandboxHealth = z.infer<typeof SandboxHealth>;

/** `POST /sandbox/clock` request. */
export const ClockAdvanceRequest = z.object({
  advanceSeconds: z.int().min(0).max(MAX_CLOCK_ADVANCE_SECONDS),
});
export type ClockAdvanceRequest = z.infer<typeof ClockAdvanceRequest>;

/** `POST /sandbox/clock` response: the sandbox's time after the move. */
export const ClockAdvanceResponse = z.looseObject({ now: z.iso.datetime() });
export type ClockAdvanceResponse = z.infer<typeof ClockAdvanceResponse>;

/** The most answers `POST /sandbox/outage` turns into 503s at once. */
export const MAX_OUTAGE_REQUESTS = 1000;

/** `POST /sandbox/outage` body: the next `requests` API requests are answered 503. */
export const OutageRequest = z.object({
  requests: z.int().min(0).max(MAX_OUTAGE_REQUESTS),
  retryAfterSeconds: z.int().min(0).max(3600).optional(),
});
export type OutageRequest = z.infer<typeof OutageRequest>;

/** `POST /sandbox/outage` response: how many answers are still to be 503s. */
export const OutageResponse = z.looseObject({ requests: z.int().min(0), retryAfterSeconds: z.int().min(0) });
export type OutageResponse = z.infer<typeof OutageResponse>;

/** `POST /sandbox/reset` response. */
export const SandboxResetResponse = z.looseObject({ status: z.literal('reset'), now: z.iso.datetime() });
export type SandboxResetResponse = z.infer<typeof SandboxResetResponse>;
