// This profile's webhook subscriptions as this machine knows them. A subscription's signing
// secret goes to the secret store as `webhook-secret/<id>` (the service shows it once); its
// other fields go to <stateDir>/<profile>/webhooks/subscriptions.db, a row each
// (src/store/subscription-file.ts), so that `listen` knows every secret of the profile. `webhook-secret` itself (or SVC_WEBHOOK_SECRET) is one
// more secret, for a subscription made elsewhere.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from '../contract/zod.js';
import { writeReceiptsCaller } from '../auth/caller.js';
import { dropSubscribeIntents, subscribeIntentKeys, type SubscribeIntent } from './subscribe-intents.js';
import { groupCommit } from '../store/group-commit.js';
import { getSecrets, setSecrets } from '../secrets/store.js';
import { createWebhookSubscription, deleteWebhookSubscription, listWebhookSubscriptions, type ListedWebhookSubscription } from '../api/webhook.js';
import { openSubscriptionFile, type SubscriptionFile, type SubscriptionRow } from '../store/subscription-file.js';
import { isOwnPathUnder, ownPathUrl } from './own-path.js';
export { isOwnPathUnder, ownPathUrl };
import { NonEmptyString } from '../contract/common.js';
import type { WebhookSubscription, WebhookSubscriptionRequest } from '../contract/webhook.js';
import { ApiError, SvcError } from '../errors.js';
import type { Factory } from '../factory.js';
import { matchPrefix } from '../ids/prefix.js';
import { fsErrorCode } from '../store/private-file.js';
import { profileStateDir } from '../config/profile-dir.js';
import { envVariableFor } from '../secrets/env.js';

/** The secret of SVC_WEBHOOK_SECRET (src/secrets/env.ts), or one stored by hand. */
const PROFILE_SECRET_KEY = 'webhook-secret';
/** Where an older svc kept them whole; taken over into SUBSCRIPTIONS_DB on first use. */
const SUBSCRIPTIONS_FILE = 'subscriptions.json';
const SUBSCRIPTIONS_DB = 'subscriptions.db';
const JOURNAL_FILE = 'journal.ndjson';

export function subscriptionSecretKey(subscriptionId: string): string {
  return `${PROFILE_SECRET_KEY}/${subscriptionId}`;
}

// Loose, so that fields written by a newer svc survive this one rewriting the file.
export const LocalSubscription = z.looseObject({
  id: NonEmptyString,
  name: z.string(),
  notificationUrl: NonEmptyString,
  events: z.array(z.string()),
  createdAt: NonEmptyString,
  /** The Grant it was created under (a subscription belongs to one company); absent in records of an older svc. */
  grantId: z.string().optional(),
});
export type LocalSubscription = z.infer<typeof LocalSubscription>;

const SubscriptionsFile = z.looseObject({
  version: z.literal(1),
  subscriptions: z.array(LocalSubscription),
});

function webhooksDir(f: Factory): string {
  return profileStateDir(f, 'webhooks');
}

export function journalPathOf(f: Factory): string {
  return join(webhooksDir(f), JOURNAL_FILE);
}

/**
 * The profile's subscriptions as this process knows them, indexed by ID and by Grant: read
 * whole once, then again only when another process has written the file since (SQLite's
 * data_version); what this process writes is applied here as it is written. A fan-out over
 * 10,000 Grants looks up each Grant's own records, never all of them per Grant.
 */
interface SubscriptionIndex {
  file: SubscriptionFile;
  version: number;
  byId: Map<string, LocalSubscription>;
  byGrant: Map<string, Map<string, LocalSubscription>>;
  /** Records of Grants the profile no longer holds, for the set of Grants held (by config object). */
  orphans?: { held: object; records: LocalSubscription[] };
}

const indexes = new Map<string, Promise<SubscriptionIndex>>();

function grantKey(grantId: string | undefined): string {
  return grantId ?? '';
}

