// The sandbox's webhook sender (docs/interface-decisions.md#webhook-deliveries): every recorded event goes to each
// subscription of its company that asked for it, at least once. A delivery is one body,
// serialised once, sent again byte for byte on every retry with a fresh signature; it is
// retried with exponential backoff until a 2xx or the last attempt. Each attempt is kept in
// a log (`GET /sandbox/webhook-deliveries`) and written as one line to the sandbox log.
//
// Waiting between attempts is real time, since receivers are real servers; the signed `t`
// is the sandbox clock, so `svc sandbox clock advance` can make a receiver see it as stale.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { signatureHeader, SIGNATURE_HEADER } from '../webhook/signature.js';
import type { Sandbox } from './context.js';
import { onEvent, type RecordedEvent } from './events.js';
import { defineSlice } from './state.js';
import { findSubscription, subscribersOf, type SubscriptionRecord } from './webhook-subscriptions.js';

export interface WebhookDeliveryOptions {
  /** The first retry's delay before jitter; default 1000. */
  baseDelayMs?: number;
  /** Each further retry waits this many times longer; default 2. */
  factor?: number;
  /** Attempts in all, the first included; default 8. */
  maxAttempts?: number;
  /** An attempt without a complete 2xx answer by then has failed; default 10000. */
  timeoutMs?: number;
}

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

/** One attempt; all attempts of one event to one subscription share the `deliveryId`. */
export interface DeliveryAttempt {
  readonly deliveryId: string;
  readonly eventId: string;
  readonly event: string;
  readonly subscriptionId: string;
  /** 1 for the first. */
  readonly attempt: number;
  readonly url: string;
  /** The receiver's HTTP status; null when none came (refused, timed out). */
  readonly status: number | null;
  /** Why there was no status. */
  readonly error?: string;
  readonly durationMs: number;
  /** ISO 8601 by the sandbox clock, when the attempt started. */
  readonly at: string;
  /** When `retrying`: about when the next attempt goes out (sandbox clock). */
  readonly nextAttemptAt?: string;
  readonly outcome: DeliveryOutcome;
}

export interface WebhookWorker {
  /** Cancels pending retries and attempts in flight; safe to call more than once. */
  stop(): Promise<void>;
}

interface Delivery {
  readonly id: string;
  readonly event: RecordedEvent;
  readonly subscription: SubscriptionRecord;
  readonly body: Buffer;
}

const DEFAULTS: Required<WebhookDeliveryOptions> = { baseDelayMs: 1000, factor: 2, maxAttempts: 8, timeoutMs: 10_000 };
// setTimeout fires at once for longer delays, which would turn a generous setting into a retry storm.
const MAX_DELAY_MS = 2 ** 31 - 1;

const attempts = defineSlice('attempts', () => [] as DeliveryAttempt[]);

export function listWebhookDeliveries(
  sandbox: Sandbox,
  filter: { subscriptionId?: string | undefined; eventId?: string | undefined } = {},
): readonly DeliveryAttempt[] {
  return sandbox.state
    .slice(attempts)
    .filter(
      (a) =>
        (filter.subscriptionId === undefined || a.subscriptionId === filter.subscriptionId) &&
        (filter.eventId === undefined || a.eventId === filter.eventId),
    );
}

