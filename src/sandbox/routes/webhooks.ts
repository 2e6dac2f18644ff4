// Webhook management (docs/interface-decisions.md#webhook-subscriptions) and two sandbox
// extensions for `svc webhook list` and tests: the caller's subscriptions without their
// secrets, and the sender's log of every delivery attempt (docs/interface-decisions.md#sandbox-endpoints).
import * as z from '../../contract/zod.js';
import { WebhookSubscriptionRequest, type WebhookSubscription } from '../../contract/webhook.js';
import type { Sandbox } from '../context.js';
import { authorize } from '../guard.js';
import { idempotent } from '../idempotency.js';
import { HttpError, json, validated, type Router } from '../router.js';
import { createSubscription, deleteSubscription, listSubscriptions } from '../webhook-subscriptions.js';
import { listWebhookDeliveries } from '../webhooks.js';

const DeliveriesQuery = z.object({
  subscriptionId: z.string().min(1).optional(),
  eventId: z.string().min(1).optional(),
});

export function register(router: Router, sandbox: Sandbox): void {
  router.post('/webhook/subscription', (req) => {
    const caller = authorize(sandbox, req, { scope: 'write_receipts' , apiKey: true });
    return idempotent(sandbox, req, caller.companyId, () => {
      const request = validated(WebhookSubscriptionRequest, req.body, 'the request body');
      const created = createSubscription(sandbox, { companyId: caller.companyId, clientId: caller.clientId }, request);
      sandbox.log(`webhook subscription ${created.id} (company ${created.companyId}) for ${created.events.join(', ')}`);
      const answer: WebhookSubscription = {
        id: created.id,
        name: created.name,
        notificationUrl: created.notificationUrl,
        events: [...created.events],
        secret: created.secret,
        createdAt: created.createdAt,
      };
      return json(201, answer);
    });
  });

  router.get('/webhook/subscription', (req) => {
    const caller = authorize(sandbox, req, { scope: 'write_receipts' , apiKey: true });
    return json(200, listSubscriptions(sandbox, caller.companyId));
  });

  // Sandbox extension (docs/interface-decisions.md#subscription-listing): `svc webhook unsubscribe`. 204; 404 when the caller's
  // company has no such subscription (another company's is not revealed).
  router.delete('/webhook/subscription/{subscriptionId}', (req) => {
    const caller = authorize(sandbox, req, { scope: 'write_receipts', apiKey: true });
    const id = req.params.subscriptionId ?? '';
    if (!deleteSubscription(sandbox, caller.companyId, id)) {
      throw new HttpError('not_found', `no webhook subscription ${id}`);
    }
    sandbox.log(`webhook subscription ${id} deleted`);
    return { status: 204, headers: {}, body: '' };
  });

  router.get('/sandbox/webhook-deliveries', { query: DeliveriesQuery }, (req) =>
    json(200, listWebhookDeliveries(sandbox, req.query)),
  );
}
