// Webhook management (docs/interface-decisions.md#webhook-subscriptions): create a
// subscription (its secret is in this one answer) and list them (without secrets; the list
// is a sandbox extension the real service may not offer). Both take a `write_receipts` token.
import * as z from '../contract/zod.js';
import { WebhookSubscription, type WebhookSubscriptionRequest } from '../contract/webhook.js';
import type { Caller } from './caller.js';

/** An element of `GET /webhook/subscription`: the create answer without its secret. */
export const ListedWebhookSubscription = WebhookSubscription.omit({ secret: true });
export type ListedWebhookSubscription = z.infer<typeof ListedWebhookSubscription>;

/** The Idempotency-Key lets the client retry without creating a second subscription (and secret). */
export function createWebhookSubscription(
  caller: Caller,
  request: WebhookSubscriptionRequest,
  idempotencyKey: string,
): Promise<WebhookSubscription> {
  return caller.api.request({
    method: 'POST',
    path: '/webhook/subscription',
    body: request,
    auth: caller.auth,
    schema: WebhookSubscription,
    idempotencyKey,
  });
}

export function listWebhookSubscriptions(caller: Caller): Promise<ListedWebhookSubscription[]> {
  return caller.api.request({
    method: 'GET',
    path: '/webhook/subscription',
    auth: caller.auth,
    schema: z.array(ListedWebhookSubscription),
  });
}

/** `DELETE /webhook/subscription/{id}`: a sandbox extension (docs/interface-decisions.md#subscription-listing); 204 when removed. */
export async function deleteWebhookSubscription(caller: Caller, id: string): Promise<void> {
  await caller.api.request({
    method: 'DELETE',
    path: `/webhook/subscription/${encodeURIComponent(id)}`,
    auth: caller.auth,
  });
}
