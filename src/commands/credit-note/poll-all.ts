// `svc credit-note poll --all-grants | --grants FILE`: the return queues of many companies as
// one. Each Grant's queue is fetched through the fan-out (bounded, paced, failures kept to
// their Grant); the items are merged, every filter and --sort applies across companies, the
// table gets a COMPANY column and --json elements carry grantId and companyId. A Grant that
// fails is a stderr line (or a `{grantId, companyId, error}` element) and exit 9.
import { writeReceiptsCaller } from '../../auth/caller.js';
import { listReturnRequests } from '../../api/credit-note.js';
import type { QueueItem } from '../../contract/returns.js';
import { matchesFilter } from '../../credit-notes/filter.js';
import { queueSelection } from '../../credit-notes/queue-flags.js';
import { maskedItem, readQueue } from '../../credit-notes/queue.js';
import { rememberPolledRequests } from '../../completion/cache.js';
import { loadKeyring } from '../../keys/keystore.js';
import type { Factory } from '../../factory.js';
import { SvcError } from '../../errors.js';
import { idsOf, keepPolled, keepsPolled, polledKeeper } from '../../credit-notes/keep-polled.js';
import { concurrencyOf, fanOut, fanOutTargets } from '../../grants/fan-out.js';
import { failIfAllFailed, failIfSomeFailed, failureElements, reportFailures, unreadLine } from '../../grants/report.js';
import { writeJsonArray, writeList, type Column } from '../../io/output.js';
import { rememberFoundUnder } from '../../grants/found-under.js';
import { counted } from '../../io/plural.js';
import { note } from '../../io/streams.js';
import { arrangement, columns, footerOf, reportUnreadable, watch, type PollOptions, type Polled, type PolledItem, type WatchDeps } from './poll.js';

/** A queue item of one of several companies. */
type CompanyItem = PolledItem & { grantId: string; companyId: string };

