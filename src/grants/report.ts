// What a command over many Grants says of the ones that failed (the partial-result contract,
// src/errors.ts): a stderr line each, or under --json an element `{grantId, companyId, error}`
// among the others; exit 9 when some succeeded. When every Grant failed, the command fails
// with their common error, and under --json each Grant is still an element on stdout, as
// `accept A B` with both refused (one JSON error last on stderr, no line before it).
import type { GrantEntry } from '../auth/grant-select.js';
import { PartialFailureError, errorReport, type ErrorReport } from '../errors.js';
import type { Factory } from '../factory.js';
import { writeJson } from '../io/output.js';
import { printable } from '../io/printable.js';
import { note } from '../io/streams.js';

export interface FailedGrant {
  target: GrantEntry;
  error: unknown;
}

export interface FailureElement {
  grantId: string;
  companyId: string;
  error: ErrorReport;
}

export function failureElements(failed: readonly FailedGrant[]): FailureElement[] {
  return failed.map(({ target, error }) => ({ grantId: target.id, companyId: target.companyId, error: errorReport(error) }));
}

/** One stderr line per failed Grant, naming its company; under --json only when `always` (a watch). */
export function reportFailures(f: Factory, failed: readonly FailedGrant[], opts: { always?: boolean } = {}): void {
  if (f.io.json && !opts.always) return;
  for (const { target, error } of failed) {
    const message = error instanceof Error ? error.message : String(error);
    note(f.io, `error: ${printable(target.company)} (${target.id}): ${printable(message)}`);
  }
}

/** Before any output: when every Grant failed, the command fails as one would. */
export function failIfAllFailed(f: Factory, failed: readonly FailedGrant[], total: number, done: string): void {
  if (failed.length === 0 || failed.length < total) return;
  if (total === 1) throw failed[0]!.error;
  reportFailures(f, failed);
  if (f.io.json) writeJson(f.io, failureElements(failed));
  const first = failed[0]!.error;
  throw new PartialFailureError(`none of the ${total} Grants could be ${done}: ${first instanceof Error ? first.message : String(first)}`, failed.map((x) => x.error), total);
}

/** After the output: some Grants failed, each reported already. */
export function failIfSomeFailed(failed: readonly FailedGrant[], total: number, done: string): void {
  if (failed.length === 0) return;
  throw new PartialFailureError(`${failed.length} of ${total} Grants could not be ${done}`, failed.map((x) => x.error), total);
}
