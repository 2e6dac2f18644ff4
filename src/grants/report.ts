// What a command over many Grants says of the ones that failed (the partial-result contract,
// src/errors.ts): a stderr line each, or under --json an element `{grantId, companyId, error}`
// among the others; exit 9 when some succeeded. When every Grant failed, the command fails
// with their common error, and under --json each Grant is still an element on stdout, as
// `accept A B` with both refused (one JSON error last on stderr, no line before it).
import type { GrantEntry } from '../auth/grant-select.js';
import { PartialFailureError, SvcError, errorReport, type ErrorReport } from '../errors.js';
import type { Factory } from '../factory.js';
import { writeJson } from '../io/output.js';
import { printable } from '../io/printable.js';
import { note } from '../io/streams.js';
import { NotRunError } from './fan-out.js';

/** More companies than this failing with one message are said in one line. */
const SAID_ONE_BY_ONE = 3;

export interface FailedGrant {
  target: GrantEntry;
  error: unknown;
}

export interface FailureElement {
  grantId: string;
  companyId: string;
  /** The company's name, as the table and the stderr line name it: an element a person reads in a log says whose it is. */
  company: string;
  error: ErrorReport;
}

export function failureElements(failed: readonly FailedGrant[]): FailureElement[] {
  return failed.map(({ target, error }) => ({ grantId: target.id, companyId: target.companyId, company: target.company, error: errorReport(error) }));
}

/**
 * One stderr line per failed Grant, naming its company, and one for all those a signal kept
 * from running; under --json only when `always` (a watch).
 */
export function reportFailures(f: Factory, failed: readonly FailedGrant[], opts: { always?: boolean; total?: number; hints?: boolean } = {}): void {
  if (f.io.json && !opts.always) return;
  const notRun = failed.filter((x) => x.error instanceof NotRunError);
  // The same failure of many companies (the service unreachable, a proxy refusing) is one
  // line naming a few of them, not a screenful of the same message.
  // With what to do, when every company failing so says the same: as a single command's error would.
  const byMessage = new Map<string, { targets: GrantEntry[]; hints: Set<string | undefined> }>();
  for (const { target, error } of failed) {
    if (error instanceof NotRunError) continue;
    const message = error instanceof Error ? error.message : String(error);
    const group = byMessage.get(message) ?? { targets: [], hints: new Set() };
    group.targets.push(target);
    group.hints.add(error instanceof SvcError ? error.hint : undefined);
    byMessage.set(message, group);
  }
  for (const [message, { targets, hints }] of byMessage) {
    if (targets.length > SAID_ONE_BY_ONE) {
      note(f.io, `error: ${targets.length} companies (${printable(targets.slice(0, 3).map((t) => t.company).join(', '))}, …): ${printable(message)}`);
    } else {
      for (const target of targets) note(f.io, `error: ${printable(target.company)} (${target.id}): ${printable(message)}`);
    }
    const [hint] = hints;
    if (hints.size === 1 && hint !== undefined && opts.hints !== false) note(f.io, `hint: ${printable(hint)}`);
  }
  if (notRun.length > 0) {
    const first = notRun[0]!.error as NotRunError;
    const of = opts.total === undefined ? '' : ` of ${opts.total}`;
    note(f.io, `error: stopped by ${first.signal}: ${notRun.length}${of} Grant${notRun.length === 1 && of === '' ? '' : 's'} not run (${printable(notRun.slice(0, 3).map((x) => x.target.company).join(', '))}${notRun.length > 3 ? ', …' : ''}); run the same command again for them`);
  }
}

/** Before any output: when every Grant failed, the command fails as one would. */
export function failIfAllFailed(f: Factory, failed: readonly FailedGrant[], total: number, done: string): void {
  if (failed.length === 0 || failed.length < total) return;
  if (total === 1) throw failed[0]!.error;
  // The command's own error follows with their common hint: not said twice.
  reportFailures(f, failed, { total, hints: false });
  if (f.io.json) writeJson(f.io, failureElements(failed));
  const first = failed[0]!.error;
  // Every company failed the same way: what to do about it is that failure's hint.
  const hints = new Set(failed.map((x) => (x.error instanceof SvcError ? x.error.hint : undefined)));
  const hint = hints.size === 1 ? [...hints][0] : undefined;
  throw new PartialFailureError(`none of the ${total} Grants could be ${done}: ${first instanceof Error ? first.message : String(first)}`, failed.map((x) => x.error), total, { hint });
}

/** After the output: some Grants failed, each reported already. */
export function failIfSomeFailed(failed: readonly FailedGrant[], total: number, done: string): void {
  if (failed.length === 0) return;
  // Those a signal kept from running were not tried: counted apart from the ones that failed.
  const notRun = failed.filter((x) => x.error instanceof NotRunError).length;
  const tried = failed.length - notRun;
  const what =
    notRun === 0 ? `${tried} of ${total} Grants could not be ${done}`
    : tried === 0 ? `${notRun} of ${total} Grants not run (stopped)`
    : `${tried} of ${total} Grants could not be ${done}, and ${notRun} not run (stopped)`;
  throw new PartialFailureError(what, failed.map((x) => x.error), total);
}

/**
 * For a screen that redraws (the queue screen, a watch): the companies a round could not read,
 * in one line, since lines on stderr are drawn over. Undefined when none failed.
 */
export function unreadLine(failed: readonly FailedGrant[], total: number): string | undefined {
  if (failed.length === 0) return undefined;
  const names = failed.slice(0, 3).map((x) => x.target.company).join(', ') + (failed.length > 3 ? ', …' : '');
  const messages = new Set(failed.map((x) => (x.error instanceof Error ? x.error.message : String(x.error))));
  const why = messages.size === 1 ? ` (${[...messages][0]})` : '';
  return printable(`${failed.length} of ${total} companies could not be polled, their requests not shown: ${names}${why}`);
}
