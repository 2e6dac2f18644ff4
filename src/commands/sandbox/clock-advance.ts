import { ClockAdvanceResponse, MAX_CLOCK_ADVANCE_SECONDS } from '../../contract/sandbox.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';
import { sandboxRequest } from './request.js';

export interface ClockAdvanceOptions {
  seconds: string;
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

/** Seconds, or a count with a unit: 90, 90s, 15m, 1h, 30d (the lifetimes tests want to pass). */
export function parseDuration(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  if (!match) {
    throw new UsageError(`SECONDS: "${value}" is not a duration`, {
      hint: 'give whole seconds, or a number with s, m, h or d: 60, 15m, 1h, 30d',
    });
  }
  const seconds = Number(match[1]) * (UNIT_SECONDS[match[2] ?? ''] ?? 1);
  if (seconds > MAX_CLOCK_ADVANCE_SECONDS) throw new UsageError(`SECONDS: "${value}" is more than ten years`);
  return seconds;
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
