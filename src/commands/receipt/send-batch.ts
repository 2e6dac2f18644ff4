// `svc receipt send --batch FILE.jsonl`: many receipts in one process, one token per company,
// N in flight (docs/interface-decisions.md#batch-lines). Each line is `{ "template": <template request>, one of "email" |
// "phone" | "iban" | "card", "customer"?: {…}, "store"?: "…", "grant"?: "…" }` ("grant": a
// selector as --grant takes it, so one batch issues for many companies, each under its own
// Grant), and gets one NDJSON line on stdout as it finishes: `{ "line": N,
// "serviceReceiptId": "…" }` (plus "grantId" for a line that named one) or `{ "line": N, "error": {…} }`.
// A bad line is reported with its number and field and stops nothing else. Every receipt
// goes through the ledger like a single `receipt send` (src/receipts/issue.ts), so a batch
// killed or interrupted half-way is finished by running it again: what was issued is
// reported again, what was under way is resumed, and only what is missing is issued.
// Members the interface does not name are checked per line as in a single file: a warning
// naming the line and each path, and with --strict that line fails as an element.
import * as z from '../../contract/zod.js';
import type { Caller } from '../../api/caller.js';
import { writeReceiptsCaller } from '../../auth/caller.js';
import { CustomerDetails } from '../../contract/receipt.js';
import { ReceiptTemplateRequest } from '../../contract/template.js';
import { unknownMembers } from '../../contract/unknown-members.js';
import { validate } from '../../contract/validate.js';
import { jsonInputProblem } from '../../contract/json-limits.js';
import { CancelError, ExitCode, SvcError, UsageError, ValidationError, errorReport, partialExitCode } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { jsonText } from '../../io/output.js';
import { readBoundedLines, REQUEST_BYTES } from '../../io/bounded-read.js';
import { inputName, inputReadError, linesNotUtf8, refuseUtf16 } from '../../io/input.js';
import { claimStdoutReaderGone } from '../../io/reader-gone.js';
import { note } from '../../io/streams.js';
import { terminalColumns } from '../../io/terminal-columns.js';
import { fitWidth } from '../../io/width.js';
import { issueReceipt, type IssueUi, type ReceiptInput } from '../../receipts/issue.js';
import { AlreadySubmittedError } from '../../receipts/submission.js';
import { lookupFromFlags } from '../recipient/lookup.js';
import { rememberFoundUnder } from '../../grants/found-under.js';
import type { SendOptions } from './send.js';

/** The sandbox refills 50 requests a second per client and a receipt takes 3: a few in flight keep it busy without a wall of 429s. */
export const DEFAULT_CONCURRENCY = 8;
const MAX_CONCURRENCY = 64;
/** Lines of a batch read at most (blank ones too), unless --max-lines says more: every line is held and checked before anything is sent. */
export const DEFAULT_MAX_LINES = 10_000;
const IDENTIFIERS = ['email', 'phone', 'iban', 'card'] as const;
const WARNING = 'warning: ';

export interface LineError {
  code: string;
  message: string;
  /** `already_submitted`: the receipt the service or the ledger holds under the line's document number. */
  serviceReceiptId?: string;
  details?: { path: string; message: string }[];
}

export type LineResult = { line: number; serviceReceiptId: string; grantId?: string; warnings?: string[] } | { line: number; error: LineError };

/** A receipt that failed, and the exit code the batch ends with when all failures agree. */
class BatchError extends SvcError {
  override readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode, hint: string) {
    super(message, { hint });
    this.exitCode = exitCode;
  }
}