function place(index: SubscriptionIndex, s: LocalSubscription): void {
  const before = index.byId.get(s.id);
  if (before !== undefined) index.byGrant.get(grantKey(before.grantId))?.delete(s.id);
  index.byId.set(s.id, s);
  const key = grantKey(s.grantId);
  let of = index.byGrant.get(key);
  if (of === undefined) index.byGrant.set(key, (of = new Map()));
  of.set(s.id, s);
  index.orphans = undefined;
}

function unplace(index: SubscriptionIndex, id: string): void {
  const before = index.byId.get(id);
  if (before === undefined) return;
  index.byId.delete(id);
  index.byGrant.get(grantKey(before.grantId))?.delete(id);
  index.orphans = undefined;
}

function reload(index: SubscriptionIndex, version: number): void {
  index.byId = new Map();
  index.byGrant = new Map();
  index.version = version;
  for (const row of index.file.all()) {
    const parsed = LocalSubscription.safeParse(JSON.parse(row.record));
    if (parsed.success) place(index, parsed.data);
  }
}

/** The whole-file records of an older svc (subscriptions.json), taken over on first use. */
function legacyRecords(dir: string): SubscriptionRow[] | undefined {
  const path = join(dir, SUBSCRIPTIONS_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') return undefined;
    throw new SvcError(`cannot read ${path} (${fsErrorCode(error)})`, { cause: error });
  }
  let parsed: ReturnType<typeof SubscriptionsFile.safeParse> | undefined;
  try {
    parsed = SubscriptionsFile.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) {
    throw new SvcError(`${path} is damaged`, {
      hint: 'move it away; the secrets stay in the secret store, and `svc webhook list` shows the subscriptions of the service',
    });
  }
  return parsed.data.subscriptions.map(rowOf);
}

function rowOf(s: LocalSubscription): SubscriptionRow {
  return { id: s.id, grantId: s.grantId, notificationUrl: s.notificationUrl, record: JSON.stringify(s) };
}

async function subscriptionIndex(f: Factory): Promise<SubscriptionIndex> {
  const dir = webhooksDir(f);
  const path = join(dir, SUBSCRIPTIONS_DB);
  let pending = indexes.get(path);
  if (pending === undefined) {
    pending = (async () => {
      const file = await openSubscriptionFile(path, () => legacyRecords(dir));
      const index: SubscriptionIndex = { file, version: file.version(), byId: new Map(), byGrant: new Map() };
      reload(index, index.version);
      return index;
    })();
    indexes.set(path, pending);
    pending.catch(() => indexes.delete(path));
  }
  const index = await pending;
  const version = index.file.version();
  if (version !== index.version) reload(index, version);
  return index;
}

export async function readLocalSubscriptions(f: Factory): Promise<LocalSubscription[]> {
  return [...(await subscriptionIndex(f)).byId.values()];
}

/** This Grant's records and those naming no Grant (an older svc's); every record for no Grant. */
async function subscriptionsOfGrant(f: Factory, grantId: string | undefined): Promise<LocalSubscription[]> {
  const index = await subscriptionIndex(f);
  if (grantId === undefined) return [...index.byId.values()];
  return [...(index.byGrant.get(grantId)?.values() ?? []), ...(index.byGrant.get('')?.values() ?? [])];
}

/** Keeps these records (one transaction, a row each). */
async function putLocalSubscriptions(f: Factory, records: readonly LocalSubscription[]): Promise<void> {
  if (records.length === 0) return;
  const index = await subscriptionIndex(f);
  index.file.put(records.map(rowOf));
  for (const s of records) place(index, s);
}

/** A change any process makes shows here as another version; undefined before any subscription is kept. */
async function subscriptionsVersion(f: Factory): Promise<number> {
  const index = await subscriptionIndex(f);
  return index.file.version();
}

