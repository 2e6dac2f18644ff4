// The company a return request belongs to, for the verbs that act on requests by ID
// (src/grants/found.ts): `--grant`, else the Grant a poll found it under, else the default.
import type { Caller } from '../api/caller.js';
import { rememberRequestIds, type RememberedRequest } from '../completion/cache.js';
import type { Factory } from '../factory.js';
import { callerForFound, rememberFoundBy } from '../grants/found.js';

export function callerForRequests(f: Factory, requestIds: readonly string[]): Promise<Caller> {
  return callerForFound(f, 'requests', requestIds);
}

/** What a poll saw: for completion (the IDs and statuses) and for the verbs that act on them (their Grant). */
export async function rememberPolled(f: Factory, caller: Caller, requests: readonly RememberedRequest[]): Promise<void> {
  await Promise.all([rememberRequestIds(f, requests), rememberFoundBy(f, caller, 'requests', requests.map((r) => r.requestId))]);
}

/** The same for a poll's --json, whose items are kept only as text: the requests' Grant only. */
export async function rememberPolledJson(f: Factory, caller: Caller, requestIds: readonly string[]): Promise<void> {
  if (caller.grantId === undefined) return;
  await rememberFoundBy(f, caller, 'requests', requestIds);
}
