// `GET /sandbox/events[?event=]` (docs/interface-decisions.md#sandbox-endpoints): the events the sandbox has recorded, oldest
// first, whether or not any subscription received them; for tests and demos that want to
// see what happened without running a webhook receiver.
import * as z from '../../contract/zod.js';
import type { Sandbox } from '../context.js';
import { listEvents } from '../events.js';
import { bodyId } from '../../crypto/hash.js';
import { json, type Router } from '../router.js';

const EventsQuery = z.object({ event: z.string().min(1).optional() });

export function register(router: Router, sandbox: Sandbox): void {
  router.get('/sandbox/events', { query: EventsQuery }, (req) =>
    json(
      200,
      // Each with the ID a receiver gives its delivery (the SHA-256 of the body delivered,
      // docs/interface-decisions.md#delivery-ids): the envelope carries no event ID, so this is how a
      // `webhook listen` line is matched to the service's evt_ ID.
      listEvents(sandbox, req.query.event === undefined ? {} : { event: req.query.event }).map((e) => ({ ...e, deliveryId: bodyId(Buffer.from(JSON.stringify({ event: e.event, data: e.data }), 'utf8')) })),
    ),
  );
}