/**
 * Where created subscriptions are recorded: their secrets in the secret store, their fields in
 * the subscriptions file, and before each is sent, its Idempotency-Key. Each is a group
 * commit (src/store/group-commit.ts): the subscriptions of a fan-out's workers that arrive
 * while one write is under way share the next, so a fan-out over 2,000 Grants does not
 * rewrite the growing files 2,000 times. Nothing is lost to a kill -9 between the request and
 * the write: the key stays recorded until its subscription is kept, and a re-run sending the
 * same key gets the same subscription back, secret included.
 */
export interface SubscriptionKeeper {
  /** Subscriptions handed to `keep` and not written yet. */
  unkept(): number;
  /**
   * The key to create it under; or, when another process kept a subscription for the same
   * Grant, URL and events since the caller looked (none of the `seen` IDs), that one.
   */
  intentKey(grantId: string | undefined, request: WebhookSubscriptionRequest, seen?: ReadonlySet<string>): Promise<{ key: string } | { kept: LocalSubscription }>;
  keep(created: WebhookSubscription, grantId: string | undefined, request: WebhookSubscriptionRequest): Promise<void>;
}

interface Created extends SubscribeIntent {
  created: WebhookSubscription;
}

/** How many new subscriptions a fan-out leaves waiting for their write before a worker waits too. */
const MAX_UNKEPT = 16;

/** The secret store refused a batch: said for each subscription of it. */
class SecretsNotStored extends Error {}

