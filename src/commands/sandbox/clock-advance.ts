import { ClockAdvanceResponse, MAX_CLOCK_ADVANCE_SECONDS } from '../../contract/sandbox.js';
import { parseDurationSeconds } from '../../io/duration.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';
import { sandboxRequest } from './request.js';

export interface ClockAdvanceOptions {
  seconds: string;
}

/** Seconds, or a count with a unit: 90, 90s, 15m, 1h, 30d (the lifetimes tests want to pass). */
export function parseDuration(value: string): number {
  return parseDurationSeconds(value, { name: 'SECONDS', minSeconds: 0, maxSeconds: MAX_CLOCK_ADVANCE_SECONDS });
}

export async function run(opts: ClockAdvanceOptions, f: Factory): Promise<void> {
  const advanceSeconds = parseDuration(opts.seconds);
  // Not retried: a repeat after a lost answer would move the clock twice.
  const result = await sandboxRequest(f, {
    method: 'POST',
    path: '/sandbox/clock',
    body: { advanceSeconds },
    schema: ClockAdvanceResponse,
  });
  if (f.io.json) writeJson(f.io, result);
  else println(f.io, result.now);
}
