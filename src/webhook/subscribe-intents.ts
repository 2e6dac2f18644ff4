// The Idempotency-Key of a subscription being created, recorded before the request is sent
// (docs/interface-decisions.md#idempotency-keys): a run killed after the service created the subscription, but before this
// machine kept its secret, sends the same request under the same key again, and the service
// answers with the subscription it made, secret included, instead of making a second one.
// One small map per profile, <state>/<profile>/webhooks/subscribe-intents.json, keyed by
// Grant, URL and events; an entry goes once its subscription is kept. A key asked for after
// another svc process kept its subscription for the same Grant, URL and events (and dropped
// its key) is not made anew: that subscription is handed back instead (`keptSince`), so that
// runs at once make one subscription, as runs one after the other do.
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

async function update<T>(f: Factory, change: (intents: Record<string, string>) => T | Promise<T>): Promise<T> {
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
    const result = await change(intents);
    if (JSON.stringify(intents) !== before) await replacePrivateFile(join(dir, FILE), JSON.stringify(intents));
    return result;
  });
}

export interface SubscribeIntent {
  grantId: string | undefined;
  request: WebhookSubscriptionRequest;
}

/**
 * The keys these subscriptions are created under (one write for all): the recorded ones, else
 * the subscription `keptSince` finds (read under the same lock as the keys, so a process that
 * kept one and dropped its key is seen doing either), else new keys recorded now.
 */
export function subscribeIntentKeys<K>(
  f: Factory,
  items: readonly SubscribeIntent[],
  keptSince: () => Promise<(item: SubscribeIntent, index: number) => K | undefined>,
): Promise<({ key: string } | { kept: K })[]> {
  return update(f, async (intents) => {
    const missing = items.some((i) => intents[slotOf(i.grantId, i.request)] === undefined);
    const kept = missing ? await keptSince() : undefined;
    return items.map((i, index) => {
      const slot = slotOf(i.grantId, i.request);
      const recorded = intents[slot];
      if (recorded !== undefined) return { key: recorded };
      const made = kept?.(i, index);
      if (made !== undefined) return { kept: made };
      return { key: (intents[slot] = randomUUID()) };
    });
  });
}

/** The subscriptions are kept here now: their keys are not needed again. */
export function dropSubscribeIntents(f: Factory, items: readonly SubscribeIntent[]): Promise<void> {
  return update(f, (intents) => {
    for (const i of items) delete intents[slotOf(i.grantId, i.request)];
  });
}
