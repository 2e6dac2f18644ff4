// The sandbox's time: a base clock plus an offset that `POST /sandbox/clock` moves forward,
// so tests can expire codes (60 s), tokens (900 s, 1 h) and refresh tokens (30 days)
// without waiting. Every piece of sandbox logic reads time from here, never from Date.now.
import { systemClock, type Clock } from '../clock.js';

export interface SandboxClock extends Clock {
  /** Moves the clock forward; it never goes back, except through `reset`. */
  advance(seconds: number): void;
  /** Drops every advance: back to the base clock. */
  reset(): void;
  /** `now()` as ISO 8601 (UTC, milliseconds), the form of every timestamp the sandbox writes. */
  iso(): string;
  /** How far it was advanced, in ms: saved with a state (`sandbox start --state`). */
  offsetMs(): number;
  /** Restores a saved advance. */
  restoreOffset(ms: number): void;
}

export function createSandboxClock(base: Clock = systemClock): SandboxClock {
  let offsetMs = 0;
  const now = () => base.now() + offsetMs;
  return {
    now,
    advance(seconds) {
      if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('the clock only moves forward');
      offsetMs += seconds * 1000;
    },
    reset() {
      offsetMs = 0;
    },
    iso: () => new Date(now()).toISOString(),
    offsetMs: () => offsetMs,
    restoreOffset(ms) {
      if (Number.isFinite(ms) && ms >= 0) offsetMs = ms;
    },
  };
}
