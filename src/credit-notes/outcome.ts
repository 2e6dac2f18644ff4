// What a move did, as a person reads it after it (triage's echo, the queue screen's status
// line): the request's status read back from the service and the credit note the ledger
// holds for it, never the key that was pressed nor what the move meant to do.
import type { Caller } from '../api/caller.js';
import type { Factory } from '../factory.js';
import { findQueueItem } from './queue-cache.js';

export interface Outcome {
  /** As the service (or the copy kept of it) says now; undefined when it cannot be read. */
  status: string | undefined;
  /** The credit note this ledger issued for the request. */
  creditNote: { documentNumber: string; serviceReceiptId: string } | undefined;
}

export async function outcomeOf(f: Factory, caller: Caller, requestId: string): Promise<Outcome> {
  const intent = await (await f.ledger()).lastIntent('credit-note', requestId);
  const creditNote = intent?.state === 'done' && intent.result !== undefined ? { documentNumber: intent.documentNumber, serviceReceiptId: intent.result } : undefined;
  let status: string | undefined;
  try {
    status = (await findQueueItem(f, caller, requestId)).status;
  } catch {
    status = undefined;
  }
  return { status, creditNote };
}

/**
 * "27b01e85-… is COMPLETED now, with credit note CN-R-1-1 (6f3…) (read back from the service
 * and the ledger)"; `short` for a status line: "27b01e85 COMPLETED · credit note CN-R-1-1 (read back)".
 */
export function outcomeText(requestId: string, outcome: Outcome, short = false): string {
  if (short) {
    const note = outcome.creditNote === undefined ? ' · no credit note' : ` · credit note ${outcome.creditNote.documentNumber}`;
    return `${requestId.slice(0, 8)} ${outcome.status ?? 'status unknown'}${note} (read back)`;
  }
  const status = outcome.status === undefined ? 'of a status the service did not say' : `${outcome.status} now`;
  if (outcome.creditNote === undefined) return `${requestId} is ${status} (read back from the service)`;
  return `${requestId} is ${status}, with credit note ${outcome.creditNote.documentNumber} (${outcome.creditNote.serviceReceiptId}) (read back from the service and the ledger)`;
}
