// Whole numbers given on the command line (`--limit 20`): digits only, with a floor and a
// ceiling. A value beyond them is a usage error naming the bound it passed, not "not a whole
// number"; each message ends with what the flag takes.
import { UsageError } from '../errors.js';

export interface CountBounds {
  /** How messages name it: `--limit`. */
  name: string;
  min: number;
  max: number;
}

/** The most a `--limit` takes: nine digits, which any list, page or database LIMIT holds. */
export const MAX_LIMIT = 999_999_999;

const shown = (n: number) => n.toLocaleString('en-US');

/** `value` as a whole number within the bounds, or a usage error saying which bound it passed. */
export function parseCount(value: string, bounds: CountBounds): number {
  const hint = `${bounds.name} takes a whole number from ${shown(bounds.min)} to ${shown(bounds.max)}`;
  const digits = value.trim();
  if (!/^\d+$/.test(digits)) throw new UsageError(`${bounds.name}: "${value}" is not a whole number`, { hint });
  // Compared as digits: a number of 20 digits is past any bound without being rounded first.
  const significant = digits.replace(/^0+(?=\d)/, '');
  if (significant.length > String(bounds.max).length || Number(significant) > bounds.max) {
    throw new UsageError(`${bounds.name}: ${significant} is more than ${shown(bounds.max)}, the most it takes`, { hint });
  }
  const n = Number(significant);
  if (n < bounds.min) throw new UsageError(`${bounds.name}: ${significant} is less than ${shown(bounds.min)}, the least it takes`, { hint });
  return n;
}

/** A `--limit N`: how many to show, from 1 to MAX_LIMIT. */
export function parseLimit(value: string): number {
  return parseCount(value, { name: '--limit', min: 1, max: MAX_LIMIT });
}
