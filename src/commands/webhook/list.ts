// `svc webhook list`: the service's subscriptions merged with what this machine knows of
// them: whether their signing secret is stored here (so `listen` can verify their
// deliveries). Subscriptions only this machine remembers are shown too.
import type { ListedWebhookSubscription } from '../../api/webhook.js';
import type { Factory } from '../../factory.js';
import { fansOut, type FanOutFlags } from '../../grants/fan-out.js';
import { writeList } from '../../io/output.js';
import { shownTime } from '../../io/time.js';
import { note } from '../../io/streams.js';
import { readLocalSubscriptions, serviceSubscriptions, subscriptionSecretKey } from '../../webhook/subscriptions.js';

/** Subscription IDs are typed without or with `whsub_`: that and 6 characters are a usable prefix. */
const SUBSCRIPTION_PREFIX = 12;

export type ListOptions = FanOutFlags;

/** An element of `svc webhook list --json`. */
export interface SubscriptionRow {
  id: string;
  name: string;
  notificationUrl: string;
  events: string[];
  createdAt: string;
  /** The service lists it; false: only this machine remembers it; null: the service offers no list. */
  onService: boolean | null;
  /** Its signing secret is in this profile's secret store. */
  secretStored: boolean;
}

export async function run(opts: ListOptions, f: Factory): Promise<void> {
  if (fansOut(opts)) return (await import('./fan-out.js')).listAll(opts, f);
  const remote = await serviceList(f);
  const local = await readLocalSubscriptions(f);
  const store = await f.secrets();
  const byId = new Map<string, Omit<SubscriptionRow, 'secretStored'>>();
  for (const s of remote ?? []) byId.set(s.id, { id: s.id, name: s.name, notificationUrl: s.notificationUrl, events: s.events, createdAt: s.createdAt, onService: true });
  for (const s of local) {
    if (!byId.has(s.id)) {
      byId.set(s.id, { id: s.id, name: s.name, notificationUrl: s.notificationUrl, events: s.events, createdAt: s.createdAt, onService: remote === undefined ? null : false });
    }
  }
  const rows: SubscriptionRow[] = [];
  for (const row of byId.values()) rows.push({ ...row, secretStored: (await store.get(subscriptionSecretKey(row.id))) !== null });

  if (rows.length === 0 && !f.io.json) return note(f.io, 'no webhook subscriptions: see `svc webhook subscribe`');
  await writeList(f.io, rows, [
    { header: 'ID', value: (r) => r.id, id: SUBSCRIPTION_PREFIX },
    { header: 'NAME', value: (r) => r.name, flex: true },
    { header: 'URL', value: (r) => r.notificationUrl, flex: true },
    { header: 'EVENTS', value: (r) => r.events.join(',') },
    { header: 'CREATED', value: (r) => shownTime(f.io, f.env, r.createdAt), whole: true },
    { header: 'SECRET', value: (r) => (r.secretStored ? 'stored' : 'not here') },
    { header: 'SERVICE', value: (r) => (r.onService === null ? 'unknown' : r.onService ? 'listed' : 'not listed') },
  ]);
}

/** undefined when the service offers no list (it is a sandbox extension): then only local knowledge counts. */
async function serviceList(f: Factory): Promise<ListedWebhookSubscription[] | undefined> {
  const listed = await serviceSubscriptions(f);
  if (listed === undefined) note(f.io, 'the service does not list subscriptions; showing the ones this machine created');
  return listed;
}
