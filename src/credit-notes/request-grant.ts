// The company a request belongs to, for the verbs that act on requests by ID: `--grant` when
// given, else the Grant the requests were found under (a poll over several companies, or one
// with --grant: src/store/found-under.ts), else SVC_GRANT_ID and the profile's default.
import { writeReceiptsCaller, type Caller } from '../api/caller.js';
import { knownIds, readAuthorizations } from '../auth/profile.js';
import type { Factory } from '../factory.js';
import { foundUnder, rememberFoundUnder } from '../store/found-under.js';
import { rememberRequestIds } from '../completion/cache.js';

export async function callerForRequests(f: Factory, requestIds: readonly string[]): Promise<Caller> {
  return writeReceiptsCaller(f, await grantOfRequests(f, requestIds));
}

/** The one Grant all the requests were found under, if --grant is not given and the profile still holds it. */
export async function grantOfRequests(f: Factory, requestIds: readonly string[]): Promise<string | undefined> {
  const settings = await f.settings();
  if (settings.grant?.source === 'flag' || requestIds.length === 0 || f.env.SVC_TOKEN) return undefined;
  const grants = new Set(await Promise.all(requestIds.map((id) => foundUnder(f, 'requests', id))));
  const [grant] = grants;
  if (grants.size !== 1 || grant === undefined) return undefined;
  return knownIds(readAuthorizations(await f.config(), settings.profile.value)).includes(grant) ? grant : undefined;
}

/** Remembers the requests a caller listed under its Grant (nothing for an API key or SVC_TOKEN). */
export async function rememberRequestsOf(f: Factory, caller: Caller, requestIds: readonly string[]): Promise<void> {
  const grant = caller.grantId;
  if (grant !== undefined) await rememberFoundUnder(f, 'requests', requestIds.map((id) => [id, grant] as const));
}

/** What a poll saw: for completion (the IDs and statuses) and for the verbs that act on them (their Grant). */
export async function rememberPolled(f: Factory, caller: Caller, requests: readonly { requestId: string; status: string }[]): Promise<void> {
  await Promise.all([rememberRequestIds(f, requests), rememberRequestsOf(f, caller, requests.map((r) => r.requestId))]);
}

/** The same for a poll's --json texts, read as they are written: the requests' Grant only. */
export async function rememberPolledJson(f: Factory, caller: Caller, texts: readonly string[]): Promise<void> {
  if (caller.grantId === undefined) return;
  const ids = texts.flatMap((text) => [...text.matchAll(/"requestId":\s*"([^"\\]+)"/g)].map((m) => m[1]!));
  await rememberRequestsOf(f, caller, ids);
}