export async function runBatch(opts: SendOptions, file: string, f: Factory): Promise<void> {
  for (const flag of ['file', 'customer', 'store', 'idempotencyKey', 'dryRun', ...IDENTIFIERS] as const) {
    if (opts[flag] !== undefined) {
      throw new UsageError(`--batch takes everything from its lines: leave out --${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, {
        hint: 'each line is { "template": …, "email" | "phone" | "iban" | "card": …, "customer"?: …, "store"?: … }',
      });
    }
  }
  const concurrency = concurrencyOf(opts.concurrency);
  const maxLines = maxLinesOf(opts.maxLines);
  // Every line is checked before anything is sent, so the whole file is read first: a FIFO
  // whose writer never closes is waited on, holding at most the limits.
  if (file === '-' && f.io.stdinIsTTY) note(f.io, 'reading standard input (end it with Ctrl-D)');
  const bytes = await readBoundedLines(file, f.io.stdin, inputName(file), {
    line: { bytes: REQUEST_BYTES, why: 'a line is sent as one request, and the service refuses request bodies over 1 MiB' },
    lines: maxLines,
    raiseLines: `--max-lines N (now ${maxLines.toLocaleString('en-US')})`,
  }).catch((error: unknown) => {
    throw inputReadError(file, error);
  });
  refuseUtf16(bytes, inputName(file));
  const lines = parseLines(bytes.toString('utf8').replace(/^\ufeff/, ''), opts.strict === true, linesNotUtf8(bytes));
  warnUnknown(f, lines);
  // A generator that wrote nothing is most likely a mistake upstream: said, though not a failure.
  if (lines.length === 0) {
    note(f.io, `${inputName(file)} has no lines: nothing was sent`);
    return;
  }
  const callerFor = callers(f);
  const ledger = await f.ledger();
  const progress = createProgress(f, lines.length);
  // A line's progress notes are left out; its warnings (totals that do not add up, a device
  // skipped) go to stderr with the line's number, as `receipt send` shows them, and into its result.
  const lineUi = (line: number, warnings: string[]): IssueUi => ({
    step: (_label, work) => work(),
    note: (text) => {
      if (!text.startsWith(WARNING)) return;
      warnings.push(text.slice(WARNING.length));
      progress.warn(`${WARNING}line ${line}: ${text.slice(WARNING.length)}`);
    },
  });
  const failures: { line: number; exitCode: ExitCode; issuedBefore?: true }[] = [];
  const issued: [serviceReceiptId: string, grantId: string][] = [];

  // A reader that stops early (`| head -1`) stops the batch: no new line is started, those
  // under way finish (the ledger has them either way), and the batch ends as cancelled.
  let readerGone = false;
  let reported = 0;
  const release = claimStdoutReaderGone(() => {
    readerGone = true;
  });
  const emit = (result: LineResult) => {
    if (!readerGone) progress.print(`${jsonText(result)}\n`);
    if (!readerGone) reported++;
    progress.tick();
  };
  let next = 0;
  const worker = async () => {
    while (next < lines.length && !readerGone) {
      const entry = lines[next++] as ParsedLine;
      if ('error' in entry) {
        failures.push({ line: entry.line, exitCode: ExitCode.usage });
        emit({ line: entry.line, error: entry.error });
        continue;
      }
      try {
        const caller = await callerFor(entry.grant);
        const warnings: string[] = [];
        const { record } = await issueReceipt(f, caller, ledger, entry.input, lineUi(entry.line, warnings));
        if (caller.grantId !== undefined) issued.push([record.serviceReceiptId, caller.grantId]);
        emit({
          line: entry.line,
          serviceReceiptId: record.serviceReceiptId,
          ...(entry.grant === undefined ? {} : { grantId: caller.grantId ?? entry.grant }),
          ...(warnings.length === 0 ? {} : { warnings }),
        });
      } catch (error) {
        const reported = lineError(error);
        failures.push({ line: entry.line, exitCode: error instanceof SvcError ? error.exitCode : ExitCode.failure, ...(reported.code === 'already_submitted' ? { issuedBefore: true as const } : {}) });
        emit({ line: entry.line, error: reported });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, lines.length)) }, worker));
  } finally {
    release();
  }
  progress.done();
  // Each receipt with its company, so that later commands on it need no --grant.
  await rememberFoundUnder(f, 'receipts', issued);

  if (next < lines.length) {
    throw new CancelError(`standard output was closed after ${reported} of ${lines.length} lines: the batch stopped before the rest`, {
      hint: 'run the same command again to finish it (what was issued is reported again, not issued twice); to see only some results, filter with --jq instead of closing the pipe',
    });
  }
  if (failures.length === 0) return;
  const numbers = failures.map((x) => x.line).sort((a, b) => a - b);
  throw new BatchError(
    `${failures.length} of ${lines.length} receipts failed (line${numbers.length > 1 ? 's' : ''} ${numbers.slice(0, 20).join(', ')}${numbers.length > 20 ? ', …' : ''})`,
    partialExitCode(failures.map((x) => x.exitCode), lines.length),
    batchHint(failures.filter((x) => x.issuedBefore).length, failures.length),
  );
}

/**
 * What to do about the lines that failed, true of them: a line whose document number is a
 * receipt issued already (`already_submitted`) is not fixed by running the batch again.
 */
function batchHint(issuedBefore: number, failed: number): string {
  const again = 'fix those lines and run the same batch again: what was issued is not issued twice';
  if (issuedBefore === 0) return `each failed line is on stdout with its error; ${again}`;
  const taken = `already_submitted: its document number is a receipt issued before (its serviceReceiptId is on its line), so running the batch again changes nothing for it; give a new receipt its own documentNumber`;
  return issuedBefore === failed ? `each failed line is on stdout with its error, every one ${taken}` : `each failed line is on stdout with its error; a line ${taken}; for the others, ${again}`;
}

type ParsedLine = { line: number; input: ReceiptInput; grant?: string; unknown: string[] } | { line: number; error: LineError };

/** A line as the interface names its members (docs/interface-decisions.md#batch-lines), for telling a typo from a member. */
const BatchLine = z.object({
  template: ReceiptTemplateRequest,
  email: z.string().optional(),
  phone: z.string().optional(),
  iban: z.string().optional(),
  card: z.string().optional(),
  customer: CustomerDetails.optional(),
  store: z.string().optional(),
  grant: z.string().optional(),
});

/** The first lines with unknown members each named, then one line for the rest: a typo in a generated file is on every line. */
const UNKNOWN_WARNINGS = 20;

function warnUnknown(f: Factory, lines: readonly ParsedLine[]): void {
  const typos = lines.flatMap((entry) => ('unknown' in entry && entry.unknown.length > 0 ? [entry] : []));
  for (const entry of typos.slice(0, UNKNOWN_WARNINGS)) note(f.io, unknownWarning(entry.line, entry.unknown));
  const more = typos.length - UNKNOWN_WARNINGS;
  if (more > 0) note(f.io, `warning: ${more} more line${more === 1 ? ' has' : 's have'} members the interface does not name (lines ${typos.slice(UNKNOWN_WARNINGS, UNKNOWN_WARNINGS + 10).map((e) => e.line).join(', ')}${more > 10 ? ', …' : ''})`);
}

function unknownWarning(line: number, paths: readonly string[]): string {
  const one = paths.length === 1;
  return `warning: line ${line} has ${one ? 'a member' : 'members'} the interface does not name, sent as ${one ? 'it is' : 'they are'}: ${paths.join(', ')} (a typo? --strict refuses ${one ? 'it' : 'them'})`;
}

/** One caller (one token) per Grant a line names, and the command's own for lines naming none. */
function callers(f: Factory): (grant: string | undefined) => Promise<Caller> {
  const made = new Map<string, Promise<Caller>>();
  return (grant) => {
    const key = grant ?? '';
    let caller = made.get(key);
    if (caller === undefined) {
      caller = writeReceiptsCaller(f, grant);
      made.set(key, caller);
    }
    return caller;
  };
}

/**
 * Every non-blank line, checked before anything is sent; a bad one is kept as its error. A
 * valid line keeps the paths of its unknown members (for a warning), or with `strict` fails.
 */
export function parseLines(text: string, strict = false, notUtf8: readonly number[] = []): ParsedLine[] {
  const out: ParsedLine[] = [];
  const undecodable = new Set(notUtf8);
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    // Read leniently, its text would carry U+FFFD where the customer's receipt has a letter.
    if (undecodable.has(line)) {
      out.push({ line, error: { code: 'invalid_encoding', message: `line ${line} is not UTF-8 text` } });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      out.push({ line, error: { code: 'invalid_json', message: `line ${line} is not JSON` } });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      out.push({ line, error: { code: 'validation_failed', message: `line ${line} is not a JSON object`, details: [{ path: '(root)', message: 'expected an object' }] } });
      return;
    }
    const problem = jsonInputProblem(value);
    if (problem) {
      out.push({ line, error: { code: 'validation_failed', message: `line ${line}: ${problem.path || '(root)'} ${problem.message}`, details: [{ path: problem.path || '(root)', message: problem.message }] } });
      return;
    }
    try {
      const grant = (value as Record<string, unknown>).grant;
      if (grant !== undefined && (typeof grant !== 'string' || grant.trim() === '')) throw new ValidationError('the line', [{ path: 'grant', message: 'must be a Grant ID, a tax ID or part of a company name' }]);
      const input = inputOf(value as Record<string, unknown>);
      const unknown = unknownMembers(BatchLine, value);
      if (strict && unknown.length > 0) {
        throw new ValidationError(`line ${line}`, unknown.map((path) => ({ path, message: 'not a member the interface names (--strict)' })));
      }
      out.push({ line, input, unknown, ...(grant === undefined ? {} : { grant: grant.trim() }) });
    } catch (error) {
      out.push({ line, error: lineError(error) });
    }
  });
  return out;
}

function inputOf(value: Record<string, unknown>): ReceiptInput {
  const store = value.store;
  if (store !== undefined && (typeof store !== 'string' || store === '')) throw new ValidationError('the line', [{ path: 'store', message: 'must be a non-empty string' }]);
  const template = validate(ReceiptTemplateRequest, store === undefined ? value.template : { ...(value.template as object), storeId: store });
  if (!template.success) throw new ValidationError('the line', template.issues.map((i) => ({ path: i.path ? `template.${i.path}` : 'template', message: i.message })));
  const customer = validate(CustomerDetails, value.customer ?? {});
  if (!customer.success) throw new ValidationError('the line', customer.issues.map((i) => ({ path: i.path ? `customer.${i.path}` : 'customer', message: i.message })));
  const given = IDENTIFIERS.filter((k) => value[k] !== undefined);
  if (given.length !== 1) {
    throw new ValidationError('the line', [{ path: given.length > 1 ? given.join(', ') : 'email', message: `give exactly one of ${IDENTIFIERS.join(', ')}` }]);
  }
  const kind = given[0] as (typeof IDENTIFIERS)[number];
  if (typeof value[kind] !== 'string') throw new ValidationError('the line', [{ path: kind, message: 'must be a string' }]);
  let lookup;
  try {
    lookup = lookupFromFlags({ [kind]: value[kind] as string }, [kind]);
  } catch (error) {
    if (error instanceof ValidationError) throw new ValidationError('the line', error.issues.map((i) => ({ path: kind, message: i.message })));
    throw error;
  }
  return { request: template.data, lookup, customer: customer.data };
}

/** What a failed line says: a code a script can branch on, a message, the fields at fault. Never a secret. */
function lineError(error: unknown): LineError {
  if (error instanceof AlreadySubmittedError) {
    return { code: 'already_submitted', message: error.message, ...(error.serviceReceiptId === undefined ? {} : { serviceReceiptId: error.serviceReceiptId }) };
  }
  const { code, message, details } = errorReport(error);
  return { code: code === 'usage' ? 'invalid_input' : code, message, ...(details ? { details: [...details] } : {}) };
}

function maxLinesOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_LINES;
  const n = Number(value);
  if (Number.isInteger(n) && n >= 1) return n;
  throw new UsageError(`--max-lines ${value} is not a whole number of 1 or more`, { hint: `the default is ${DEFAULT_MAX_LINES.toLocaleString('en-US')}` });
}

function concurrencyOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_CONCURRENCY;
  const n = Number(value);
  if (Number.isInteger(n) && n >= 1 && n <= MAX_CONCURRENCY) return n;
  throw new UsageError(`--concurrency ${value} is not a whole number from 1 to ${MAX_CONCURRENCY}`, { hint: `the default is ${DEFAULT_CONCURRENCY}` });
}

/**
 * done/total, rate and ETA on a terminal's stderr, redrawn at most 10 times a second, under
 * the result lines, cut to the terminal's width; nothing where stderr may not be redrawn
 * (`io.redraw`: not a terminal, one of 0 columns, CI). The cursor is parked at the start
 * of the bar, so a line that reaches the same terminal by another way (`| cat`) is written
 * over the bar instead of after it, and the next redraw comes below it; a result line on
 * the terminal itself clears the bar first.
 */
function createProgress(f: Factory, total: number): { print(line: string): void; warn(text: string): void; tick(): void; done(): void } {
  const print = (line: string) => void f.io.stdout.write(line);
  const warn = (text: string) => note(f.io, text);
  if (!f.io.redraw || total === 0) return { print, warn, tick: () => undefined, done: () => undefined };
  const CLEAR = '\r\x1b[2K';
  const started = Date.now();
  let done = 0;
  let drawn = 0;
  const draw = () => {
    drawn = Date.now();
    const seconds = Math.max(0.001, (drawn - started) / 1000);
    const rate = done / seconds;
    const eta = rate > 0 ? Math.ceil((total - done) / rate) : undefined;
    const width = 24;
    const filled = Math.round((done / total) * width);
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} · ${rate.toFixed(1)}/s · ETA ${eta === undefined ? '?' : `${eta}s`}`;
    f.io.stderr.write(`${CLEAR}${fitWidth(bar, terminalColumns(f.io.stderr) - 1)}\r`);
  };
  draw();
  return {
    print(line) {
      if (!f.io.stdoutIsTTY) return print(line);
      f.io.stderr.write(CLEAR);
      print(line);
      draw();
    },
    warn(text) {
      f.io.stderr.write(CLEAR);
      warn(text);
      draw();
    },
    tick() {
      done++;
      if (Date.now() - drawn >= 100 || done === total) draw();
    },
    done() {
      f.io.stderr.write(CLEAR);
    },
  };
}
