// The service's event log: every RETURN_REQUESTED and CREDIT_NOTE_CREATED the sandbox
// records, in order. `GET /sandbox/events` shows it; the webhook delivery worker takes each
// new event from here (through `onEvent`) and delivers it to the company's subscriptions.
// Producers (returns, credit notes) and the consumer (webhooks) only meet in this module.
import { randomUUID } from 'node:crypto';
import type { Sandbox } from './context.js';
import { defineSlice } from './state.js';

export interface RecordedEvent {
  /** evt_<uuid> */
  readonly id: string;
  /** RETURN_REQUESTED, CREDIT_NOTE_CREATED */
  readonly event: string;
  /** The company whose subscriptions receive it. */
  readonly companyId: string;
  /** The client application it concerns (OAuth integrations), or null (API-key integrations). */
  readonly clientId: string | null;
  /** ISO 8601 by the sandbox clock. */
  readonly createdAt: string;
  /** The `data` member of the delivered envelope `{ event, data }`. */
  readonly data: Readonly<Record<string, unknown>>;
}

type Listener = (event: RecordedEvent) => void;

const log = defineSlice('events', () => [] as RecordedEvent[]);
// Listeners outlive `reset()` (a delivery worker is started once per sandbox), so they are
// kept per sandbox object rather than in a slice.
const listeners = new WeakMap<Sandbox, Set<Listener>>();

export function recordEvent(sandbox: Sandbox, event: Omit<RecordedEvent, 'id' | 'createdAt'>): RecordedEvent {
  const recorded: RecordedEvent = { ...event, id: `evt_${randomUUID()}`, createdAt: sandbox.clock.iso() };
  sandbox.state.slice(log).push(recorded);
  sandbox.log(`event ${recorded.event} ${recorded.id}`);
  for (const listener of listeners.get(sandbox) ?? []) listener(recorded);
  return recorded;
}

export function listEvents(sandbox: Sandbox, filter: { companyId?: string; event?: string } = {}): readonly RecordedEvent[] {
  return sandbox.state
    .slice(log)
    .filter((e) => (filter.companyId === undefined || e.companyId === filter.companyId) && (filter.event === undefined || e.event === filter.event));
}

/** Called synchronously for every event recorded from now on; returns an unsubscribe function. */
export function onEvent(sandbox: Sandbox, listener: Listener): () => void {
  let set = listeners.get(sandbox);
  if (!set) listeners.set(sandbox, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}
