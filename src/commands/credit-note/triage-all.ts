// `svc credit-note triage --all-grants | --grants FILE`: the open requests of many companies
// in one walk, oldest first across them. They are fetched through the fan-out (a company
// that fails is said on stderr, the walk goes on with the others) and each is remembered
// with its Grant, so every decision (show, accept, reject, issue) acts for its company.
import type { Caller } from '../../api/caller.js';
import { writeReceiptsCaller } from '../../auth/caller.js';
import { oldestFirst } from '../../credit-notes/filter.js';
import { openRequests } from '../../credit-notes/pick.js';
import type { ReadItem } from '../../credit-notes/queue.js';
import type { Factory } from '../../factory.js';
import { concurrencyOf, fanOut, fanOutTargets, type FanOutFlags } from '../../grants/fan-out.js';
import { failIfAllFailed, reportFailures, type FailedGrant } from '../../grants/report.js';
import { rememberFoundUnder } from '../../grants/found-under.js';

export interface OpenOfAll {
  open: ReadItem[];
  /** The companies whose queues could not be read (said on stderr at the start): the summary says them again, and the walk exits 9. */
  failed: FailedGrant[];
  total: number;
  callerOf(item: ReadItem): Promise<Caller>;
  companyOf(item: ReadItem): string | undefined;
}

export async function openRequestsOfAll(f: Factory, flags: FanOutFlags): Promise<OpenOfAll> {
  const targets = await fanOutTargets(f, flags);
  const result = await fanOut(f, targets, async (g) => openRequests(g, await writeReceiptsCaller(g)), { concurrency: concurrencyOf(flags.concurrency), what: 'fetching the queues', signals: 'caller' });
  failIfAllFailed(f, result.failed, targets.length, 'read');
  reportFailures(f, result.failed, { total: targets.length });
  const grantOf = new Map<string, string>();
  const companyOf = new Map<string, string>();
  for (const { target, value } of result.ok) {
    for (const item of value) {
      grantOf.set(item.requestId, target.id);
      companyOf.set(item.requestId, target.company);
    }
  }
  await rememberFoundUnder(f, 'requests', grantOf);
  const open = result.ok.flatMap((r) => r.value);
  // Company after company, each oldest first, merged into one order as `poll --all-grants` lists them.
  open.sort(oldestFirst);
  const callers = new Map<string, Promise<Caller>>();
  return {
    open,
    failed: result.failed,
    total: targets.length,
    callerOf(item) {
      const grant = grantOf.get(item.requestId)!;
      let caller = callers.get(grant);
      if (caller === undefined) callers.set(grant, (caller = writeReceiptsCaller(f, grant)));
      return caller;
    },
    companyOf: (item) => companyOf.get(item.requestId),
  };
}
