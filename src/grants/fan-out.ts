// One command over many companies (`--all-grants`, `--grants FILE|-`): the same work once per
// Grant, a bounded number at a time, every request of the run behind one pacer (a 429's
// Retry-After holds them all, so there is no storm after it), the same retries as a single
// command (the ApiClient's), and each Grant's failure kept to that Grant: reported, never
// stopping the others. The commands merge what comes back (src/grants/report.ts). Ctrl-C or
// SIGTERM starts no further Grant: those under way are finished, and the rest come back as
// failed with a NotRunError, so that the command reports what was done (a second signal
// ends the process at once).
import { grantEntries, selectGrant, type GrantEntry } from '../auth/grant-select.js';
import { readAuthorizations } from '../auth/profile.js';
import { CancelError, UsageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { REQUEST_BYTES } from '../io/bounded-read.js';
import { readBytesInput } from '../io/input.js';
import type { ApiClient } from '../api/client.js';

export interface FanOutFlags {
  allGrants?: boolean | undefined;
  /** A file of selectors, one per line, or - for stdin. */
  grants?: string | undefined;
  /** As typed; default 16. */
  concurrency?: string | undefined;
}

// A Grant costs two round trips cold (token, then the call) and svc ~1.5 ms of CPU: against a
// service 20-60 ms away, 16 at once is ~12x one at a time (8 was ~7x) while the CPU stays far
// from the limit; the service limits each Grant on its own (docs/interface-decisions.md#rate-limits-in-the-sandbox), not the run.
export const DEFAULT_CONCURRENCY = 16;
const MAX_CONCURRENCY = 64;

/** Whether the command runs over several Grants. */
export function fansOut(flags: FanOutFlags): boolean {
  return Boolean(flags.allGrants) || flags.grants !== undefined;
}

/**
 * The Grants a fanned-out command acts for, in the profile's order: all of them, or those
 * the file's selectors name (blank lines and `#` comments skipped, also after a selector
 * and whitespace; each named once).
 */
export async function fanOutTargets(f: Factory, flags: FanOutFlags): Promise<GrantEntry[]> {
  if (flags.allGrants && flags.grants !== undefined) throw new UsageError('--all-grants and --grants exclude each other');
  if (f.globals.grant !== undefined) throw new UsageError('--grant names one company; --all-grants and --grants name several', { hint: 'give one of them' });
  const settings = await f.settings();
  const entries = grantEntries(readAuthorizations(await f.config(), settings.profile.value));
  if (entries.length === 0) throw new UsageError('this profile has no Grants to act for', { hint: 'run `svc auth login`' });
  if (flags.grants === undefined) return entries;
  const text = (await readBytesInput(flags.grants, f, { bytes: REQUEST_BYTES, why: 'a list of Grant selectors, one a line' })).toString('utf8');
  const chosen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    // A `#` at the start or after whitespace starts a comment (`EU000000002  # Sample Foods`).
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') return;
    chosen.add(selectGrant(line, entries, { from: `line ${index + 1} of --grants` }));
  });
  if (chosen.size === 0) throw new UsageError('the --grants file names no Grant', { hint: 'one Grant ID, tax ID or company name per line' });
  return entries.filter((e) => chosen.has(e.id));
}

