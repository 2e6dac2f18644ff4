// `svc webhook subscribe`: creates a subscription and keeps its signing secret in the secret
// store (the service shows it only in this answer). A subscription of this profile for the
// same URL and events that the service still lists is reused instead (no second delivery). stdout: the subscription ID, and the
// secret on a second line only with --show-secret; --json: the subscription, its secret
// likewise only with --show-secret. With no secret store (credentials from the environment)
// it refuses without --show-secret, since the secret would be lost.
import { hostname } from 'node:os';
import { WebhookSubscriptionRequest } from '../../contract/webhook.js';
import { parseOrThrow } from '../../contract/validate.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note, println } from '../../io/streams.js';
import { subscribeOnce } from '../../webhook/subscriptions.js';
import { fansOut, type FanOutFlags } from '../../grants/fan-out.js';

export interface SubscribeOptions extends FanOutFlags {
  url: string;
  /** Comma-separated event names. */
  events: string;
  name?: string | undefined;
  showSecret?: boolean | undefined;
  /** Under a path of its own per Grant (URL/g…), for `svc webhook listen` to pick its secret at once. */
  ownPath?: boolean | undefined;
}

export async function run(opts: SubscribeOptions, f: Factory): Promise<void> {
  if (!URL.canParse(opts.url) || !/^https?:$/.test(new URL(opts.url).protocol)) {
    throw new UsageError(`--url: "${opts.url}" is not an http(s) URL`, { hint: 'give the full address deliveries go to, e.g. https://shop.example/webhooks' });
  }
  const events = [...new Set(opts.events.split(',').map((e) => e.trim()).filter((e) => e !== ''))];
  if (events.length === 0) throw new UsageError('--events: name at least one event, e.g. RETURN_REQUESTED,CREDIT_NOTE_CREATED');
  const request = parseOrThrow(
    WebhookSubscriptionRequest,
    { name: opts.name ?? `svc on ${hostname()}`, notificationUrl: opts.url, events },
    'the subscription request',
  );

  // The service shows the secret only in its answer (docs/interface-decisions.md#subscription-secrets): with nowhere to keep it,
  // it is handed to the person, who must ask for that; refused before anything is created.
  const store = await f.secrets();
  const nowhereToKeep = store.backend === 'env';
  if (nowhereToKeep && !opts.showSecret) {
    throw new UsageError('no secret store is used (credentials come from the environment), so the subscription\'s signing secret could be kept nowhere and is shown only once', {
      hint: 'add --show-secret to have it printed (then keep it, e.g. as SVC_WEBHOOK_SECRET), or set SVC_SECRET_STORE=file or keychain to store it',
    });
  }
  if (fansOut(opts)) return (await import('./fan-out.js')).subscribeAll(request, opts, f);
  const { subscription: created, reused, overlapping } = await subscribeOnce(f, request, { ownPath: Boolean(opts.ownPath) });
  if (overlapping.length > 0) {
    note(f.io, `warning: ${overlapping.join(', ')} already send${overlapping.length === 1 ? 's' : ''} some of these events to ${created.notificationUrl}: each such event now arrives once per subscription; \`svc webhook unsubscribe ID\` removes one`);
  }
  const { secret, ...shown } = created;
  if (nowhereToKeep) note(f.io, `warning: subscription ${created.id}'s signing secret is printed once and kept nowhere: keep it now (e.g. as SVC_WEBHOOK_SECRET for \`svc webhook listen\`); the service never shows it again`);
  if (f.io.json) return writeJson(f.io, opts.showSecret ? created : shown);
  println(f.io, created.id);
  if (opts.showSecret) println(f.io, secret);
  if (!nowhereToKeep) note(f.io, `${reused ? 'reusing this profile\'s subscription' : 'subscribed'} ${created.id} to ${created.events.join(', ')} at ${created.notificationUrl}; its signing secret is in ${store.describe()}`);
}
