// The listener's log on stderr: `--log-format text` (the default: the lines a person reads)
// or `json`: one JSON object a line, for a log shipper, with `time`, `level` and `msg`, and
// where they apply `deliveryId` (the lowercase hex SHA-256 of the raw body, as the journal
// keys it; see docs/interface-decisions.md), `event`, `companyId`, `outcome`. A line never
// holds a secret, a signature header or decrypted data: only IDs, names, counts and reasons.
import { Writable } from 'node:stream';
import { note, type IOStreams } from '../io/streams.js';
import { jsonText } from '../io/output.js';
import type { Clock } from '../clock.js';
import { errorReport, UsageError } from '../errors.js';
import type { DeliveryOutcome } from './listener-events.js';
import type { ProcessedEvent } from './processor.js';

export type LogFormat = 'text' | 'json';
export type LifecycleStep = 'subscribed' | 'admin' | 'listening' | 'ready' | 'draining' | 'stopped';
type Level = 'info' | 'warn' | 'error';

export function parseLogFormat(value: string | undefined): LogFormat {
  if (value === undefined || value === 'text' || value === 'json') return value ?? 'text';
  throw new UsageError(`--log-format: "${value}" is not a log format`, { hint: 'give text (the default) or json' });
}

export interface DeliveryLog {
  deliveryId?: string | undefined;
  event?: string | null | undefined;
  /** The company the delivery's envelope names (one listener may receive for thousands). */
  companyId?: string | undefined;
  status: number;
  /** Why it was refused, in words (never the body or the header). */
  reason?: string | undefined;
}

export interface ListenLog {
  readonly format: LogFormat;
  /**
   * The streams the rest of the listener writes its notes to: under json each line written to
   * this stderr becomes a `{"time","level","msg"}` object.
   */
  readonly io: IOStreams;
  /** Where its lines go in the end: the process's stderr (under json, what `io.stderr` writes its objects to). */
  readonly stream: Writable;
  lifecycle(step: LifecycleStep, text: string, fields?: Record<string, unknown>): void;
  /** How one delivery request was answered (json only: text shows refusals and events its own way). */
  delivery(outcome: DeliveryOutcome, fields: DeliveryLog): void;
  /** A delivery processed: json only (text has the `-->` line). */
  processed(processed: ProcessedEvent): void;
  /** The listener failed (json only: text has the error as svc prints every error): message, hint and exit code, as `--json` errors carry them. */
  failed(error: unknown): void;
  /** A forward target that failed (json only: text names it on the event's line). */
  forwardFailed(fields: { deliveryId: string; event: string | null; companyId: string | undefined; target: string; attempts: number; detail: string }): void;
}

export function createListenLog(io: IOStreams, format: LogFormat, clock: Clock): ListenLog {
  // The stream itself, taken now: under json the process's stderr is this log's (see adoptStderr).
  const raw = io.stderr;
  const write = (level: Level, msg: string, fields: Record<string, unknown> = {}) => {
    const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    raw.write(`${jsonText({ time: new Date(clock.now()).toISOString(), level, msg, ...defined })}\n`);
  };
  if (format === 'text') {
    return {
      format,
      io,
      stream: raw,
      lifecycle: (_step, text) => note(io, text),
      delivery: () => undefined,
      processed: () => undefined,
      failed: () => undefined,
      forwardFailed: () => undefined,
    };
  }
  let partial = '';
  const stderr = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') write(levelOf(line), withoutLevelWord(line.trim()));
      done();
    },
  });
  return {
    format,
    io: { ...io, stderr, stderrIsTTY: false, redraw: false, color: false },
    stream: raw,
    // `detail` only where it says more than the step's name (`"msg":"ready"` needs no `"detail":"ready"`).
    lifecycle: (step, text, fields) => write('info', step, { detail: text === step ? undefined : text, ...fields }),
    delivery(outcome, fields) {
      // A request that is no delivery (a probe at the wrong port) is told, not warned about.
      write(outcome === 'unavailable' ? 'warn' : outcome === 'accepted' || outcome === 'duplicate' || outcome === 'off_route' ? 'info' : 'warn', outcome === 'off_route' ? 'request' : 'delivery', {
        deliveryId: fields.deliveryId,
        event: fields.event ?? undefined,
        companyId: fields.companyId,
        outcome,
        status: fields.status,
        reason: fields.reason,
      });
    },
    processed({ report, forwarded }) {
      const outcome = report.duplicate ? 'duplicate' : report.error === undefined ? 'ok' : 'failed';
      write(outcome === 'failed' ? 'warn' : 'info', 'processed', {
        deliveryId: report.id,
        event: report.event ?? undefined,
        companyId: report.companyId,
        requestId: report.requestId,
        outcome,
        error: report.error,
        forwarded,
      });
    },
    failed(error) {
      const report = errorReport(error);
      write('error', 'failed', { error: report.message, code: report.code, hint: report.hint ?? undefined, exitCode: report.exitCode });
    },
    forwardFailed(fields) {
      write('warn', 'forward failed', { deliveryId: fields.deliveryId, event: fields.event ?? undefined, companyId: fields.companyId, target: fields.target, attempts: fields.attempts, detail: fields.detail });
    },
  };
}

/** The message of a note: its "warning: ", "note: " or "error: " is what `level` says already. */
function withoutLevelWord(line: string): string {
  return line.replace(/^(warning|note|error): /i, '');
}

function levelOf(line: string): Level {
  if (/^(warning|note: .*cannot)/i.test(line)) return 'warn';
  if (/^error/i.test(line)) return 'error';
  return 'info';
}

/**
 * Under json, every line the command writes on stderr is a log object, including notes of
 * parts made before the listener ran (the secret store's plain-text warning): the streams
 * those parts hold become the log's.
 */
export function adoptStderr(io: IOStreams, log: ListenLog): void {
  if (log.format !== 'json') return;
  Object.defineProperty(io, 'stderr', { value: log.io.stderr, configurable: true, enumerable: true });
  Object.assign(io, { stderrIsTTY: false, redraw: false, color: false });
}
