// IDs as people type them (docs/interface-decisions.md#ids-by-prefix): wherever an ID is taken, the whole ID
// or a unique prefix of 6 or more characters among the IDs the command knows of (the
// service's list, this machine's records). One rule for return requests, Grants, receipts,
// keys, events and subscriptions, so each says the same thing when a prefix is too short or
// fits several.
import { UsageError } from '../errors.js';

export const MIN_PREFIX = 6;
/** Candidates named in an "ambiguous" message; the rest are counted. */
export const NAMED = 10;

export interface IdKind {
  /** What the ID names, for messages: "request ID", "Grant", "receipt". */
  noun: string;
  /** Where a person finds the IDs, for the hint: "`svc grants list`". */
  listedBy: string;
  /** A fixed start that may be left out, e.g. `whsub_`; it does not count towards the 6. */
  optionalStart?: string;
  /** Case matters (base64url key IDs); otherwise a prefix matches in any case. */
  caseSensitive?: boolean;
}

/** The known IDs `id` is a prefix of (of any length), sorted: what a selector of several kinds weighs. */
export function prefixCandidates(id: string, known: readonly string[], kind: IdKind): string[] {
  const fold = (s: string) => (kind.caseSensitive ? s : s.toLowerCase());
  const wanted = [fold(id), ...(kind.optionalStart && !id.startsWith(kind.optionalStart) ? [fold(kind.optionalStart + id)] : [])];
  return known.filter((k) => wanted.some((w) => fold(k).startsWith(w))).sort();
}

/**
 * The whole ID that `given` stands for among `known`: itself when it is one of them or
 * matches none (the service's or the store's "not found" then speaks), else the one ID it
 * is a prefix of. A prefix shorter than 6 characters, or one that fits several IDs, is a
 * usage error naming the candidates.
 */
export function matchPrefix(given: string, known: Iterable<string>, kind: IdKind): string {
  const id = given.trim();
  // An empty argument ("$ID" of a command that printed nothing) names nothing: not "too short".
  if (id === '') throw new UsageError(`the ${kind.noun} is empty`, { hint: `give an ID (the IDs are listed by ${kind.listedBy}); a variable holding it may be empty because the command that set it failed` });
  const all = [...new Set(known)];
  if (all.includes(id)) return id;
  const matches = prefixCandidates(id, all, kind);
  if (matches.length === 0) return id;
  const significant = kind.optionalStart && id.startsWith(kind.optionalStart) ? id.length - kind.optionalStart.length : id.length;
  if (significant < MIN_PREFIX) {
    const after = kind.optionalStart ? ` after ${kind.optionalStart}` : '';
    throw new UsageError(`${kind.noun} "${id}" is too short: give the whole ID or at least ${MIN_PREFIX} of its characters${after}`, { hint: `the IDs are listed by ${kind.listedBy}` });
  }
  if (matches.length === 1) return matches[0]!;
  const named = matches.slice(0, NAMED).join(', ');
  const more = matches.length > NAMED ? ` and ${matches.length - NAMED} more` : '';
  throw new UsageError(`${kind.noun} "${id}" is ambiguous: it starts ${matches.length} IDs: ${named}${more}`, { hint: 'give more of its characters' });
}
