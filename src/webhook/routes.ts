// `--forward-to [EVENTS=]URL`, repeatable: each processed delivery goes to the targets of its
// event (`RETURN_REQUESTED=http://127.0.0.1:3000/returns`; EVENTS may be a comma list of the
// events svc knows), and to every bare URL (every event, those svc does not know too). A
// forward is the delivery as it arrived (forward.ts) plus `Svc-Event`, `Svc-Delivery-Id` (the
// journal's ID: the body's SHA-256) and `Svc-Company-Id`. Targets are asked at once, not one
// after the other; a target that fails (no answer, 5xx, 429) is tried again with exponential
// backoff; one whose last delivery failed every attempt is "down" and gets one attempt per
// delivery until it answers again, so it costs the others nothing more.
import { setTimeout as sleep } from 'node:timers/promises';
import { KNOWN_WEBHOOK_EVENTS, isKnownWebhookEventName } from '../contract/webhook.js';
import { UsageError } from '../errors.js';
import { createForwarder, parseForwardUrl, type Forwarder, type ForwardResult } from './forward.js';
import { companyIdOfBody } from './company.js';
import type { StoredDelivery } from './journal.js';

export interface Route {
  /** undefined: every event. */
  events: ReadonlySet<string> | undefined;
  url: URL;
}

const EVENTS_PREFIX = /^([A-Za-z0-9_]+(?:,[A-Za-z0-9_]+)*)=(.*)$/s;

/** One `--forward-to` value. A URL never matches EVENTS= (its scheme's `:` comes first). */
export function parseRoute(value: string): Route {
  const match = EVENTS_PREFIX.exec(value);
  if (!match) {
    // EVENTS= with a name left empty (`=URL`, `A,=URL`): said as such, not as a URL it is not.
    const named = /^([A-Za-z0-9_,]*)=(https?:\/\/.*)$/is.exec(value);
    if (named) {
      throw new UsageError(`--forward-to: an empty event name before "=" in ${value}`, {
        hint: `name the events (RETURN_REQUESTED, CREDIT_NOTE_CREATED, comma-separated) before "=", or give the URL alone for every event: --forward-to ${named[2]}`,
      });
    }
    return { events: undefined, url: parseForwardUrl(value) };
  }
  const events = (match[1] ?? '').split(',');
  const lower = events.find((e) => e !== e.toUpperCase());
  if (lower !== undefined) {
    throw new UsageError(`--forward-to: "${lower}" is not an event name`, { hint: 'event names are upper case, e.g. RETURN_REQUESTED=http://127.0.0.1:3000/returns' });
  }
  // A mistyped name would route nothing, and its deliveries be marked processed all the same.
  const unknown = events.find((e) => !isKnownWebhookEventName(e));
  if (unknown !== undefined) {
    throw new UsageError(`--forward-to: ${unknown} is not an event svc knows (${KNOWN_WEBHOOK_EVENTS.join(', ')})`, {
      hint: `to forward every event, those svc does not know yet too, give the URL alone: --forward-to ${match[2] ?? 'URL'}`,
    });
  }
  return { events: new Set(events), url: parseForwardUrl(match[2] ?? '') };
}

export function parseRoutes(values: readonly string[]): Route[] {
  return values.map(parseRoute);
}

export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  /** How long each request waits for the app (default 10 s). */
  timeoutMs?: number | undefined;
}

/** Four attempts, 0.25 s, 0.5 s, 1 s apart (with jitter). */
export const DEFAULT_FORWARD_RETRY: RetryPolicy = { attempts: 4, baseMs: 250 };

export interface ForwardOutcome {
  target: string;
  result: ForwardResult;
  /** Requests sent to the target for this delivery. */
  attempts: number;
}

/** Told as it happens, target by target: a slow target holds up no other's account. */
export interface ForwardProgress {
  /** A request sent to a target and its answer (not for one the listener's stop cut short). */
  attempt?(target: string, result: ForwardResult): void;
  /** A target done with the delivery, after its retries. */
  done?(outcome: ForwardOutcome): void;
}

