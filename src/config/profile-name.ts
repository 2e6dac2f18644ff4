// Profile names: they name a directory of the state directory, a keychain account prefix
// and a key of config.json, so they are limited to a safe pattern (`__proto__` is no name).
// And a mistyped one is caught: `--profile prodution` on a command that cannot create a
// profile exits 2 with the names that come close, instead of running as a new empty one.
import { UsageError } from '../errors.js';

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkProfileName(name: string, from: 'flag' | 'env'): string {
  if (PROFILE_NAME.test(name)) return name;
  throw new UsageError(`${from === 'flag' ? '--profile' : 'SVC_PROFILE'}: "${name}" is not a profile name`, {
    hint: 'use up to 64 letters, digits, ".", "_" and "-", starting with a letter or digit',
  });
}

/** Levenshtein distance, for did-you-mean. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Known names within a third of the name's length (at least 1, at most 3 edits), closest first. */
export function similarNames(name: string, known: readonly string[]): string[] {
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  return known
    .map((k) => ({ k, d: distance(name.toLowerCase(), k.toLowerCase()) }))
    .filter(({ d }) => d <= limit)
    .sort((x, y) => x.d - y.d || x.k.localeCompare(y.k))
    .map(({ k }) => k);
}

/** The error for a --profile that names no profile, on a command that does not create one. */
export function unknownProfileError(name: string, known: readonly string[], from: '--profile' | 'SVC_PROFILE' = '--profile'): UsageError {
  const close = similarNames(name, known);
  const suggestion = close.length > 0 ? `did you mean ${close.map((c) => `"${c}"`).join(' or ')}? ` : '';
  return new UsageError(`${from}: there is no profile "${name}"`, {
    hint: `${suggestion}profiles: ${[...known].sort().join(', ')}; a new one starts with \`svc config set base-url URL --profile ${name}\` or \`svc auth login --profile ${name}\``,
  });
}
