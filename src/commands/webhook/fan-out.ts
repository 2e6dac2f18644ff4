// `svc webhook subscribe|list|unsubscribe --all-grants | --grants FILE`: the same verb for
// each company (src/grants/fan-out.ts). subscribe reuses each Grant's own subscription to the
// URL (a re-run creates none); list merges the companies' subscriptions under a COMPANY
// column; unsubscribe --url removes each company's subscriptions to that URL. A Grant that
// fails is reported for itself, and the command exits 9, partly failed.
import type { WebhookSubscriptionRequest } from '../../contract/webhook.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { concurrencyOf, fanOut, fanOutTargets, type FanOutFlags, type FanOutResult } from '../../grants/fan-out.js';
import type { GrantEntry } from '../../auth/grant-select.js';
import { failIfAllFailed, failIfSomeFailed, failureElements, reportFailures } from '../../grants/report.js';
import { writeList } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { isOwnPathUnder, readLocalSubscriptions, serviceSubscriptions, subscribeOnce, subscriptionKeeper, subscriptionSecretKey, unsubscribe, type SubscribeOutcome } from '../../webhook/subscriptions.js';

interface Company {
  grantId: string;
  companyId: string;
}

/**
 * Each company's subscription (its own if the service still lists it, else a new one), the
 * new ones kept in batches; a company whose subscription or write failed is among `failed`.
 * `webhook subscribe --all-grants` and `webhook listen --subscribe --all-grants` both.
 */
export async function subscribeEach(request: WebhookSubscriptionRequest, flags: FanOutFlags & { ownPath?: boolean | undefined }, f: Factory): Promise<{ targets: GrantEntry[]; result: FanOutResult<SubscribeOutcome> }> {
  const targets = await fanOutTargets(f, flags);
  // One keeper for the run: the new subscriptions are written together, in batches, while
  // the workers go on; a Grant whose write failed is reported as failed.
  const keeper = subscriptionKeeper(f);
  const result = await fanOut(f, targets, (g) => subscribeOnce(g, request, { ownPath: Boolean(flags.ownPath), keeper, deferKeep: true }), {
    concurrency: concurrencyOf(flags.concurrency),
    what: 'subscribing',
  });
  const writes = await Promise.allSettled(result.ok.map((r) => r.value.kept));
  if (writes.some((w) => w.status === 'rejected')) {
    const order = new Map(targets.map((t, i) => [t, i]));
    const ok = result.ok;
    result.ok = [];
    ok.forEach((r, i) => {
      const write = writes[i]!;
      if (write.status === 'fulfilled') result.ok.push(r);
      else result.failed.push({ target: r.target, error: write.reason });
    });
    result.failed.sort((a, b) => order.get(a.target)! - order.get(b.target)!);
  }
  return { targets, result };
}

export async function subscribeAll(request: WebhookSubscriptionRequest, flags: FanOutFlags & { showSecret?: boolean | undefined; ownPath?: boolean | undefined }, f: Factory): Promise<void> {
  if (flags.showSecret) throw new UsageError('--show-secret prints one secret; over several companies each is kept in the secret store', { hint: 'subscribe one company with --grant to see its secret' });
  const { targets, result } = await subscribeEach(request, flags, f);
  failIfAllFailed(f, result.failed, targets.length, 'subscribed');
  const rows = result.ok.map(({ target, value }) => {
    const { secret: _secret, ...shown } = value.subscription;
    return { ...shown, grantId: target.id, companyId: target.companyId, company: target.company, reused: value.reused };
  });
  reportFailures(f, result.failed, { total: targets.length });
  await writeList(
    f.io,
    rows,
    [
      { header: 'COMPANY', value: (r) => r.company },
      { header: 'ID', value: (r) => r.id, id: true },
      { header: 'URL', value: (r) => r.notificationUrl, flex: true },
      { header: 'EVENTS', value: (r) => r.events.join(',') },
      { header: 'STATE', value: (r) => (r.reused ? 'reused' : 'created') },
    ],
    [...rows.map(({ company: _company, ...row }) => row), ...failureElements(result.failed)],
  );
  if (!f.io.json) {
    const created = rows.filter((r) => !r.reused).length;
    note(f.io, `${created} created, ${rows.length - created} reused; their signing secrets are in ${(await f.secrets()).describe()}`);
  }
  failIfSomeFailed(result.failed, targets.length, 'subscribed');
}

