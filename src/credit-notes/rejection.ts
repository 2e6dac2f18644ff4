// Why the merchant rejected a return request. `PATCH /credit-note/requests/{id}/status` takes
// only `{ status }`, so the service never hears the reason: it is kept in the profile's ledger
// beside the kept queue item (src/contract/records.ts), shown by `show` and by the summary of
// `triage`. The ledger is this machine's, or the team's database when one is set
// (src/store/open.ts): what a person is told says which. A request is rejected once: the
// first rejection kept stands (src/store/ledger.ts keepRejection). Here: what a reason must
// be, where it is kept, and how a kept rejection reads.
import { databaseUrlOf } from '../config/profile-dir.js';
import type { Rejection } from '../contract/records.js';
import { UsageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { printable } from '../io/printable.js';
import { localTime } from '../io/time.js';

export const MAX_REASON_LENGTH = 1000;

/** What is wrong with a reason as typed, or undefined: something to say, on one line, not too long. */
export function reasonProblem(text: string): string | undefined {
  const reason = text.trim();
  if (reason === '') return 'say why, in a few words';
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

/** Where the ledger of this profile keeps a reason, as the ledger is chosen: "on this machine only" or "in the team's database". */
export async function reasonsKeptWhere(f: Factory): Promise<string> {
  return (await databaseUrlOf(f)) === undefined ? 'on this machine only' : "in the team's database";
}

/** `rejected 2026-03-14 16:42 UTC by ann@desk-2`: when, and who when that was recorded. */
export function rejectedWhen(rejection: Rejection, timeZone: string | undefined): string {
  return `rejected ${localTime(rejection.rejectedAt, timeZone)}${rejection.rejectedBy ? ` by ${printable(rejection.rejectedBy)}` : ''}`;
}