export function concurrencyOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_CONCURRENCY;
  const n = Number(value.trim());
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) throw new UsageError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}`);
  return n;
}

export interface GrantSuccess<T> {
  target: GrantEntry;
  value: T;
}

export interface GrantFailure {
  target: GrantEntry;
  error: unknown;
}

export interface FanOutResult<T> {
  ok: GrantSuccess<T>[];
  failed: GrantFailure[];
}

export interface FanOutOptions {
  concurrency: number;
  /** For the progress line: "polling". */
  what: string;
  /** Leave SIGINT and SIGTERM to the caller (a --watch, which stops on them itself). */
  signals?: 'caller' | undefined;
}

/** A Grant the run did not start: the process was asked to stop first (exit 3, cancelled). */
export class NotRunError extends CancelError {
  constructor(readonly signal: string) {
    super(`not run: stopped by ${signal}`, { hint: 'run the same command again for the companies not run' });
  }
}

/**
 * Runs `work` once per target with a factory acting for that Grant (as --grant would), at
 * most `concurrency` at once; every request goes through one ApiClient whose waits are
 * shared. Results come back in the targets' order.
 */
export async function fanOut<T>(f: Factory, targets: readonly GrantEntry[], work: (g: Factory, target: GrantEntry) => Promise<T>, opts: FanOutOptions): Promise<FanOutResult<T>> {
  // Real time, not the injected clock: the waits are real.
  const pacer = createPacer(() => performance.now());
  const shared = await f.api();
  const api = shared.paced?.({ sleep: pacer.sleep, beforeAttempt: pacer.gate }) ?? shared;
  const outcomes: ({ value: T } | { error: unknown })[] = new Array(targets.length);
  const progress = startProgress(f, opts.what, targets.length);
  let next = 0;
  let stoppedBy: string | undefined;
  const stop = opts.signals === 'caller' || targets.length < 2 ? undefined : f.stopSignal();
  void stop?.stopped.then((signal) => {
    stoppedBy = signal;
    const underWay = Math.min(next, targets.length) - outcomes.filter((o) => o !== undefined).length;
    if (underWay > 0) f.io.stderr.write(`${f.io.redraw ? '\r\x1b[K' : ''}${signal}: finishing the ${underWay} Grant${underWay === 1 ? '' : 's'} under way, starting no other (again to quit at once)\n`);
  });
  const worker = async () => {
    while (next < targets.length && stoppedBy === undefined) {
      const index = next++;
      const target = targets[index]!;
      try {
        outcomes[index] = { value: await work(forGrant(f, target.id, api), target) };
        progress.done(false);
      } catch (error) {
        outcomes[index] = { error };
        progress.done(true);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, targets.length) }, worker));
  } finally {
    progress.end();
    stop?.dispose();
    if (api !== shared) await api.close();
  }
  const result: FanOutResult<T> = { ok: [], failed: [] };
  targets.forEach((target, index) => {
    const outcome = outcomes[index] ?? { error: new NotRunError(stoppedBy ?? 'a signal') };
    if ('error' in outcome) result.failed.push({ target, error: outcome.error });
    else result.ok.push({ target, value: outcome.value });
  });
  return result;
}

/**
 * The factory as it is with `--grant ID`, over the run's ApiClient: every domain function
 * that takes a factory (tokens, callers, subscriptions) then acts for that Grant.
 */
function forGrant(f: Factory, grantId: string, api: ApiClient): Factory {
  const settings = f.settings().then((s) => ({ ...s, grant: { value: grantId, source: 'flag' as const } }));
  return Object.create(f, {
    globals: { value: { ...f.globals, grant: grantId } },
    inFanOut: { value: true },
    settings: { value: () => settings },
    api: { value: async () => api },
  }) as Factory;
}

interface Pacer {
  /** The ApiClient's wait before a retry: a Retry-After (or a backoff) holds every request of the run. */
  sleep(ms: number): Promise<void>;
  /** Before every attempt: waits while the run is held. */
  gate(): Promise<void>;
}

/**
 * A 429's Retry-After (or a backoff) holds every request of the run until it has passed;
 * after it, attempts are spaced out (doubling with each further wait, easing off with each
 * attempt let through), so the workers do not all come back at once and meet another 429.
 */
export function createPacer(now: () => number): Pacer {
  let heldUntil = 0;
  let spacingMs = 0;
  let nextSlot = 0;
  const waitUntil = async (at: () => number) => {
    for (let left = at() - now(); left > 0; left = at() - now()) await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
  };
  return {
    async sleep(ms) {
      // Answers to requests sent before the run was held are one wave: the spacing doubles once for it.
      if (now() >= heldUntil) spacingMs = Math.min(MAX_SPACING_MS, spacingMs === 0 ? FIRST_SPACING_MS : spacingMs * 2);
      heldUntil = Math.max(heldUntil, now() + ms);
      await waitUntil(() => heldUntil);
    },
    async gate() {
      await waitUntil(() => heldUntil);
      if (spacingMs === 0) return;
      const slot = Math.max(now(), nextSlot, heldUntil);
      nextSlot = slot + spacingMs;
      spacingMs = spacingMs < 1 ? 0 : spacingMs * EASE;
      await waitUntil(() => Math.max(slot, heldUntil));
    },
  };
}

const FIRST_SPACING_MS = 100;
const MAX_SPACING_MS = 2_000;
// Each attempt let through shortens the spacing by a fifth: from the longest, the run is back
// to full speed after ~35 attempts (~10 s), not ~250 (~66 s, at one request every 1–2 s) as
// with 0.97, which kept a run over 1,500 companies crawling long after a short outage ended.
const EASE = 0.8;

interface Progress {
  done(failed: boolean): void;
  end(): void;
}

const PROGRESS_AFTER_MS = 300;
const PROGRESS_EVERY_MS = 100;

/** `what: done/total (N failed)` on a terminal's stderr, redrawn in place; nothing where it may not redraw (`io.redraw`: pipes, CI, a terminal of 0 columns) or with --json. */
function startProgress(f: Factory, what: string, total: number): Progress {
  const io = f.io;
  if (!io.redraw || io.json || total < 2) return { done: () => undefined, end: () => undefined };
  let done = 0;
  let failed = 0;
  let shown = false;
  const draw = () => {
    shown = true;
    io.stderr.write(`\r\x1b[K${what}: ${done}/${total} Grants${failed > 0 ? ` (${failed} failed)` : ''}`);
  };
  const start = setTimeout(() => {
    draw();
    timer = setInterval(draw, PROGRESS_EVERY_MS);
  }, PROGRESS_AFTER_MS);
  let timer: NodeJS.Timeout | undefined;
  return {
    done(isFailure) {
      done += 1;
      if (isFailure) failed += 1;
    },
    end() {
      clearTimeout(start);
      if (timer) clearInterval(timer);
      if (shown) io.stderr.write('\r\x1b[K');
    },
  };
}
