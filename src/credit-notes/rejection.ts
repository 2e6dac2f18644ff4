// Why the merchant rejected a return request. `PATCH /credit-note/requests/{id}/status` takes
// only `{ status }`, so the service never hears the reason: it is kept in this profile's
// ledger beside the kept queue item (src/contract/records.ts), shown by `show` and by the
// summary of `triage`. Here: what a reason must be.
import { UsageError } from '../errors.js';

export const MAX_REASON_LENGTH = 1000;

/** What is wrong with a reason as typed, or undefined: something to say, on one line, not too long. */
export function reasonProblem(text: string): string | undefined {
  const reason = text.trim();
  if (reason === '') return 'say why, in a few words (it is kept on this machine only)';
  if (/[\r\n]/.test(reason)) return 'keep it to one line';
  if (reason.length > MAX_REASON_LENGTH) return `at most ${MAX_REASON_LENGTH} characters`;
  return undefined;
}

/** The reason trimmed; a UsageError (exit 2) saying what is wrong with it otherwise. */
export function rejectionReason(text: string): string {
  const problem = reasonProblem(text);
  if (problem !== undefined) throw new UsageError(`--reason: ${problem}`);
  return text.trim();
}
