// Return request IDs as people type them: the whole ID, or a unique prefix of 6 or more
// characters among the requests the service lists now and those this machine has seen (the
// last poll, the ledger's kept items). A full UUID is taken as it is, without a lookup.
import type { Caller } from '../api/caller.js';
import { listReturnRequests } from '../api/credit-note.js';
import { rememberedRequestIds } from '../completion/cache.js';
import type { Factory } from '../factory.js';
import { MIN_PREFIX, matchPrefix } from '../ids/prefix.js';

const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Each given ID resolved to a whole one, in order, with one lookup of the queue for all of
 * them. An ID that matches nothing is passed on as given: the service's 404 says the rest.
 */
export async function resolveRequestIds(f: Factory, caller: Caller, given: readonly string[]): Promise<string[]> {
  const trimmed = given.map((g) => g.trim());
  if (trimmed.every((id) => FULL_ID.test(id))) return trimmed;
  const known = new Set([...(await listReturnRequests(caller)).map((i) => i.requestId), ...(await rememberedRequestIds(f))]);
  return trimmed.map((id) => matchRequestId(id, [...known]));
}

/** Whether an ID may be a prefix worth looking up: not a whole UUID, and long enough to be one. */
export function mayBePrefix(id: string): boolean {
  return !FULL_ID.test(id.trim()) && id.trim().length >= MIN_PREFIX;
}

/** The whole ID a given one stands for among `known` (src/ids/prefix.ts); a whole UUID is taken as it is. */
export function matchRequestId(given: string, known: readonly string[]): string {
  if (FULL_ID.test(given.trim())) return given.trim();
  return matchPrefix(given, known, { noun: 'request ID', listedBy: '`svc credit-note poll`' });
}