export async function pollAll(opts: PollOptions, f: Factory, deps: WatchDeps): Promise<void> {
  const targets = await fanOutTargets(f, opts);
  const companies = new Map(targets.map((t) => [t.id, t.company]));
  // --sort receipt: by what the table shows, the company and then its document numbers.
  const arrange = arrangement(opts, (i) => companies.get((i as CompanyItem).grantId) ?? '');
  const concurrency = concurrencyOf(opts.concurrency);
  const keys = opts.decrypt ? await loadKeyring(f) : undefined;
  // The same selection as a single company's poll (--receipt, --customer, --reason, --refund …).
  const selection = await queueSelection(f, opts, { decrypt: keys !== undefined, acrossCompanies: true });
  if (selection.nothingBecause !== undefined) note(f.io, selection.nothingBecause);
  const filter = selection.filter;
  arrange.select(selection.decrypted);
  // Long text: a company's name gives way (cut with …, down to 10) before STATUS or AGE is left out.
  // Cut in the middle, not below 16 columns first: "Platf…00005 GmbH" tells 1,500 shops apart where "Platform …" did not.
  const leading: Column<PolledItem>[] = [{ header: 'COMPANY', value: (i) => companies.get((i as CompanyItem).grantId) ?? '', flex: true, cut: { middle: true, min: 16 } }];
  const read = new Map<string, Pick<PolledItem, 'returnRequest' | 'decryptError'>>();

  const fetchAll = async () => {
    const result = await fanOut(
      f,
      targets,
      async (g, target) => {
        const caller = await writeReceiptsCaller(g);
        const listed = await listReturnRequests(caller);
        return { listed, items: listed.map((item): QueueItem & { grantId: string; companyId: string } => ({ ...item, grantId: target.id, companyId: target.companyId })) };
      },
      // A watch stops on Ctrl-C itself, between rounds as within one.
      { concurrency, what: 'polling', signals: opts.watch ? 'caller' : undefined },
    );
    const all = result.ok.flatMap((r) => r.value.items);
    // As each company's service listed them, company after company: what a team's ledger keeps.
    const listed = result.ok.flatMap((r) => r.value.listed);
    await rememberFoundUnder(f, 'requests', all.map((i) => [i.requestId, i.grantId] as const));
    const shown = all.filter((i) => matchesFilter(i, filter));
    if (keys !== undefined) {
      // Each request is decrypted once, also over the rounds of --watch.
      const fresh = (await readQueue(shown.filter((i) => !read.has(i.requestId)), keys)).map(maskedItem);
      for (const item of fresh) read.set(item.requestId, item.decryptError === undefined ? { returnRequest: item.returnRequest } : { decryptError: item.decryptError });
    }
    const merged: CompanyItem[] = shown.map((item) => ({ ...item, ...read.get(item.requestId) }));
    // Counted as selected (a document number is matched per company once read), before --limit.
    return { all, listed, viewed: arrange.selectedOf(merged), shown: arrange(merged) as CompanyItem[], failed: result.failed, total: targets.length, unread: unreadLine(result.failed, targets.length) };
  };

  if (opts.watch) {
    const { parseDurationSeconds } = await import('../../io/duration.js');
    const intervalMs = Math.round(parseDurationSeconds(opts.interval, { name: '--interval', minSeconds: 1, maxSeconds: 86_400, fractions: true }) * 1000);
    const fetchQueue = async (): Promise<Polled> => {
      const polled = await fetchAll();
      // A Grant that fails one round is said each round; the watch goes on for the others.
      reportFailures(f, polled.failed, { always: true });
      return polled;
    };
    return watch(f, { fetchQueue, intervalMs, decrypt: opts.decrypt, deps, leading, selected: filter?.statuses, keeper: await polledKeeper(f) });
  }

  const polled = await fetchAll();
  failIfAllFailed(f, polled.failed, polled.total, 'polled');
  // Each company's queue that answered is listed whole (a --status narrows what is shown, not what is listed).
  const failed = new Set(polled.failed.map((x) => x.target.id));
  await rememberPolledRequests(f, { requests: polled.all.map((i) => ({ requestId: i.requestId, status: i.status, grant: i.grantId })), whole: targets.map((t) => t.id).filter((id) => !failed.has(id)) });
  if (f.io.json) {
    await writeJsonArray(f.io, [...polled.shown, ...failureElements(polled.failed)]);
  } else {
    reportFailures(f, polled.failed, { total: polled.total });
    await writeList(f.io, polled.shown, [...leading, ...columns(f, keys !== undefined)], polled.shown, { footer: `${footerOf(polled.shown, polled.viewed, f.clock.now(), filter?.statuses)} · ${inCompanies(polled.shown, polled.total - polled.failed.length)}` });
    if (keys !== undefined) reportUnreadable(f, polled.shown.filter((i) => i.decryptError !== undefined).length, polled.shown.length);
  }
  // On a team database every company's list is kept, after it was shown (keep-polled.ts).
  const notKept = (await keepsPolled(f)) ? await keepPolled(f, polled.listed, idsOf(polled.shown)).then(() => undefined, (error: unknown) => error) : undefined;
  if (notKept !== undefined && polled.failed.length > 0) {
    // Both are said: the Grants that failed decide the exit code (9), as each was reported already.
    if (!(notKept instanceof SvcError)) throw notKept;
    note(f.io, `error: ${notKept.message}`);
  } else if (notKept !== undefined) throw notKept;
  failIfSomeFailed(polled.failed, polled.total, 'polled');
}

/** `in 300 of 1500 companies`: those the requests shown are of, of those polled (not the polled alone, which read as where they were). */
function inCompanies(shown: readonly { companyId: string }[], polled: number): string {
  const holding = new Set(shown.map((item) => item.companyId)).size;
  return holding === polled ? `in ${counted(polled, 'company', 'companies')}` : `in ${holding} of ${counted(polled, 'company', 'companies')}`;
}
