// The Idempotency-Key of a subscription being created, recorded before the request is sent
// (CONTRACT §8): a run killed after the service created the subscription, but before this
// machine kept its secret, sends the same request under the same key again, and the service
// answers with the subscription it made, secret included, instead of making a second one.
// One small map per profile, <state>/<profile>/webhooks/subscribe-intents.json, keyed by
// Grant, URL and events; an entry goes once its subscription is kept.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WebhookSubscriptionRequest } from '../contract/webhook.js';
import type { Factory } from '../factory.js';
import { privateDir, replacePrivateFile } from '../store/private-file.js';
import { profileStateDir } from '../config/profile-dir.js';
import { withLock } from '../store/lock.js';

const FILE = 'subscribe-intents.json';

function slotOf(grantId: string | undefined, request: WebhookSubscriptionRequest): string {
  return JSON.stringify([grantId ?? '', request.notificationUrl, [...request.events].sort(), request.name]);
}

async function update<T>(f: Factory, change: (intents: Record<string, string>) => T): Promise<T> {
  const dir = profileStateDir(f, 'webhooks');
  await privateDir(dir);
  return withLock(join(dir, `${FILE}.lock`), async () => {
    let intents: Record<string, string> = {};
    try {
      intents = JSON.parse(await readFile(join(dir, FILE), 'utf8')) as Record<string, string>;
    } catch {
      // None yet, or unreadable: a fresh key is as safe as before this file existed.
    }
    const before = JSON.stringify(intents);
    const result = change(intents);
    if (JSON.stringify(intents) !== before) await replacePrivateFile(join(dir, FILE), JSON.stringify(intents));
    return result;
  });
}

/** The key this Grant's subscription of `request` is created under: the recorded one, else a new one recorded now. */
export function subscribeIntentKey(f: Factory, grantId: string | undefined, request: WebhookSubscriptionRequest): Promise<string> {
  const slot = slotOf(grantId, request);
  return update(f, (intents) => (intents[slot] ??= randomUUID()));
}

/** The subscription is kept here now: its key is not needed again. */
export function dropSubscribeIntent(f: Factory, grantId: string | undefined, request: WebhookSubscriptionRequest): Promise<void> {
  const slot = slotOf(grantId, request);
  return update(f, (intents) => {
    delete intents[slot];
  });
}
