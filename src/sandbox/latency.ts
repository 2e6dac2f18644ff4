// `sandbox start --latency 40ms | 20-60ms`: the sandbox answers like a service across a
// network. On loopback every answer takes well under a millisecond, so a client's own CPU is
// all that a benchmark sees and concurrency has nothing to hide; a real service is tens of
// milliseconds away. Each answer is held by a timer (no CPU spent) for the given time, or a
// time drawn uniformly from the range, after the request was handled and before the answer
// is written: state changes are made at once, the client sees them that much later.
import { randomInt } from 'node:crypto';
import { UsageError } from '../errors.js';

export interface Latency {
  readonly minMs: number;
  readonly maxMs: number;
}

const MAX_LATENCY_MS = 60_000;

/** `40`, `40ms`, `1.5s`, `20-60ms` (a range: uniform), `0` (none). */
export function parseLatency(text: string): Latency {
  const match = /^\s*(\d+(?:\.\d+)?)(ms|s)?\s*(?:-\s*(\d+(?:\.\d+)?)(ms|s)?)?\s*$/.exec(text);
  const bad = () =>
    new UsageError(`--latency: "${text}" is not a delay`, { hint: `e.g. 40ms, 1s, or a range 20-60ms (at most ${MAX_LATENCY_MS / 1000} s)` });
  if (!match) throw bad();
  const [, low, lowUnit, high, highUnit] = match;
  // One unit after the range applies to both ends: 20-60ms.
  const unit = (own: string | undefined) => ((own ?? highUnit ?? lowUnit) === 's' ? 1000 : 1);
  const minMs = Math.round(Number(low) * unit(lowUnit));
  const maxMs = high === undefined ? minMs : Math.round(Number(high) * unit(highUnit));
  if (!(maxMs >= minMs) || maxMs > MAX_LATENCY_MS) throw bad();
  return { minMs, maxMs };
}

/** The time to hold one answer, in ms. */
export function drawDelay({ minMs, maxMs }: Latency): number {
  return minMs === maxMs ? minMs : randomInt(minMs, maxMs + 1);
}

/** `40 ms` or `20-60 ms`, for the start-up lines. */
export function describeLatency({ minMs, maxMs }: Latency): string {
  return minMs === maxMs ? `${minMs} ms` : `${minMs}-${maxMs} ms (uniform)`;
}
