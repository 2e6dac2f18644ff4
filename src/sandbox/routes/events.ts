// `GET /sandbox/events[?event=]` (docs/interface-decisions.md#sandbox-endpoints): the events the sandbox has recorded, oldest
// first, whether or not any subscription received them; for tests and demos that want to
// see what happened without running a webhook receiver.
import * as z from 'zod';
import type { Sandbox } from '../context.js';
import { listEvents } from '../events.js';
import { json, type Router } from '../router.js';

const EventsQuery = z.object({ event: z.string().min(1).optional() });

export function register(router: Router, sandbox: Sandbox): void {
  router.get('/sandbox/events', { query: EventsQuery }, (req) =>
    json(200, listEvents(sandbox, req.query.event === undefined ? {} : { event: req.query.event })),
  );
}
