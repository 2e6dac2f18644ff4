// What happens to a journalled delivery after its sender has its 2xx (docs/interface-decisions.md#events-and-delivery-rules:
// asynchronously and idempotently). RETURN_REQUESTED opens to a ReturnRequest and
// CREDIT_NOTE_CREATED to a ReceiptEnvelope, each with whichever historical key the item was
// encrypted for; unknown events are shown, never fatal. A delivery that cannot be decrypted
// stays in the journal with its error. The outcome is journalled after its line was handed to
// the system (not while it waits in this process for a slow reader), so a crash in between
// shows the event again at the next start rather than never.
import { setTimeout as sleep } from 'node:timers/promises';
import { ReturnRequest } from '../contract/returns.js';
import { validate, type Issue } from '../contract/validate.js';
import { isKnownWebhookEvent, ReceiptEnvelope, WebhookEvent } from '../contract/webhook.js';
import type { EncryptedItem } from '../crypto/hybrid.js';
import { jsonText, oneLine } from '../io/output.js';
import type { IOStreams } from '../io/streams.js';
import { reportedColumns } from '../io/terminal-columns.js';
import { wrapText } from '../io/wrap.js';
import { companyIdOfBody } from './company.js';
import type { Decryptor } from './decryptor.js';
import type { ProcessedOutcome, StoredDelivery } from './journal.js';

/** One line of `svc webhook listen --json` (docs/interface-decisions.md#webhook-listen-lines). */
export interface EventReport {
  id: string;
  event: string | null;
  receivedAt: string;
  verified: true;
  duplicate: boolean;
  /** The decrypted plaintext; null for duplicates, unknown events and failures. */
  data: unknown;
  error?: string;
  /** RETURN_REQUESTED: the request in the queue, when the listener could look it up. */
  requestId?: string;
  /** The company the event is of (its `companyId`), when the delivery names it. */
  companyId?: string;
  /** The receipt a RETURN_REQUESTED is about, the credit note a CREDIT_NOTE_CREATED is: outside the ciphertext, so there when decryption failed too. */
  serviceReceiptId?: string;
}

export interface ProcessedEvent {
  report: EventReport;
  /** The human line's description: receipt and items, credit note and documents, or why not. */
  summary: string;
  /** Each forward target and what it answered ("forwarded to URL: 200 OK", "not forwarded to URL: …"), when there are targets. */
  forwarded?: string | undefined;
}