export function subscriptionKeeper(f: Factory): SubscriptionKeeper {
  const intentKey = groupCommit((items: readonly (SubscribeIntent & { seen?: ReadonlySet<string> | undefined })[]) =>
    subscribeIntentKeys(f, items, async () => {
      const index = await subscriptionIndex(f);
      return (item, i) =>
        [...(index.byGrant.get(grantKey(item.grantId))?.values() ?? [])].find(
          (s) =>
            (s.grantId ?? undefined) === item.grantId &&
            s.notificationUrl === item.request.notificationUrl &&
            sameEvents(s.events, item.request.events) &&
            items[i]!.seen !== undefined &&
            !items[i]!.seen!.has(s.id),
        );
    }),
  );
  const keep = groupCommit(async (items: readonly Created[]) => {
    const store = await f.secrets();
    try {
      // The secrets first, so a listed subscription always has one.
      await setSecrets(
        store,
        items.map((i) => [subscriptionSecretKey(i.created.id), i.created.secret] as const),
      );
    } catch (error) {
      throw new SecretsNotStored(`${store.describe()}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const entries = items.map(({ created: { id, name, notificationUrl, events, createdAt }, grantId }) => ({ id, name, notificationUrl, events, createdAt, ...(grantId === undefined ? {} : { grantId }) }));
    await putLocalSubscriptions(f, entries);
    await dropSubscribeIntents(f, items);
    return items.map(() => undefined);
  });
  let unkept = 0;
  return {
    unkept: () => unkept,
    intentKey: (grantId, request, seen) => intentKey({ grantId, request, seen }),
    keep: (created, grantId, request) =>
      (unkept++, keep({ created, grantId, request })).finally(() => unkept--).catch((error: unknown) => {
        if (!(error instanceof SecretsNotStored)) throw error;
        throw new SvcError(`subscription ${created.id} was created, but its secret could not be stored in ${error.message}`, {
          hint: 'fix the secret store (`svc auth status` shows it) and subscribe again; deliveries to this subscription cannot be verified',
          cause: error.cause,
        });
      }),
  };
}

/**
 * Creates the subscription and keeps its secret and fields (through `keeper`, a fan-out's
 * shared one, else one of its own); the secret is stored first, so a listed subscription
 * always has one.
 */
export async function subscribe(f: Factory, request: WebhookSubscriptionRequest, keeper: SubscriptionKeeper = subscriptionKeeper(f)): Promise<WebhookSubscription> {
  const { created, kept } = await create(f, request, keeper);
  await kept;
  return created;
}

/**
 * Creates it and hands it to the keeper: `kept` settles once it is written (or could not be).
 * `seen`: the subscriptions the caller found and did not reuse; one kept by another process
 * since (none of them) is handed back instead (`reused`).
 */
async function create(
  f: Factory,
  request: WebhookSubscriptionRequest,
  keeper: SubscriptionKeeper,
  seen?: ReadonlySet<string>,
): Promise<{ created: WebhookSubscription; kept: Promise<void>; reused: boolean }> {
  const caller = await writeReceiptsCaller(f);
  // Recorded before it is sent: a run killed before it kept the secret gets the same subscription back.
  const intent = await keeper.intentKey(caller.grantId, request, seen);
  if ('kept' in intent) {
    const secret = await (await f.secrets()).get(subscriptionSecretKey(intent.kept.id));
    // Its secret is stored before its record (the keeper's order), so a kept one has it.
    if (secret !== null && secret !== '') return { created: { ...intent.kept, secret }, kept: Promise.resolve(), reused: true };
    return create(f, request, keeper, new Set([...(seen ?? []), intent.kept.id]));
  }
  const created = await createWebhookSubscription(caller, request, intent.key);
  const kept = keeper.keep(created, caller.grantId, request);
  // Whoever holds `kept` reports its failure; it is never an unhandled rejection meanwhile.
  kept.catch(() => undefined);
  return { created, kept, reused: false };
}

export interface SubscribeOutcome {
  subscription: WebhookSubscription;
  /** An existing subscription of this profile was reused, nothing was created. */
  reused: boolean;
  /** Subscriptions this machine remembered that the service no longer has (forgotten here). */
  forgotten: string[];
  /** Other subscriptions of this profile to the same URL for some of the same events: each such event arrives once per subscription. */
  overlapping: string[];
  /** With `deferKeep`, a new subscription's write: settles once its secret and record are kept. */
  kept?: Promise<void>;
}

/** The records of Grants the profile no longer holds (a new login replaced them), worked out once per change. */
async function orphanedRecords(f: Factory): Promise<LocalSubscription[]> {
  const [{ knownIds, readAuthorizations }, settings, config, index] = await Promise.all([import('../auth/profile.js'), f.settings(), f.config(), subscriptionIndex(f)]);
  if (index.orphans?.held === config) return index.orphans.records;
  const held = new Set(knownIds(readAuthorizations(config, settings.profile.value)));
  const records = [...index.byId.values()].filter((s) => s.grantId !== undefined && !held.has(s.grantId));
  index.orphans = { held: config, records };
  return records;
}

function sameEvents(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  return left.size === new Set(b).size && b.every((e) => left.has(e));
}

/**
 * `subscribe` without leaks: a subscription of this profile for the same URL and the same
 * events, whose secret is stored here and which the service still lists, is reused instead
 * of creating another (each would deliver every event once more). Entries the service no
 * longer lists (a sandbox restarted without --state, a removal elsewhere) are forgotten.
 * Against a service without the list extension (404/405/403), this machine's records count.
 */
/**
 * This Grant's subscription for the request as this machine recorded it, with its stored
 * secret, without asking the service: what a listener started while the service is down can
 * go on verifying deliveries with. Undefined when none is recorded or its secret is gone.
 */
export async function storedSubscriptionFor(f: Factory, request: WebhookSubscriptionRequest): Promise<(LocalSubscription & { secret: string }) | undefined> {
  const grant = (await writeReceiptsCaller(f)).grantId;
  const store = await f.secrets();
  for (const candidate of await subscriptionsOfGrant(f, grant)) {
    if (candidate.notificationUrl !== request.notificationUrl || !sameEvents(candidate.events, request.events)) continue;
    const secret = await store.get(subscriptionSecretKey(candidate.id));
    if (secret !== null && secret !== '') return { ...candidate, secret };
  }
  return undefined;
}

export async function subscribeOnce(f: Factory, asked: WebhookSubscriptionRequest, opts: { ownPath?: boolean; keeper?: SubscriptionKeeper; deferKeep?: boolean } = {},
): Promise<SubscribeOutcome> {
  // Only this Grant's records: the service lists each company's subscriptions to its own
  // Grant, so another company's are neither reused nor forgotten here.
  const grant = (await writeReceiptsCaller(f)).grantId;
  const request = opts.ownPath && grant !== undefined ? { ...asked, notificationUrl: ownPathUrl(asked.notificationUrl, grant) } : asked;
  const local = await subscriptionsOfGrant(f, grant);
  // With --own-path, a path of its own under the URL derived from another Grant ID is this
  // company's too when listed under this Grant: one kept through a new login (moved to it).
  const sameUrl = (s: LocalSubscription) =>
    s.notificationUrl === request.notificationUrl || (request !== asked && isOwnPathUnder(s.notificationUrl, asked.notificationUrl));
  const same = (s: LocalSubscription) => sameUrl(s) && sameEvents(s.events, request.events);
  const candidates = local.filter(same);
  // Records of a Grant the profile no longer holds (a new login replaced it: new IDs, same
  // companies) may be this company's: the service's list under this Grant says which.
  const orphans = candidates.length > 0 || grant === undefined ? [] : (await orphanedRecords(f)).filter(same);
  let forgotten: string[] = [];
  let listed: Set<string> | undefined;
  if (candidates.length > 0 || orphans.length > 0) {
    const remote = await serviceSubscriptions(f);
    if (remote !== undefined) {
      listed = new Set(remote.map((s) => s.id));
      const adopted = orphans.filter((s) => listed!.has(s.id));
      if (adopted.length > 0) {
        await putLocalSubscriptions(f, adopted.map((s) => ({ ...s, grantId: grant })));
        candidates.push(...adopted.map((s) => ({ ...s, grantId: grant })));
      }
      // A record of an older svc names no Grant: not listed under this one says nothing of it.
      forgotten = local.filter((s) => !listed!.has(s.id) && (s.grantId !== undefined || grant === undefined)).map((s) => s.id);
      if (forgotten.length > 0) await forgetLocally(f, forgotten);
    }
    const store = await f.secrets();
    for (const candidate of candidates) {
      if (forgotten.includes(candidate.id) || (listed !== undefined && !listed.has(candidate.id))) continue;
      const secret = await store.get(subscriptionSecretKey(candidate.id));
      if (secret === null || secret === '') continue;
      return { subscription: { ...candidate, secret }, reused: true, forgotten, overlapping: [] };
    }
  }
  const overlapping = local
    .filter((s) => sameUrl(s) && !forgotten.includes(s.id) && s.events.some((e) => request.events.includes(e)))
    .map((s) => s.id);
  // Those found and not reused: one another svc process keeps meanwhile is reused instead of made again.
  const seen = new Set(local.map((s) => s.id));
  const keeper = opts.keeper ?? subscriptionKeeper(f);
  const { created, kept, reused } = await create(f, request, keeper, seen);
  if (reused) return { subscription: created, reused, forgotten, overlapping: overlapping.filter((id) => id !== created.id) };
  if (!opts.deferKeep) {
    await kept;
    return { subscription: created, reused, forgotten, overlapping };
  }
  // A fan-out goes on with the next Grant while this one is written, with those that follow;
  // unless as many as a fan-out's workers wait to be written already (what a kill -9 leaves
  // to be handed back by their keys stays that small).
  if (keeper.unkept() > MAX_UNKEPT) await kept;
  return { subscription: created, reused, forgotten, overlapping, kept };
}

/**
 * With no secret store (credentials from the environment), the subscription a restarted
 * listener should reuse: the newest the service lists for the same URL and events (this
 * machine's records where the service has no list), whose secret the person handed in as
 * SVC_WEBHOOK_SECRET. Undefined when there is none.
 */
export async function listedSubscriptionFor(f: Factory, request: WebhookSubscriptionRequest): Promise<LocalSubscription | ListedWebhookSubscription | undefined> {
  const remote = await serviceSubscriptions(f);
  const known = remote ?? (await readLocalSubscriptions(f));
  const same = known.filter((s) => s.notificationUrl === request.notificationUrl && sameEvents(s.events, request.events));
  return same.sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}

/** The service's list (a sandbox extension, docs/interface-decisions.md#subscription-listing), or undefined where it has none. */
export async function serviceSubscriptions(f: Factory): Promise<ListedWebhookSubscription[] | undefined> {
  try {
    return await listWebhookSubscriptions(await writeReceiptsCaller(f));
  } catch (error) {
    if (error instanceof ApiError && [403, 404, 405].includes(error.status)) return undefined;
    throw error;
  }
}

/** Drops entries and their secrets from this machine (not from the service). */
export async function forgetLocally(f: Factory, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) {
    const index = await subscriptionIndex(f);
    index.file.remove(ids);
    for (const id of ids) unplace(index, id);
  }
  const store = await f.secrets();
  for (const id of ids) await store.delete(subscriptionSecretKey(id));
}

/**
 * The subscription an ID names: the whole ID, or a unique prefix of 6+ characters among
 * those this machine and the service know (`whsub_` may be left out).
 */
export function matchSubscriptionId(given: string, known: readonly string[]): string {
  return matchPrefix(given, known, { noun: 'subscription', listedBy: '`svc webhook list`', optionalStart: 'whsub_', caseSensitive: true });
}

/**
 * Removes the subscription on the service (DELETE, a sandbox extension) and then here. A 404
 * is ambiguous (no such subscription, or no such operation), so the service's list decides:
 * gone from it → forgotten here too; still listed, or no list → an error and nothing
 * forgotten, since its deliveries would go on arriving with a secret no longer kept.
 */
export async function unsubscribe(f: Factory, id: string): Promise<{ onService: 'deleted' | 'absent' }> {
  try {
    await deleteWebhookSubscription(await writeReceiptsCaller(f), id);
  } catch (error) {
    if (!(error instanceof ApiError) || ![404, 405].includes(error.status)) throw error;
    const listed = error.status === 404 ? await serviceSubscriptions(f) : undefined;
    if (listed === undefined || listed.some((s) => s.id === id)) {
      throw new SvcError(`the service did not remove subscription ${id} (${error.status} ${error.code}): it does not offer removal`, {
        hint: 'remove it where the service is managed; this machine keeps its secret meanwhile, so its deliveries still verify',
        cause: error,
      });
    }
    await forgetLocally(f, [id]);
    return { onService: 'absent' };
  }
  await forgetLocally(f, [id]);
  return { onService: 'deleted' };
}

/** The path a delivery to this URL arrives on, as a receiver sees it. */
export function deliveryPathOf(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).pathname : undefined;
}

/** Every secret a delivery to this profile may be signed with, and those of each delivery path. */
export interface KnownSecrets {
  all: string[];
  /** The profile's own (`webhook-secret`, SVC_WEBHOOK_SECRET): tried on every path. */
  own: string[];
  /** Path of a subscription's notificationUrl → the secrets of the subscriptions delivering there. */
  byPath: Map<string, string[]>;
}

async function loadSecrets(f: Factory): Promise<KnownSecrets> {
  const store = await f.secrets();
  const subscriptions = await readLocalSubscriptions(f);
  // One read of the store for all of them, each secret filed under its path once.
  const [own, ...values] = await getSecrets(store, [PROFILE_SECRET_KEY, ...subscriptions.map((s) => subscriptionSecretKey(s.id))]);
  const byPath = new Map<string, string[]>();
  subscriptions.forEach((subscription, i) => {
    const secret = values[i];
    const path = deliveryPathOf(subscription.notificationUrl);
    if (secret === null || secret === undefined || secret === '' || path === undefined) return;
    const at = byPath.get(path);
    if (at === undefined) byPath.set(path, [secret]);
    else if (!at.includes(secret)) at.push(secret);
  });
  const all = new Set([own, ...values].filter((v): v is string => v !== null && v !== undefined && v !== ''));
  return { all: [...all], own: own === null || own === undefined || own === '' ? [] : [own], byPath };
}

/** Every secret a delivery to this profile may be signed with. */
export async function knownSecrets(f: Factory): Promise<string[]> {
  return (await loadSecrets(f)).all;
}

/**
 * What to check when a delivery matched none of the secrets tried, when SVC_WEBHOOK_SECRET
 * is set: it is one of them (in place of the stored `webhook-secret`), so the usual advice to
 * set it would send the person in a circle. Undefined when it is not set. Names no secret.
 */
export function environmentSecretAdvice(f: Factory): ((tried: number) => string) | undefined {
  const variable = envVariableFor(f.env, PROFILE_SECRET_KEY);
  if (variable === undefined) return undefined;
  return (tried) => {
    const others = tried - 1;
    const besides = others <= 0 ? '' : ` nor with the secret${others === 1 ? " of this profile's subscription" : `s of this profile's ${others} subscriptions`}`;
    return `the delivery was not signed with ${variable}${besides}; check that ${variable} is the secret of the subscription that sends here`;
  };
}

/**
 * The secrets for a long-running receiver: read once, and again only when the subscription
 * file has changed since (a `svc webhook subscribe` in another terminal), so that a flood
 * of bad signatures costs a stat each, not a keychain read. A delivery to a path of its own
 * is checked against that path's secrets only: with a subscription per company, one HMAC
 * per delivery instead of thousands.
 */
export interface SecretSet {
  current(): readonly string[];
  /** The secrets of the subscriptions that deliver to this path; undefined when none does. */
  forPath(path: string): readonly string[] | undefined;
  /** Adds a secret this process just learnt (`listen --subscribe`), for the path it delivers to. */
  add(secret: string, path?: string): void;
  /** Resolves true when the file changed and brought secrets not known before. */
  refresh(): Promise<boolean>;
}

export async function watchSecrets(f: Factory): Promise<SecretSet> {
  const versionOf = () => subscriptionsVersion(f).catch(() => 0);
  let seen = await versionOf();
  let known = await loadSecrets(f);
  let all = new Set(known.all);
  let refreshing: Promise<boolean> | undefined;
  const file = (delivery: string, secret: string, byPath: Map<string, string[]>) => {
    const at = byPath.get(delivery);
    if (at === undefined) byPath.set(delivery, [secret]);
    else if (!at.includes(secret)) at.push(secret);
  };
  return {
    current: () => known.all,
    forPath(delivery) {
      const routed = known.byPath.get(delivery);
      return routed && (known.own.length === 0 ? routed : [...new Set([...routed, ...known.own])]);
    },
    add(secret, delivery) {
      if (!all.has(secret)) {
        all.add(secret);
        known.all.push(secret);
      }
      if (delivery !== undefined) file(delivery, secret, known.byPath);
    },
    refresh() {
      refreshing ??= (async () => {
        try {
          const version = await versionOf();
          if (version === seen) return false;
          seen = version;
          const fresh = await loadSecrets(f);
          const added = fresh.all.filter((s) => !all.has(s));
          // Secrets learnt in this process stay, under their paths too.
          for (const [delivery, secrets] of known.byPath) for (const secret of secrets) file(delivery, secret, fresh.byPath);
          known = { all: [...known.all, ...added], own: fresh.own, byPath: fresh.byPath };
          all = new Set(known.all);
          return added.length > 0;
        } catch {
          // A damaged or unreadable file keeps the secrets already known.
          return false;
        } finally {
          refreshing = undefined;
        }
      })();
      return refreshing;
    },
  };
}
