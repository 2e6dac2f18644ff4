// This profile's webhook subscriptions as this machine knows them. A subscription's signing
// secret goes to the secret store as `webhook-secret/<id>` (the service shows it once); its
// other fields go to <stateDir>/<profile>/webhooks/subscriptions.json, so that `listen`
// knows every secret of the profile. `webhook-secret` itself (or SVC_WEBHOOK_SECRET) is one
// more secret, for a subscription made elsewhere.
import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeReceiptsCaller } from '../api/caller.js';
import { createWebhookSubscription } from '../api/webhook.js';
import { withLock } from '../store/lock.js';
import { NonEmptyString } from '../contract/common.js';
import type { WebhookSubscription, WebhookSubscriptionRequest } from '../contract/webhook.js';
import { SvcError } from '../errors.js';
import type { Factory } from '../factory.js';
import { fsErrorCode, pathSegment, profileStateDir, writePrivateFile } from '../io/private-file.js';
import { resolveProfileName } from '../config/settings.js';

/** The secret of SVC_WEBHOOK_SECRET (src/secrets/env.ts), or one stored by hand. */
const PROFILE_SECRET_KEY = 'webhook-secret';
const SUBSCRIPTIONS_FILE = 'subscriptions.json';
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

function subscriptionsPath(f: Factory): string {
  return join(webhooksDir(f), SUBSCRIPTIONS_FILE);
}

export async function readLocalSubscriptions(f: Factory): Promise<LocalSubscription[]> {
  const path = subscriptionsPath(f);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') return [];
    throw new SvcError(`cannot read ${path} (${fsErrorCode(error)})`, { cause: error });
  }
  let parsed: ReturnType<typeof SubscriptionsFile.safeParse> | undefined;
  try {
    parsed = SubscriptionsFile.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (parsed?.success) return parsed.data.subscriptions;
  throw new SvcError(`${path} is damaged`, {
    hint: 'move it away; the secrets stay in the secret store, and `svc webhook list` shows the subscriptions of the service',
  });
}

async function rememberSubscription(f: Factory, subscription: LocalSubscription): Promise<void> {
  const dir = webhooksDir(f);
  const profile = pathSegment(resolveProfileName(f.globals, f.env).value, 'profile name');
  // Two `subscribe` runs at once must not drop each other's entry.
  await withLock(
    join(f.paths.stateDir, 'locks', `webhooks-${profile}.lock`),
    async () => {
      const others = (await readLocalSubscriptions(f)).filter((s) => s.id !== subscription.id);
      const body = { version: 1, subscriptions: [...others, subscription] };
      try {
        await writePrivateFile(dir, SUBSCRIPTIONS_FILE, `${JSON.stringify(body, null, 2)}\n`);
      } catch (error) {
        if (error instanceof SvcError) throw error;
        throw new SvcError(`cannot write ${join(dir, SUBSCRIPTIONS_FILE)} (${fsErrorCode(error)})`, { cause: error });
      }
    },
  );
}

/**
 * Creates the subscription and keeps its secret and fields; the secret is stored first, so
 * a listed subscription always has one.
 */
export async function subscribe(f: Factory, request: WebhookSubscriptionRequest): Promise<WebhookSubscription> {
  const caller = await writeReceiptsCaller(f);
  const created = await createWebhookSubscription(caller, request, randomUUID());
  const store = await f.secrets();
  try {
    await store.set(subscriptionSecretKey(created.id), created.secret);
  } catch (error) {
    throw new SvcError(
      `subscription ${created.id} was created, but its secret could not be stored in ${store.describe()}: ${error instanceof Error ? error.message : String(error)}`,
      { hint: 'fix the secret store (`svc auth status` shows it) and subscribe again; deliveries to this subscription cannot be verified', cause: error },
    );
  }
  const { id, name, notificationUrl, events, createdAt } = created;
  await rememberSubscription(f, { id, name, notificationUrl, events, createdAt });
  return created;
}

/** Every secret a delivery to this profile may be signed with. */
export async function knownSecrets(f: Factory): Promise<string[]> {
  const store = await f.secrets();
  const keys = [PROFILE_SECRET_KEY, ...(await readLocalSubscriptions(f)).map((s) => subscriptionSecretKey(s.id))];
  const values = await Promise.all(keys.map((key) => store.get(key)));
  return [...new Set(values.filter((v): v is string => v !== null && v !== ''))];
}

/**
 * The secrets for a long-running receiver: read once, and again only when the subscription
 * file has changed since (a `svc webhook subscribe` in another terminal), so that a flood
 * of bad signatures costs a stat each, not a keychain read.
 */
export interface SecretSet {
  current(): readonly string[];
  /** Adds a secret this process just learnt (`listen --subscribe`). */
  add(secret: string): void;
  /** Resolves true when the file changed and brought secrets not known before. */
  refresh(): Promise<boolean>;
}

export async function watchSecrets(f: Factory): Promise<SecretSet> {
  const path = subscriptionsPath(f);
  const mtimeOf = () => stat(path).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  let seen = await mtimeOf();
  let secrets = await knownSecrets(f);
  let refreshing: Promise<boolean> | undefined;
  return {
    current: () => secrets,
    add(secret) {
      if (!secrets.includes(secret)) secrets = [...secrets, secret];
    },
    refresh() {
      refreshing ??= (async () => {
        try {
          const mtime = await mtimeOf();
          if (mtime === seen) return false;
          seen = mtime;
          const fresh = (await knownSecrets(f)).filter((s) => !secrets.includes(s));
          secrets = [...secrets, ...fresh];
          return fresh.length > 0;
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
