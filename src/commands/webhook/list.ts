// `svc webhook list`: the service's subscriptions merged with what this machine knows of
// them: whether their signing secret is stored here (so `listen` can verify their
// deliveries). Subscriptions only this machine remembers are shown too. Of one company, the
// one the service was asked about (as `gh` lists the current repository's): the service
// lists a Grant's subscriptions only, so another company's kept here could not be called
// "not listed"; they are counted on stderr, with `--all-grants` to check them.
import type { ListedWebhookSubscription } from '../../api/webhook.js';
import { writeReceiptsCaller } from '../../auth/caller.js';
import type { Factory } from '../../factory.js';
import { companyLabel, namedCompany } from '../../grants/company.js';
import { counted } from '../../io/plural.js';
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
  /** The Grant the service was asked with, and its company (absent with a company API key). */
  grantId?: string;
  companyId?: string;
}

export async function run(opts: ListOptions, f: Factory): Promise<void> {
  if (fansOut(opts)) return (await import('./fan-out.js')).listAll(opts, f);
  const { grantId, companyId } = await writeReceiptsCaller(f);
  const remote = await serviceList(f);
  // This Grant's records, and those an older svc kept without one; another company's are not
  // among what the service was asked about.
  const local = await readLocalSubscriptions(f);
  const others = grantId === undefined ? [] : local.filter((s) => s.grantId !== undefined && s.grantId !== grantId);
  const store = await f.secrets();
  const of = grantId === undefined ? {} : { grantId, ...(companyId === undefined ? {} : { companyId }) };
  const byId = new Map<string, Omit<SubscriptionRow, 'secretStored'>>();
  for (const s of remote ?? []) byId.set(s.id, { id: s.id, name: s.name, notificationUrl: s.notificationUrl, events: s.events, createdAt: s.createdAt, onService: true, ...of });
  for (const s of local) {
    if (!byId.has(s.id) && !others.includes(s)) {
      byId.set(s.id, { id: s.id, name: s.name, notificationUrl: s.notificationUrl, events: s.events, createdAt: s.createdAt, onService: remote === undefined ? null : false, ...of });
    }
  }
  const rows: SubscriptionRow[] = [];
  for (const row of byId.values()) rows.push({ ...row, secretStored: (await store.get(subscriptionSecretKey(row.id))) !== null });

  if (others.length > 0) await noteOthers(f, grantId!, others.length, new Set(others.map((s) => s.grantId)).size);
  if (rows.length === 0 && !f.io.json) return note(f.io, 'no webhook subscriptions: see `svc webhook subscribe`');
  await writeList(f.io, rows, [
    { header: 'ID', value: (r) => r.id, id: SUBSCRIPTION_PREFIX },
    { header: 'NAME', value: (r) => r.name, flex: true },
    { header: 'URL', value: (r) => r.notificationUrl, flex: true },
    { header: 'EVENTS', value: (r) => r.events.join(','), drop: 2 },
    { header: 'CREATED', value: (r) => shownTime(f.io, f.env, r.createdAt), whole: true, drop: 1 },
    { header: 'SECRET', value: (r) => (r.secretStored ? 'stored' : 'not here'), drop: 3 },
    // On a narrow terminal these go first (then the events, then the date); the name and URL keep what is left (Column.drop).
    { header: 'SERVICE', value: (r) => (r.onService === null ? 'unknown' : r.onService ? 'listed' : 'not listed'), drop: 4 },
  ]);
}

/** Whose subscriptions these are, and that those of the other companies kept here were not checked. */
async function noteOthers(f: Factory, grantId: string, subscriptions: number, companies: number): Promise<void> {
  const named = await namedCompany(f, grantId);
  const whose = named === undefined ? `Grant ${grantId}` : companyLabel(named.entry);
  note(
    f.io,
    `subscriptions of ${whose} only: this machine keeps ${counted(subscriptions, 'more subscription')} of ${counted(companies, 'other company', 'other companies')}, not checked with the service (\`svc webhook list --all-grants\` checks every company's, \`--grant COMPANY\` one's)`,
  );
}

/** undefined when the service offers no list (it is a sandbox extension): then only local knowledge counts. */
async function serviceList(f: Factory): Promise<ListedWebhookSubscription[] | undefined> {
  const listed = await serviceSubscriptions(f);
  if (listed === undefined) note(f.io, 'the service does not list subscriptions; showing the ones this machine created');
  return listed;
}
