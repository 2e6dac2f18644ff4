// The company a return request belongs to, for the verbs that act on requests by ID
// (src/grants/found.ts): `--grant`, else the Grant a poll found it under, else the default.
import type { Caller } from '../api/caller.js';
import { RequestNotFoundError } from '../api/credit-note.js';
import { rememberPolledRequests, type RememberedRequest } from '../completion/cache.js';
import type { Factory } from '../factory.js';
import { writeReceiptsCaller } from '../auth/caller.js';
import { callerForFound, grantOfFound, rememberFoundBy } from '../grants/found.js';
import { companyLabel, namedCompany, pollCommandFor } from '../grants/company.js';
import { resolveRequestIds } from './request-id.js';

export function callerForRequests(f: Factory, requestIds: readonly string[]): Promise<Caller> {
  return callerForFound(f, 'requests', requestIds);
}

/** A request made whole, with the caller of the company it belongs to. */
export interface RequestOf {
  requestId: string;
  caller: Caller;
}

/**
 * The given requests (IDs or unique prefixes) in the given order, each whole and with the
 * caller of the company it was found under: `accept A B` with A and B found by a poll over
 * several companies moves each under its own Grant. One caller for all with --grant, or when
 * they share a Grant; IDs found under none go with the default's.
 */
export async function requestsOf(f: Factory, given: readonly string[]): Promise<RequestOf[]> {
  const grants = given.length < 2 ? [undefined] : await Promise.all(given.map((id) => grantOfFound(f, 'requests', [id])));
  if (new Set(grants).size < 2) {
    const caller = await callerForRequests(f, given);
    return (await resolveRequestIds(f, caller, given)).map((requestId) => ({ requestId, caller }));
  }
  const groups = new Map<string | undefined, number[]>();
  grants.forEach((grant, index) => groups.set(grant, [...(groups.get(grant) ?? []), index]));
  const out: RequestOf[] = new Array(given.length);
  for (const [grant, indexes] of groups) {
    const caller = await writeReceiptsCaller(f, grant);
    const whole = await resolveRequestIds(f, caller, indexes.map((i) => given[i]!));
    indexes.forEach((i, k) => (out[i] = { requestId: whole[k]!, caller }));
  }
  return out;
}

/**
 * What a poll saw: for completion (the IDs and statuses) and for the verbs that act on them
 * (their Grant). `whole`: the company's queue was listed whole (no --status narrowed it).
 */
export async function rememberPolled(f: Factory, caller: Caller, requests: readonly RememberedRequest[], whole: boolean): Promise<void> {
  const grant = caller.grantId ?? '';
  await Promise.all([
    rememberPolledRequests(f, { requests: requests.map((r) => ({ requestId: r.requestId, status: r.status, grant })), whole: whole ? [grant] : [] }),
    rememberFoundBy(f, caller, 'requests', requests.map((r) => r.requestId)),
  ]);
}

/** The same for a poll's --json, whose items are kept only as text: the requests' Grant only. */
export async function rememberPolledJson(f: Factory, caller: Caller, requestIds: readonly string[]): Promise<void> {
  if (caller.grantId === undefined) return;
  await rememberFoundBy(f, caller, 'requests', requestIds);
}

/**
 * A request the caller's company's queue does not hold (nor this machine's kept copy): the
 * message names whose queue was searched, and the hint is one that finds it when followed.
 * With several companies, the request may be another's, not polled under its Grant yet:
 * `poll --all-grants` lists every queue and remembers each request's company, so the same
 * command run again acts for it (without --grant, which would search the same queue again).
 */
export async function requestNotFound(f: Factory, caller: Pick<Caller, 'grantId'>, requestId: string, cause?: unknown): Promise<RequestNotFoundError> {
  const named = caller.grantId === undefined ? undefined : await namedCompany(f, caller.grantId);
  const whose = named === undefined ? '' : ` of ${companyLabel(named.entry)}`;
  if (named?.ofMany) {
    const settings = await f.settings();
    const again = settings.grant?.source === 'flag' ? 'run this again without --grant' : 'run this again';
    return new RequestNotFoundError(`no return request ${requestId} in the queue${whose}`, {
      hint: `it may be another company's: \`svc credit-note poll --all-grants\` lists the queues of all of them, each request with its company; then ${again}`,
      cause,
    });
  }
  return new RequestNotFoundError(`no return request ${requestId} in the queue${whose}`, { hint: `see the outstanding requests with \`${pollCommandFor(named)}\``, cause });
}
