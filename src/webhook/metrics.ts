// The listener's Prometheus metrics (`svc webhook listen --admin-port`): what it was sent and
// answered, what it processed and forwarded, what is journalled and waits, how long an
// acknowledgement took, and prom-client's standard process_* metrics. This module is
// imported only when the admin port is on, so a listener without it never loads prom-client.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ListenerMetrics } from './listener-events.js';

/** The text format and its content type (Prometheus exposition format 0.0.4). */
export interface MetricsRegistry extends ListenerMetrics {
  contentType: string;
  text(): Promise<string>;
}

export function createMetrics(opts: { backlog: () => number | Promise<number> }): MetricsRegistry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const deliveries = new Counter({
    name: 'svc_webhook_deliveries_total',
    help: 'Requests answered on the delivery port, by outcome (accepted, duplicate, bad_signature, stale, future (signed ahead of this clock), malformed, unavailable; off_route: not a delivery, another path or method)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Every outcome shows from the start (at 0), so a rate over it never starts from a gap.
  for (const outcome of ['accepted', 'duplicate', 'bad_signature', 'stale', 'future', 'malformed', 'off_route', 'unavailable']) deliveries.inc({ outcome }, 0);
  const processed = new Counter({
    name: 'svc_webhook_processed_total',
    help: 'Journalled deliveries processed (decrypted and checked), by event and outcome (ok, failed)',
    labelNames: ['event', 'outcome'],
    registers: [registry],
  });
  const forwarded = new Counter({
    name: 'svc_webhook_forwarded_total',
    help: 'Deliveries forwarded to --forward-to targets, counted once each target is done with them (after its retries), by target and the HTTP status class of the last answer (2xx, 4xx, 5xx, error)',
    labelNames: ['target', 'status_class'],
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'svc_webhook_forward_attempts_total',
    help: 'Requests sent to --forward-to targets, retries included, by target and HTTP status class (2xx, 4xx, 5xx, error)',
    labelNames: ['target', 'status_class'],
    registers: [registry],
  });
  new Gauge({
    name: 'svc_webhook_backlog',
    help: 'Deliveries journalled and not processed yet, those being forwarded included (with a team database: all of its journal)',
    registers: [registry],
    async collect() {
      this.set(await opts.backlog());
    },
  });
  const ack = new Histogram({
    name: 'svc_webhook_ack_seconds',
    help: 'Time from a delivery request to its acknowledgement (verified and journalled)',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    contentType: registry.contentType,
    // prom-client writes NaN as "Nan" (a gauge with no sample yet: the event loop's lag
    // right after the start); the exposition format spells it "NaN", which strict parsers need.
    text: async () => (await registry.metrics()).replace(/ Nan$/gm, ' NaN'),
    delivery(outcome, seconds) {
      deliveries.inc({ outcome });
      if (seconds !== undefined) ack.observe(seconds);
    },
    processed(event, ok) {
      processed.inc({ event: event ?? 'none', outcome: ok ? 'ok' : 'failed' });
    },
    forwarded(target, statusClass) {
      forwarded.inc({ target, status_class: statusClass });
    },
    forwardAttempt(target, statusClass) {
      attempts.inc({ target, status_class: statusClass });
    },
  };
}
