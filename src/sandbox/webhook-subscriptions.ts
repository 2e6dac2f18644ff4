// Webhook subscriptions (docs/interface-decisions.md#webhook-subscriptions): several per
// company, each with its own signing secret. The secret is kept here for the delivery
// worker to sign with; callers see it once, in the create answer.
import { randomUUID } from 'node:crypto';
import { isLoopbackHost } from '../config/base-url.js';
import { isKnownWebhookEventName, type WebhookSubscriptionRequest } from '../contract/webhook.js';
import { generateWebhookSecret } from '../webhook/signature.js';
import type { Sandbox } from './context.js';
import { HttpError, type ErrorDetail } from './router.js';
import { defineSlice } from './state.js';

/** What `GET /webhook/subscription` shows: the create answer without the secret. */
export interface ListedSubscription {
  readonly id: string;
  readonly name: string;
  readonly notificationUrl: string;
  readonly events: readonly string[];
  readonly createdAt: string;
}

export interface SubscriptionRecord extends ListedSubscription {
  readonly secret: string;
  /** The company whose events it receives. */
  readonly companyId: string;
  /** The client application that created it, or null (company API key). */
  readonly clientId: string | null;
}

const subscriptions = defineSlice('subscriptions', () => new Map<string, SubscriptionRecord>());

/**
 * Checks what the shared schema leaves open: only event names the sandbox emits (a typo
 * would otherwise subscribe to nothing, silently), and plain http only to this machine,
 * since the sandbox is local and a delivery in clear text elsewhere would leak events.
 */
export function createSubscription(
  sandbox: Sandbox,
  owner: { companyId: string; clientId: string | null },
  request: WebhookSubscriptionRequest,
): SubscriptionRecord {
  const problems: ErrorDetail[] = request.events.flatMap((name, i) =>
    isKnownWebhookEventName(name) ? [] : [{ path: `events.${i}`, message: `is not an event name; known: RETURN_REQUESTED, CREDIT_NOTE_CREATED` }],
  );
  const url = new URL(request.notificationUrl);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    problems.push({ path: 'notificationUrl', message: 'plain http is allowed only to 127.0.0.1, ::1 or localhost; use https' });
  }
  if (problems.length > 0) throw new HttpError('validation_failed', 'the request body is invalid', { details: problems });

  const record: SubscriptionRecord = {
    id: `whsub_${randomUUID()}`,
    name: request.name,
    notificationUrl: request.notificationUrl,
    events: [...new Set(request.events)],
    secret: generateWebhookSecret(),
    createdAt: sandbox.clock.iso(),
    companyId: owner.companyId,
    clientId: owner.clientId,
  };
  sandbox.state.slice(subscriptions).set(record.id, record);
  return record;
}

export function listSubscriptions(sandbox: Sandbox, companyId: string): ListedSubscription[] {
  return [...sandbox.state.slice(subscriptions).values()]
    .filter((s) => s.companyId === companyId)
    .map(({ id, name, notificationUrl, events, createdAt }) => ({ id, name, notificationUrl, events, createdAt }));
}

/** The company's subscriptions that asked for this event. */
/**
 * A subscription receives the events "of the authenticated company or client application"
 * that created it: a client application's subscription only that client's events (their
 * payloads are encrypted for its key), a company's (API key) only the company's own.
 */
export function subscribersOf(sandbox: Sandbox, event: { companyId: string; clientId: string | null; event: string }): SubscriptionRecord[] {
  return [...sandbox.state.slice(subscriptions).values()].filter(
    (s) => s.companyId === event.companyId && s.clientId === event.clientId && s.events.includes(event.event),
  );
}

/**
 * Removes a subscription of this company (sandbox extension, docs/interface-decisions.md#subscription-listing): its pending
 * deliveries stop, since the delivery worker looks the subscription up before each attempt.
 * false when the company has no such subscription.
 */
export function deleteSubscription(sandbox: Sandbox, companyId: string, id: string): boolean {
  const all = sandbox.state.slice(subscriptions);
  const found = all.get(id);
  if (found === undefined || found.companyId !== companyId) return false;
  all.delete(id);
  return true;
}

/** The subscription as it is now; undefined once a reset has dropped it. */
export function findSubscription(sandbox: Sandbox, id: string): SubscriptionRecord | undefined {
  return sandbox.state.slice(subscriptions).get(id);
}