export function startWebhookDelivery(sandbox: Sandbox, options: WebhookDeliveryOptions = {}): WebhookWorker {
  const settings = checkedSettings(options);
  const userAgent = `svc-sandbox-webhooks/${sandbox.version}`;
  // Its own connection pool, so that stopping the sandbox closes every socket it opened.
  const agent = new Agent();
  const stopping = new AbortController();
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();

  const schedule = (delivery: Delivery, attempt: number, delayMs: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      const running = send(delivery, attempt).catch((error: unknown) => {
        sandbox.log(`webhook ${delivery.id}: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      });
      inFlight.add(running);
      void running.finally(() => inFlight.delete(running));
    }, delayMs);
    // Pending retries alone must not keep a process (a test, `svc demo`) alive.
    timer.unref();
    timers.add(timer);
  };

  async function send(delivery: Delivery, attempt: number): Promise<void> {
    const { event, subscription, body } = delivery;
    // A reset forgets subscriptions; their pending deliveries go with them.
    if (findSubscription(sandbox, subscription.id) !== subscription) return;
    const at = sandbox.clock.iso();
    const started = performance.now();
    const answer = await post(subscription.notificationUrl, {
      'Content-Type': 'application/json',
      'User-Agent': userAgent,
      [SIGNATURE_HEADER]: signatureHeader([subscription.secret], body, Math.floor(sandbox.clock.now() / 1000)),
    }, body);
    const durationMs = Math.round(performance.now() - started);
    if (stopping.signal.aborted || findSubscription(sandbox, subscription.id) !== subscription) return;

    const delivered = answer.status !== null && answer.status >= 200 && answer.status < 300;
    const retryInMs = delivered || attempt >= settings.maxAttempts ? undefined : backoff(settings, attempt);
    const record: DeliveryAttempt = {
      deliveryId: delivery.id,
      eventId: event.id,
      event: event.event,
      subscriptionId: subscription.id,
      attempt,
      url: subscription.notificationUrl,
      status: answer.status,
      ...(answer.error === undefined ? {} : { error: answer.error }),
      durationMs,
      at,
      ...(retryInMs === undefined ? {} : { nextAttemptAt: new Date(sandbox.clock.now() + retryInMs).toISOString() }),
      outcome: delivered ? 'delivered' : retryInMs === undefined ? 'failed' : 'retrying',
    };
    sandbox.state.slice(attempts).push(record);
    sandbox.log(describeAttempt(record, settings.maxAttempts, retryInMs));
    if (retryInMs !== undefined) schedule(delivery, attempt + 1, retryInMs);
  }

  async function post(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number | null; error?: string }> {
    const timeout = AbortSignal.timeout(settings.timeoutMs);
    try {
      const response = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: agent,
        // A redirect is the receiver's answer, not an address to send the event to.
        maxRedirections: 0,
        signal: AbortSignal.any([stopping.signal, timeout]),
      });
      // The answer counts once it is complete, so a body that trickles in past the timeout fails the attempt.
      await response.body.dump();
      return { status: response.statusCode };
    } catch (error) {
      if (timeout.aborted) return { status: null, error: `no answer within ${settings.timeoutMs} ms` };
      return { status: null, error: error instanceof Error ? error.message : String(error) };
    }
  }

  const unsubscribe = onEvent(sandbox, (event) => {
    const subscriptions = subscribersOf(sandbox, event);
    if (subscriptions.length === 0) return;
    const body = Buffer.from(JSON.stringify({ event: event.event, data: event.data }), 'utf8');
    // Sent from a timer, so that the request which recorded the event is answered first.
    for (const subscription of subscriptions) schedule({ id: `whdel_${randomUUID()}`, event, subscription, body }, 1, 0);
  });

  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        unsubscribe();
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        stopping.abort();
        await Promise.allSettled(inFlight);
        await agent.destroy();
      })()),
  };
}

/** Equal jitter: between half and all of base × factor^(attempt - 1), so retries spread out yet still grow. */
function backoff(settings: Required<WebhookDeliveryOptions>, attempt: number): number {
  const ceiling = settings.baseDelayMs * settings.factor ** (attempt - 1);
  return Math.min(MAX_DELAY_MS, Math.round(ceiling / 2 + (Math.random() * ceiling) / 2));
}

function describeAttempt(record: DeliveryAttempt, maxAttempts: number, retryInMs: number | undefined): string {
  const answer = record.status === null ? (record.error ?? 'no answer') : String(record.status);
  const next = record.outcome === 'retrying' ? `retry in ${retryInMs} ms` : record.outcome;
  return `webhook ${record.event} ${record.eventId} to ${record.subscriptionId} (${new URL(record.url).host}) attempt ${record.attempt}/${maxAttempts}: ${answer} in ${record.durationMs} ms, ${next}`;
}

function checkedSettings(options: WebhookDeliveryOptions): Required<WebhookDeliveryOptions> {
  const settings = {
    baseDelayMs: options.baseDelayMs ?? DEFAULTS.baseDelayMs,
    factor: options.factor ?? DEFAULTS.factor,
    maxAttempts: options.maxAttempts ?? DEFAULTS.maxAttempts,
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
  };
  if (!Number.isFinite(settings.baseDelayMs) || settings.baseDelayMs < 0) throw new RangeError(`webhooks.baseDelayMs must be 0 or more, got ${settings.baseDelayMs}`);
  if (!Number.isFinite(settings.factor) || settings.factor < 1) throw new RangeError(`webhooks.factor must be 1 or more, got ${settings.factor}`);
  if (!Number.isSafeInteger(settings.maxAttempts) || settings.maxAttempts < 1) throw new RangeError(`webhooks.maxAttempts must be a whole number from 1, got ${settings.maxAttempts}`);
  if (!Number.isFinite(settings.timeoutMs) || settings.timeoutMs <= 0) throw new RangeError(`webhooks.timeoutMs must be more than 0, got ${settings.timeoutMs}`);
  return settings;
}
