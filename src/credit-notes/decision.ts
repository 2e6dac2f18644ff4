// What `credit-note issue` would do with a request, for `show` and `triage`: the same
// opening and check, with nothing reserved or sent.
import type { Caller } from '../api/caller.js';
import type { QueueItem, ReturnRequest } from '../contract/returns.js';
import { SvcError, ValidationError } from '../errors.js';
import type { Factory } from '../factory.js';
import { oneLine } from '../io/output.js';
import { printable } from '../io/printable.js';
import { note } from '../io/streams.js';
import type { ItemQuantity } from './item-flag.js';
import type { ComputedCreditNote } from './compute.js';
import { ReturnRefusedError } from './check.js';
import { ClosedRequestError, openRequest } from './open-request.js';
import { creditedFor } from './credited.js';
import { creditedOf, prepare, returnWindowDays, type Terms } from './prepare.js';
import { previewText } from './preview.js';
import { askedText, creditText, linesText, requestSummary } from './summary.js';

/** What `issue` would do, as `show --json` has it: shaped like `issue --dry-run --json`, with the checks' outcome (failed: with the way forward `issue`'s refusal names). */
export type DecisionJson =
  | { requestId: string; checks: 'passed'; creditNote: unknown; totals: ComputedCreditNote['totals']; currency: string }
  | { requestId: string; checks: 'failed'; issues: { path: string; message: string }[]; hint?: string }
  | { requestId: string; checks: 'not run'; reason: string; hint?: string };

export interface Decision {
  json: DecisionJson;
  /** For a person: the credit note and its checks, or why `issue` would refuse it. */
  text: string;
  /**
   * With failed checks: the way forward `issue`'s refusal names (src/credit-notes/check.ts,
   * open-request.ts), as said to one who knows the request can no longer be rejected: its
   * commands without the lead that says so.
   */
  ways?: string;
  /** With passed checks: the credit note `issue` would make, its figures those of `issue --dry-run`. */
  credit?: ComputedCreditNote;
}

/**
 * What `issue` would do with a request (or the part of it `items` name), for `show` and
 * `triage`: the credit note it would issue (lines with names, quantities bought and asked
 * for, amounts, total), the return window and what the receipt was already credited — or
 * the checks it would fail. Nothing is reserved or sent. `found`: the request's queue item, when the caller has it.
 */
export async function decisionOf(f: Factory, caller: Caller, requestId: string, items: readonly ItemQuantity[] = [], found?: QueueItem): Promise<Decision> {
  try {
    const opened = await openRequest(f, caller, { requestId, found }, items);
    const terms: Terms = { documentNumber: undefined, now: f.clock.now(), windowDays: returnWindowDays(f) };
    const ledger = await f.ledger();
    const shown = prepare(opened, creditedOf(await ledger.credits(opened.item.serviceReceiptId)), terms);
    const text = previewText(shown.credit, shown.returnRequest, shown.previous, { issueDate: shown.original.request.issueDate, now: terms.now, windowDays: terms.windowDays, askedAt: Date.parse(shown.item.createdAt) }, f.io.stdoutIsTTY ? f.io.columns : undefined);
    const flags = items.map((i) => ` --item ${i.productId}:${i.quantity}`).join('');
    return {
      json: { requestId: opened.item.requestId, checks: 'passed', creditNote: shown.credit.request, totals: shown.credit.totals, currency: shown.credit.currency },
      text: `${text}\nchecks: all passed; \`svc credit-note issue ${requestId}${opened.grantFlag}${flags}\` would issue this (--dry-run shows it without issuing)`,
      credit: shown.credit,
    };
  } catch (error) {
    if (error instanceof ValidationError) {
      const issues = error.issues.map((i) => ({ path: String(i.path), message: i.message }));
      // What issue's refusal offers, without its "nothing was submitted" (nothing is, here).
      // The checks end with it, as `issue`'s refusal does: "the request is ACCEPTED, so …: credit only … with `svc credit-note issue ID --item …`, …".
      const ways = error instanceof ReturnRefusedError ? error.ways : error.hint;
      const hint = error instanceof ReturnRefusedError ? `${error.lead}${error.ways}` : error.hint;
      // A customer's text (a product ID) can be in the path: made visible, never sent to the terminal as is.
      return {
        json: { requestId, checks: 'failed', issues, ...(hint === undefined ? {} : { hint }) },
        text: `checks: \`issue\` would refuse it:\n${issues.map((i) => `  ${printable(i.path)}: ${printable(i.message)}`).join('\n')}${hint === undefined ? '' : `\n${printable(hint)}`}`,
        ...(ways === undefined ? {} : { ways }),
      };
    }
    if (error instanceof SvcError) {
      // A closed request this ledger credited: named by its credit note, not only "nothing to credit".
      const credited = error instanceof ClosedRequestError ? await creditedFor(f, error.item.requestId) : undefined;
      const reason = credited === undefined ? error.message : `${error.message}; credited by credit note ${credited.documentNumber} (${credited.amount})`;
      return {
        json: { requestId, checks: 'not run', reason, ...(error.hint ? { hint: error.hint } : {}) },
        text: `checks: not run: ${printable(reason)}${error.hint ? ` (${printable(error.hint)})` : ''}`,
      };
    }
    throw error;
  }
}

/** decisionOf, for a person, on stderr (triage, beside its prompts). */
export async function describeDecision(f: Factory, caller: Caller, requestId: string, items: readonly ItemQuantity[] = []): Promise<void> {
  note(f.io, (await decisionOf(f, caller, requestId, items)).text);
}

/**
 * A request in the words of a final question, as the move would leave it settled: accepted in
 * part, by the part recorded, credited as `issue` (and its --dry-run) would credit it —
 * "R-2026-0008 (accepted in part: 1 × Milk, 1.28 EUR)" — never the lines the customer asked
 * for and the merchant did not accept. When `issue` would refuse the part, the part by name,
 * about how much (summary.ts); with no part recorded here, what was asked, said as such.
 * Any other request: as asked (requestSummary).
 */
export async function questionSummary(f: Factory, caller: Caller, item: QueueItem, request: ReturnRequest): Promise<string> {
  const ledger = await f.ledger();
  const receipt = await ledger.receipt(item.serviceReceiptId);
  if (item.status !== 'PARTIALLY_ACCEPTED') return requestSummary(request, receipt);
  const document = oneLine(request.receiptId);
  const part = await ledger.acceptedPart(item.requestId);
  if (part === undefined) return `${document} (accepted in part, the part not recorded here; asked: ${askedText(request, receipt)})`;
  const { credit } = await decisionOf(f, caller, item.requestId, [], item);
  return `${document} (accepted in part: ${credit === undefined ? linesText(part.items, receipt) : creditText(credit)})`;
}
