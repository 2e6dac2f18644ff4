// Durations given on the command line (`--timeout 300`, `--interval 30s`, `clock advance 15m`):
// a number of seconds, or a number with s, m, h or d. Each flag has a floor and a ceiling,
// and a value beyond them is a usage error naming the bound: a timer cannot wait longer than
// about 24.8 days (Node fires a larger setTimeout at once, which turned `--interval 3000000`
// into a poll every millisecond).
import { UsageError } from '../errors.js';

const UNIT_SECONDS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };
const UNIT_NAMES: Readonly<Record<string, string>> = { s: 'seconds', m: 'minutes', h: 'hours', d: 'days' };

export interface DurationBounds {
  /** How messages name it: `--timeout`, `SECONDS`. */
  name: string;
  minSeconds: number;
  maxSeconds: number;
  /** Fractions such as 0.5 (default: whole numbers only). */
  fractions?: boolean;
}

/** How a bound reads: 3600 → "1h", 90 → "90s". */
export function describeSeconds(seconds: number): string {
  for (const unit of ['d', 'h', 'm'] as const) {
    const size = UNIT_SECONDS[unit] ?? 1;
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      const name = UNIT_NAMES[unit] ?? unit;
      return `${n}${unit} (${n} ${n === 1 ? name.slice(0, -1) : name})`;
    }
  }
  return `${seconds}s`;
}

export function parseDurationSeconds(value: string, bounds: DurationBounds): number {
  const number = bounds.fractions ? '(\\d+(?:\\.\\d+)?)' : '(\\d+)';
  const match = new RegExp(`^${number}([smhd]?)$`).exec(value.trim());
  if (!match) {
    throw new UsageError(`${bounds.name}: "${value}" is not a duration`, {
      hint: `give ${bounds.fractions ? '' : 'whole '}seconds, or a number with s, m, h or d: 60, 15m, 1h`,
    });
  }
  const seconds = Number(match[1]) * (UNIT_SECONDS[match[2] ?? ''] ?? 1);
  if (seconds > bounds.maxSeconds) {
    throw new UsageError(`${bounds.name}: "${value}" is longer than the maximum of ${describeSeconds(bounds.maxSeconds)}`);
  }
  if (seconds < bounds.minSeconds) {
    throw new UsageError(`${bounds.name}: "${value}" is shorter than the minimum of ${describeSeconds(bounds.minSeconds)}`);
  }
  return seconds;
}

/** A duration as people read it, to two units: "45s", "14m 32s", "2h 5m", "3d 4h". */
export function humanDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const units: [number, string][] = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'm'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let left = s;
  for (const [size, name] of units) {
    if (parts.length === 2) break;
    const n = Math.floor(left / size);
    if (n > 0 || (parts.length > 0 && size !== 1)) {
      if (n > 0) parts.push(`${n}${name}`);
      left -= n * size;
      if (parts.length > 0 && n === 0) break;
    }
  }
  return parts.length === 0 ? '0s' : parts.join(' ');
}