export interface RoutingForwarder {
  /** Every target of the delivery's event, at once; never rejects. Empty when no route takes the event. */
  forward(delivery: StoredDelivery, progress?: ForwardProgress): Promise<ForwardOutcome[]>;
  /** Ends every forward under way at once, aborted (the drain ran out of time); none is tried again. */
  abort(): void;
  /** Tries nothing again from now on, and drops the connections once the forwards under way end. */
  close(): Promise<void>;
}

const retryable = (result: ForwardResult) => result.status === undefined || result.status >= 500 || result.status === 429;

export function createRoutingForwarder(routes: readonly Route[], policy: RetryPolicy = DEFAULT_FORWARD_RETRY): RoutingForwarder {
  // One connection pool per distinct URL, however many routes name it.
  const targets = new Map<string, { forwarder: Forwarder; down: boolean }>();
  for (const route of routes) if (!targets.has(route.url.href)) targets.set(route.url.href, { forwarder: createForwarder(route.url, policy.timeoutMs), down: false });
  // Set by close() and abort(): a retry then would go to a closed pool (and be counted as
  // sent though it never was), or outlast the drain. Each backoff has a signal of its own,
  // aborted then: one shared by every backoff would hold a listener per forward waiting, and
  // Node warns on stderr past 10, outside a JSON log.
  let closing = false;
  const backoffs = new Set<AbortController>();
  const stop = () => {
    closing = true;
    for (const backoff of backoffs) backoff.abort();
  };
  const backOff = async (ms: number): Promise<boolean> => {
    const own = new AbortController();
    backoffs.add(own);
    try {
      return await sleep(ms, true, { signal: own.signal }).catch(() => false);
    } finally {
      backoffs.delete(own);
    }
  };

  async function send(href: string, delivery: StoredDelivery, headers: Record<string, string>, progress: ForwardProgress): Promise<ForwardOutcome> {
    const target = targets.get(href)!;
    const attempts = target.down ? 1 : policy.attempts;
    let result: ForwardResult = { status: undefined, text: 'not sent: the listener is stopping' };
    let made = 0;
    while (made < attempts && !closing) {
      if (made > 0) {
        const waited = await backOff(policy.baseMs * 2 ** (made - 1) * (0.75 + Math.random() / 2));
        if (!waited || closing) break;
      }
      made++;
      result = await target.forwarder.forward(delivery, headers);
      if (!result.aborted) progress.attempt?.(href, result);
      if (!retryable(result) || result.aborted) break;
    }
    // An aborted forward says nothing of the app.
    if (!result.aborted) target.down = retryable(result);
    const outcome = { target: href, result, attempts: made };
    progress.done?.(outcome);
    return outcome;
  }

  return {
    async forward(delivery, progress = {}) {
      const event = delivery.entry.event;
      const hrefs = new Set(routes.filter((r) => r.events === undefined || (event !== null && r.events.has(event))).map((r) => r.url.href));
      if (hrefs.size === 0) return [];
      const headers = forwardHeadersOf(delivery);
      return Promise.all([...hrefs].map((href) => send(href, delivery, headers, progress)));
    },
    abort() {
      stop();
      for (const t of targets.values()) t.forwarder.abort();
    },
    async close() {
      stop();
      await Promise.all([...targets.values()].map((t) => t.forwarder.close()));
    },
  };
}

/**
 * What a forward adds to the delivery as it arrived: `Svc-Event`, `Svc-Delivery-Id` and, when
 * the delivery names one fit for a header, `Svc-Company-Id`. The same for `svc webhook replay
 * --forward-to`, so an app that routes or deduplicates on them takes a replay as the original.
 */
export function forwardHeadersOf(delivery: StoredDelivery): Record<string, string> {
  const companyId = companyIdOfBody(delivery.raw);
  return {
    'svc-event': delivery.entry.event ?? '',
    'svc-delivery-id': delivery.entry.id,
    ...(companyId === undefined ? {} : { 'svc-company-id': companyId }),
  };
}