interface Row extends Company {
  company: string;
  id: string;
  name: string;
  notificationUrl: string;
  events: string[];
  createdAt: string;
  onService: boolean | null;
  secretStored: boolean;
}

export async function listAll(flags: FanOutFlags, f: Factory): Promise<void> {
  const targets = await fanOutTargets(f, flags);
  const local = await readLocalSubscriptions(f);
  const store = await f.secrets();
  const result = await fanOut(
    f,
    targets,
    async (g, target) => {
      const remote = await serviceSubscriptions(g);
      const byId = new Map<string, Omit<Row, 'secretStored'>>();
      const of = { grantId: target.id, companyId: target.companyId, company: target.company };
      for (const s of remote ?? []) byId.set(s.id, { ...of, id: s.id, name: s.name, notificationUrl: s.notificationUrl, events: s.events, createdAt: s.createdAt, onService: true });
      for (const s of local.filter((l) => l.grantId === target.id && !byId.has(l.id))) {
        byId.set(s.id, { ...of, id: s.id, name: s.name, notificationUrl: s.notificationUrl, events: s.events, createdAt: s.createdAt, onService: remote === undefined ? null : false });
      }
      const rows: Row[] = [];
      for (const row of byId.values()) rows.push({ ...row, secretStored: (await store.get(subscriptionSecretKey(row.id))) !== null });
      return rows;
    },
    { concurrency: concurrencyOf(flags.concurrency), what: 'listing subscriptions' },
  );
  failIfAllFailed(f, result.failed, targets.length, 'listed');
  const rows = result.ok.flatMap((r) => r.value);
  reportFailures(f, result.failed, { total: targets.length });
  await writeList(
    f.io,
    rows,
    [
      { header: 'COMPANY', value: (r) => r.company },
      { header: 'ID', value: (r) => r.id, id: true },
      { header: 'URL', value: (r) => r.notificationUrl, flex: true },
      { header: 'EVENTS', value: (r) => r.events.join(',') },
      { header: 'SECRET', value: (r) => (r.secretStored ? 'stored' : 'not here') },
      { header: 'SERVICE', value: (r) => (r.onService === null ? 'unknown' : r.onService ? 'listed' : 'not listed') },
    ],
    [...rows.map(({ company: _company, ...row }) => row), ...failureElements(result.failed)],
  );
  failIfSomeFailed(result.failed, targets.length, 'listed');
}

export async function unsubscribeAll(url: string | undefined, flags: FanOutFlags, f: Factory): Promise<void> {
  if (url === undefined) throw new UsageError('over several companies, name the subscriptions by --url', { hint: 'svc webhook unsubscribe --all-grants --url https://…' });
  const targets = await fanOutTargets(f, flags);
  const result = await fanOut(
    f,
    targets,
    async (g, target) => {
      const remote = (await serviceSubscriptions(g)) ?? [];
      // The URL, or the path of its own this company's subscription was given under it
      // (--own-path; derived from a former Grant ID when kept through a new login).
      const to = (s: { notificationUrl: string }) => s.notificationUrl === url || isOwnPathUnder(s.notificationUrl, url);
      const ids = [...new Set([...remote.filter(to).map((s) => s.id), ...(await readLocalSubscriptions(g)).filter((s) => s.grantId === target.id && to(s)).map((s) => s.id)])];
      const removed: { id: string; onService: string }[] = [];
      for (const id of ids) removed.push({ id, ...(await unsubscribe(g, id)) });
      return removed;
    },
    { concurrency: concurrencyOf(flags.concurrency), what: 'unsubscribing' },
  );
  failIfAllFailed(f, result.failed, targets.length, 'unsubscribed');
  const rows = result.ok.flatMap(({ target, value }) => value.map((r) => ({ ...r, grantId: target.id, companyId: target.companyId, company: target.company })));
  reportFailures(f, result.failed, { total: targets.length });
  await writeList(
    f.io,
    rows,
    [
      { header: 'COMPANY', value: (r) => r.company },
      { header: 'ID', value: (r) => r.id, id: true },
      { header: 'SERVICE', value: (r) => r.onService },
    ],
    [...rows.map(({ company: _company, ...row }) => row), ...failureElements(result.failed)],
  );
  failIfSomeFailed(result.failed, targets.length, 'unsubscribed');
}