export interface Decoded {
  event: string | null;
  data: unknown;
  error?: string;
  summary: string;
  /** RETURN_REQUESTED: its ciphertext, which the queue item carries too (how its request ID is found). */
  ciphertext?: string;
  /** The delivery's `companyId`: one listener may receive for thousands of companies. */
  companyId?: string;
  /** The receipt (RETURN_REQUESTED) or the credit note (CREDIT_NOTE_CREATED) it names. */
  serviceReceiptId?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses, validates and decrypts one delivery body; every failure becomes `error`, never a throw. */
export async function decodeDelivery(raw: Buffer, decryptor: Pick<Decryptor, 'decrypt'>): Promise<Decoded> {
  let body: unknown;
  try {
    body = JSON.parse(utf8.decode(raw));
  } catch {
    return { event: null, data: null, error: 'the body is not UTF-8 JSON', summary: 'not an event' };
  }
  const named = (body as { event?: unknown } | null)?.event;
  const name = typeof named === 'string' && named !== '' ? named : null;
  const parsed = validate(WebhookEvent, body);
  if (!parsed.success) {
    return { event: name, data: null, error: `not a valid ${name ?? 'event'} delivery: ${describeIssues(parsed.issues)}`, summary: 'invalid delivery' };
  }
  const event = parsed.data;
  if (!isKnownWebhookEvent(event)) return { event: event.event, data: null, summary: 'unknown event: recorded, nothing to process' };

  if (event.event === 'RETURN_REQUESTED') {
    const item = event.data.creditNoteInitiationRequest;
    // Outside the ciphertext: said also when it cannot be opened, and the request found by its ciphertext.
    const company = { ...(item.companyId === undefined ? {} : { companyId: item.companyId }), serviceReceiptId: item.serviceReceiptId, ciphertext: item.encryptedCreditNoteInitiationRequest };
    const opened = await open(
      { ciphertext: item.encryptedCreditNoteInitiationRequest, wrappedKey: item.encryptedSymmetricKey, publicKey: item.publicKey },
      decryptor,
      (value) => validate(ReturnRequest, value),
      'return request',
    );
    if ('error' in opened) return { event: event.event, data: null, error: opened.error, summary: `receipt ${item.serviceReceiptId}`, ...company };
    const items = opened.value.lineItems.length;
    return {
      ...company,
      event: event.event,
      data: opened.value,
      summary: `receipt ${opened.value.serviceReceiptId}  ${items} item${items === 1 ? '' : 's'}`,
    };
  }
  const note = event.data.encryptedCreditNote;
  const opened = await open(
    { ciphertext: note.encryptedEnvelope, wrappedKey: note.encryptedEnvelopeKey, publicKey: note.publicKey },
    decryptor,
    (value) => validate(ReceiptEnvelope, value),
    'receipt envelope',
  );
  if ('error' in opened) return { event: event.event, data: null, error: opened.error, summary: `credit note ${note.serviceReceiptId}`, companyId: note.companyId, serviceReceiptId: note.serviceReceiptId };
  return {
    companyId: note.companyId,
    serviceReceiptId: note.serviceReceiptId,
    event: event.event,
    data: opened.value,
    summary: `credit note ${note.serviceReceiptId}  ${Object.keys(opened.value.documents).join(', ')}`,
  };
}

async function open<T>(
  item: EncryptedItem,
  decryptor: Pick<Decryptor, 'decrypt'>,
  check: (value: unknown) => { success: true; data: T } | { success: false; issues: Issue[] },
  what: string,
): Promise<{ value: T } | { error: string }> {
  const outcome = await decryptor.decrypt(item);
  if (!outcome.ok) return { error: outcome.error };
  const checked = check(outcome.value);
  // Only paths and rule texts: the plaintext is customer data.
  return checked.success ? { value: checked.data } : { error: `the decrypted ${what} is invalid: ${describeIssues(checked.issues)}` };
}

function describeIssues(issues: readonly Issue[]): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path || '(root)'} ${i.message}`);
  return shown.join('; ') + (issues.length > 3 ? ` (and ${issues.length - 3} more)` : '');
}

/** `--> EVENT  <id>  <summary>` (stderr of `listen` and `replay`), plus where it was forwarded. */
function eventLines(processed: ProcessedEvent): string {
  const { report, summary, forwarded } = processed;
  // The event's name and summary come from the delivery (a customer's note among them): one
  // line each, with no character that could drive the terminal.
  const head = `--> ${oneLine(report.event ?? '(no event)')}  ${shortId(report.id)}  `;
  const body = report.duplicate
    ? `duplicate of the delivery received ${report.receivedAt}: not processed again`
    : oneLine(summary) + (report.error === undefined ? '' : `  error: ${oneLine(report.error)}`);
  return `${head}${body}\n${forwarded === undefined ? '' : `    ${forwarded}\n`}`;
}

/**
 * The human line on stderr, and with --json the docs/interface-decisions.md#json-output object
 * as one line on stdout. The event's line is one line, for a log or a pipe; on a terminal one
 * wider than it wraps at words, continuations indented under its text, as every note does.
 */
export function writeEvent(io: IOStreams, processed: ProcessedEvent): void {
  const width = io.stderrIsTTY ? reportedColumns(io.stderr) : undefined;
  const lines = eventLines(processed);
  io.stderr.write(width === undefined ? lines : `${wrapText(lines.replace(/\n$/, ''), width, { hang: '    ' })}\n`);
  if (io.json) io.stdout.write(`${jsonText(processed.report)}\n`);
}

/** The first 12 hex digits: unique enough to read, and accepted by `svc webhook replay`. */
export function shortId(id: string): string {
  return id.slice(0, 12);
}

export interface ForwardSummary {
  /** Each target and its answer, for the event's line. */
  text: string;
  /** Each target that never took it ("URL: what it answered (N attempts)"), journalled with the outcome. */
  failed: readonly string[];
}

export interface ProcessorOptions {
  decryptor: Pick<Decryptor, 'decrypt'>;
  markProcessed(id: string, outcome: ProcessedOutcome): Promise<void>;
  /** Re-posts the delivery; resolves with where to and the answer ("URL: 200 OK"), and the targets that never took it; never rejects. */
  forward?: ((delivery: StoredDelivery) => Promise<ForwardSummary>) | undefined;
  /**
   * Shows the event. A promise: resolves once what it wrote was handed to the system (a line
   * still in this process would die with it); the outcome is journalled only then, and a
   * rejection (the reader gone) leaves it unjournalled, to be shown again at the next start.
   */
  report(processed: ProcessedEvent): void | Promise<void>;
  warn(text: string): void;
  /** True while deliveries are being answered; processing then waits (at most `maxYieldMs`), then takes only a share of the time. */
  busy?: (() => boolean) | undefined;
  /** How long the oldest delivery waiting may wait for acknowledgements to stop (MAX_YIELD_MS). */
  maxYieldMs?: number | undefined;
  /** The queue's request ID for a RETURN_REQUESTED ciphertext; undefined when unknown. Never rejects. */
  requestIdOf?: ((ciphertext: string, companyId: string | undefined, receivedAt: string) => Promise<string | undefined>) | undefined;
  /**
   * Asked before each delivery is processed (a shared journal: is its claim still this
   * listener's?); may wait (while outcomes cannot be recorded). False: passed over.
   */
  admit?: ((delivery: StoredDelivery) => Promise<boolean>) | undefined;
  /** Names the company on the human line (a listener for several companies); returns undefined to show its ID. */
  companyName?: ((companyId: string) => string | undefined) | undefined;
}

export interface Processor {
  /** Processes a new delivery in arrival order; a duplicate is only reported. */
  enqueue(delivery: StoredDelivery, duplicate: boolean): void;
  /** Resolves once the queue is empty. */
  idle(): Promise<void>;
  /**
   * Deliveries enqueued and not journalled processed yet: queued, being forwarded, or shown
   * with their lines not out yet (a line that never got out leaves its delivery for the next start).
   */
  waiting(): number;
  /**
   * Finishes the batch in hand (its events are decrypted already) and leaves the rest
   * unprocessed for the next start; resolves how many were left.
   */
  stop(): Promise<number>;
  /**
   * The drain ran out of time: what is being processed or forwarded now is left as it is for
   * the next start, neither shown nor journalled processed, and nothing more is begun.
   */
  abandon(): void;
}

/** Events decrypted together (their unwraps go to the decryptor's thread in slices). */
export const PROCESSING_BATCH = 32;
// Acknowledging is what the sender waits for; processing can wait. While deliveries are being
// answered it waits altogether, until the oldest delivery waiting has waited MAX_YIELD_MS or
// the bodies waiting reach MAX_YIELD_BYTES: a burst is acknowledged at full speed and its
// events shown right after it (on two cores, decrypting alongside took a fifth of the acks).
// Past that bound, under a steady stream, processing gets one part in four of the time (a
// pause three times as long as its last batch took), and all of it once deliveries stop.
export const MAX_YIELD_MS = 1000;
const MAX_YIELD_BYTES = 64 * 1024 * 1024;
const YIELD_STEP_MS = 10;
const BUSY_PAUSE_FACTOR = 3;
/** Deliveries whose forwards may be under way at once. */
const MAX_FORWARDING = 256;
/** Events shown whose lines are not out yet (a reader that stopped reading): processing waits beyond. */
export const MAX_UNWRITTEN = 256;
const MAX_PAUSE_MS = 250;

export function createProcessor(opts: ProcessorOptions): Processor {
  // A head index instead of shift(): a backlog of thousands would make shift() quadratic.
  let queue: StoredDelivery[] = [];
  let head = 0;
  // When each delivery in the queue was enqueued (performance.now()), and the bytes of the bodies waiting.
  let queuedAt: number[] = [];
  let queuedBytes = 0;
  const maxYieldMs = opts.maxYieldMs ?? MAX_YIELD_MS;
  let running: Promise<void> | undefined;
  let stopping = false;
  let abandoned = false;
  let onStop: () => void = () => undefined;
  const stopped = new Promise<false>((resolve) => (onStop = () => resolve(false)));
  // A duplicate is reported once the deliveries that came before it are: never its original's
  // line after its own while the original is still being decrypted.
  let enqueued = 0;
  let passed = 0;
  const duplicates: { after: number; delivery: StoredDelivery }[] = [];
  // With forwarding, deliveries whose forwards are still under way (each target at its own
  // pace): a slow or hung target holds up its own forwards, never the next deliveries'.
  const forwarding = new Map<string, Promise<void>>();
  // Resolved by enqueue(): a drain waiting for forwards takes up a new delivery at once,
  // rather than after the slowest forward under way.
  let arrived: () => void = () => undefined;
  // Events reported whose lines are still on their way out, and so not journalled as processed yet.
  const unwritten = new Set<Promise<void>>();
  // Deliveries enqueued whose outcome has not been handed to the journal (nor passed over to
  // another listener): what waiting() says. Not the queue's length: a delivery leaves the
  // queue when its forwards start, long before it is processed.
  let outstanding = 0;
  const reportDuplicate = ({ entry, raw }: StoredDelivery) => {
    const line = () => {
      // Abandoned (the drain ran out of time), nothing more is shown: its original neither.
      if (abandoned) return;
      void opts.report({
        // The company the original named, as the acknowledgement's line said it.
        report: { id: entry.id, event: entry.event, receivedAt: entry.receivedAt, verified: true, duplicate: true, data: null, ...withCompany(companyIdOfBody(raw)) },
        summary: '',
      });
    };
    // After its original's line, which waits for the original's forwards.
    const original = forwarding.get(entry.id);
    if (original) void original.then(line);
    else line();
  };
  const reportDuplicatesUpTo = (count: number) => {
    while (duplicates.length > 0 && duplicates[0]!.after <= count) reportDuplicate(duplicates.shift()!.delivery);
  };

  async function finish(delivery: StoredDelivery, decoded: Decoded): Promise<void> {
    const { entry } = delivery;
    if (abandoned) return;
    const forwarded = opts.forward && (await opts.forward(delivery));
    const forwardFailed = forwarded && forwarded.failed.length > 0 ? forwarded.failed : undefined;
    const requestId = decoded.ciphertext !== undefined && opts.requestIdOf ? await opts.requestIdOf(decoded.ciphertext, decoded.companyId, entry.receivedAt) : undefined;
    // The listener may have stopped meanwhile: an abandoned delivery's line would come after it.
    if (abandoned) return;
    const report: EventReport = {
      id: entry.id,
      event: decoded.event ?? entry.event,
      receivedAt: entry.receivedAt,
      verified: true,
      duplicate: false,
      data: decoded.data,
      ...(decoded.error === undefined ? {} : { error: decoded.error }),
      ...(requestId === undefined ? {} : { requestId }),
      ...(decoded.companyId === undefined ? {} : { companyId: decoded.companyId }),
      ...(decoded.serviceReceiptId === undefined ? {} : { serviceReceiptId: decoded.serviceReceiptId }),
    };
    const written = opts.report({ report, summary: eventSummary(decoded, requestId, opts.companyName), forwarded: forwarded?.text });
    // Not awaited: the next event need not wait for this marker's fsync, and markers of
    // consecutive events share one (group commit). The journal flushes them before it closes.
    const mark = () => {
      outstanding--;
      void opts.markProcessed(entry.id, { ok: decoded.error === undefined, error: decoded.error, ...(forwardFailed === undefined ? {} : { forwardFailed }) }).catch((error: unknown) => {
        opts.warn(
          `warning: could not journal that ${shortId(entry.id)} was processed (${error instanceof Error ? error.message : String(error)}); it will be processed again at the next start`,
        );
      });
    };
    if (!written) return mark();
    // Journalled once its line is out, never before: a SIGKILL in between shows it again at the next start.
    const out: Promise<void> = written.then(mark, () => undefined).finally(() => unwritten.delete(out));
    unwritten.add(out);
    while (unwritten.size >= MAX_UNWRITTEN) await Promise.race(unwritten);
  }

  /** Resolves once every event reported has its line out and its outcome handed to the journal. */
  async function allWritten(): Promise<void> {
    while (unwritten.size > 0) await Promise.all(unwritten);
  }

  /** Starts the delivery's forwards and goes on; at most MAX_FORWARDING deliveries at once (memory stays bounded). */
  async function startForwarded(delivery: StoredDelivery, decoded: Decoded): Promise<void> {
    while (forwarding.size >= MAX_FORWARDING) await Promise.race(forwarding.values());
    const id = delivery.entry.id;
    const done = finish(delivery, decoded).finally(() => forwarding.delete(id));
    forwarding.set(id, done);
  }

  async function drain(): Promise<void> {
    // Deliveries enqueued together (the backlog at start) make one batch.
    await Promise.resolve();
    for (;;) {
      while (head < queue.length && !stopping) {
        if (!(await yieldToAcks())) break;
        const batch = queue.slice(head, head + PROCESSING_BATCH);
        const started = performance.now();
        const decoded = await Promise.all(batch.map((delivery) => decodeDelivery(delivery.raw, opts.decryptor)));
        for (const [i, delivery] of batch.entries()) {
          if (abandoned) break;
          const admitted = opts.admit ? await Promise.race([opts.admit(delivery), stopped]) : true;
          // A shared journal gives its claims back when it stops: what is not admitted by then is left.
          if (opts.admit && stopping) break;
          if (admitted) {
            if (opts.forward) await startForwarded(delivery, decoded[i] as Decoded);
            else await finish(delivery, decoded[i] as Decoded);
          } else outstanding--;
          queuedBytes -= delivery.raw.length;
          head++;
          reportDuplicatesUpTo(++passed);
        }
        if (!stopping && opts.busy?.()) await sleep(Math.min(MAX_PAUSE_MS, (performance.now() - started) * BUSY_PAUSE_FACTOR));
      }
      // Every forward begun is finished (and its delivery marked) before the queue counts as
      // idle or stopped; deliveries that arrive meanwhile are taken up.
      if (forwarding.size === 0) break;
      await Promise.race([...forwarding.values(), new Promise<void>((resolve) => (arrived = resolve))]);
    }
    queue = queue.slice(head);
    queuedAt = queuedAt.slice(head);
    head = 0;
    running = undefined;
  }

  /**
   * Waits while deliveries are being answered, within the bound on how long and how much may
   * wait; false when the processor stopped meanwhile. With none in flight the batch is in
   * hand, and a stop asked for just now still lets it finish.
   */
  async function yieldToAcks(): Promise<boolean> {
    if (!opts.busy) return true;
    // The request that brought the delivery leaves the count first: only others in flight make it wait.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!opts.busy()) return true;
    while (!stopping && opts.busy() && performance.now() - (queuedAt[head] ?? 0) < maxYieldMs && queuedBytes < MAX_YIELD_BYTES) {
      await Promise.race([sleep(YIELD_STEP_MS), stopped]);
    }
    return !stopping;
  }

  return {
    enqueue(delivery, duplicate) {
      if (duplicate) {
        if (passed === enqueued) reportDuplicate(delivery);
        else duplicates.push({ after: enqueued, delivery });
        return;
      }
      enqueued++;
      outstanding++;
      queue.push(delivery);
      queuedAt.push(performance.now());
      queuedBytes += delivery.raw.length;
      arrived();
      running ??= drain();
    },
    async idle() {
      while (running) await running;
      await allWritten();
    },
    waiting: () => outstanding,
    abandon() {
      abandoned = true;
      stopping = true;
      onStop();
    },
    async stop() {
      stopping = true;
      onStop();
      while (running) await running;
      // Those left for the next start came before these: reported now, the originals then.
      reportDuplicatesUpTo(Number.POSITIVE_INFINITY);
      await allWritten();
      return outstanding;
    },
  };
}

function withCompany(companyId: string | undefined): { companyId?: string } {
  return companyId === undefined ? {} : { companyId };
}

/**
 * The human line's description, as `listen` and `replay` both write it: the request it is in
 * the queue, what it is, and, for a profile acting for several companies (`companyName`
 * given), whose.
 */
export function eventSummary(decoded: Pick<Decoded, 'summary' | 'companyId'>, requestId: string | undefined, companyName: ((companyId: string) => string | undefined) | undefined): string {
  const company = decoded.companyId === undefined || companyName === undefined ? '' : `  company ${companyName(decoded.companyId) ?? decoded.companyId}`;
  return `${requestId === undefined ? decoded.summary : `request ${requestId}  ${decoded.summary}`}${company}`;
}
