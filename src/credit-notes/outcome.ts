// What a move did, as a person reads it after it (triage's echo, the queue screen's status
// line): the request's status read back from the service and the credit note the ledger
// holds for it, never the key that was pressed nor what the move meant to do.
import type { Caller } from '../api/caller.js';
import type { CreditNoteTemplateRequest } from '../contract/template.js';
import { formatMoney, toMinor } from '../crypto/money.js';
import type { Factory } from '../factory.js';
import { findQueueItem } from './queue-cache.js';
import { reservationOf } from './submit.js';

export interface Outcome {
  /** As the service (or the copy kept of it) says now; undefined when it cannot be read. */
  status: string | undefined;
  /** The credit note this ledger issued for the request: its number, its total as recorded ("1.28 EUR") and its ID. */
  creditNote: { documentNumber: string; amount: string; serviceReceiptId: string } | undefined;
}

export async function outcomeOf(f: Factory, caller: Caller, requestId: string): Promise<Outcome> {
  const intent = await (await f.ledger()).lastIntent('credit-note', requestId);
  let creditNote: Outcome['creditNote'];
  if (intent?.state === 'done' && intent.result !== undefined) {
    const request = reservationOf(intent).templateRequest as CreditNoteTemplateRequest;
    creditNote = { documentNumber: intent.documentNumber, amount: formatMoney(toMinor(request.totalAmount, request.currency), request.currency), serviceReceiptId: intent.result };
  }
  let status: string | undefined;
  try {
    status = (await findQueueItem(f, caller, requestId)).status;
  } catch {
    status = undefined;
  }
  return { status, creditNote };
}

export interface OutcomeLayout {
  /** For a status line: "27b01e85 COMPLETED · credit note CN-R-1-1 (read back)". */
  short?: boolean;
  /** The move just made issued the credit note (triage's `i`): said first, as what was done. */
  issuedHere?: boolean;
}

/**
 * "27b01e85-… is COMPLETED now, with credit note CN-R-1-1 for 1.28 EUR, credit note ID 6f3… (read
 * back from the service and the ledger)"; for the credit note the move issued, "issued credit
 * note CN-R-1-1 for 1.28 EUR, credit note ID 6f3…; request 27b01e85-… is COMPLETED now (read
 * back from the ledger and the service)". The ID is named as what it is: bare, it is the line
 * `issue` prints for scripts.
 */
export function outcomeText(requestId: string, outcome: Outcome, layout: OutcomeLayout = {}): string {
  const { creditNote } = outcome;
  if (layout.short) {
    const note = creditNote === undefined ? ' · no credit note' : ` · credit note ${creditNote.documentNumber}`;
    return `${requestId.slice(0, 8)} ${outcome.status ?? 'status unknown'}${note} (read back)`;
  }
  const status = outcome.status === undefined ? 'of a status the service did not say' : `${outcome.status} now`;
  if (creditNote === undefined) return `${requestId} is ${status} (read back from the service)`;
  const described = `credit note ${creditNote.documentNumber} for ${creditNote.amount}, credit note ID ${creditNote.serviceReceiptId}`;
  if (layout.issuedHere) return `issued ${described}; request ${requestId} is ${status} (read back from the ledger and the service)`;
  return `${requestId} is ${status}, with ${described} (read back from the service and the ledger)`;
}
