// The credit note this machine's ledger issued for a request: what a final question and `show`
// name beside a request that is credited ("credited by credit note CN-… (1.28 EUR)").
import type { CreditNoteTemplateRequest } from '../contract/template.js';
import { formatMoney, toMinor } from '../crypto/money.js';
import type { Factory } from '../factory.js';
import type { CreditNoteIssued } from './moves.js';
import { reservationOf } from './submit.js';

/** Its document number and total, or undefined when the ledger issued none (or one is still being submitted). */
export async function creditedFor(f: Factory, requestId: string): Promise<CreditNoteIssued> {
  const intent = await (await f.ledger()).lastIntent('credit-note', requestId);
  if (intent?.state !== 'done') return undefined;
  const request = reservationOf(intent).templateRequest as CreditNoteTemplateRequest;
  return { documentNumber: intent.documentNumber, amount: formatMoney(toMinor(request.totalAmount, request.currency), request.currency) };
}
