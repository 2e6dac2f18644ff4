// The credit note this machine's ledger issued for a request: what a final question and `show`
// name beside a request that is credited ("credited by credit note CN-… (1.28 EUR)").
import type { CreditNoteTemplateRequest } from '../contract/template.js';
import { formatMoney, toMinor } from '../crypto/money.js';
import type { Factory } from '../factory.js';
import { shownTime } from '../io/time.js';
import type { Credited } from '../store/ledger.js';
import type { CreditNoteIssued } from './moves.js';
import { reservationOf } from './submit.js';

/** Its document number and total, or undefined when the ledger issued none (or one is still being submitted). */
export async function creditedFor(f: Factory, requestId: string): Promise<CreditNoteIssued> {
  const intent = await (await f.ledger()).lastIntent('credit-note', requestId);
  if (intent?.state !== 'done') return undefined;
  const request = reservationOf(intent).templateRequest as CreditNoteTemplateRequest;
  return { documentNumber: intent.documentNumber, amount: formatMoney(toMinor(request.totalAmount, request.currency), request.currency) };
}

/**
 * Where and when a credit note the ledger holds was issued, as a person reads it beside its
 * document number: "issued here on DATE" when this machine's ledger issued it (its
 * submission is there, done); on a team's database, which every colleague's machine shares,
 * "issued on DATE, recorded in the team's database"; a record without its submission was
 * imported (`svc db import`, an older svc's files): "issued on DATE, imported into …".
 */
export async function issuedWhere(f: Factory, credited: Pick<Credited, 'requestId' | 'serviceReceiptId' | 'issuedAt'>): Promise<string> {
  const { databaseUrlOf } = await import('../config/profile-dir.js');
  const team = (await databaseUrlOf(f)) !== undefined;
  const intent = await (await f.ledger()).lastIntent('credit-note', credited.requestId);
  const issuedHere = intent?.state === 'done' && intent.result === credited.serviceReceiptId;
  const on = credited.issuedAt === undefined ? '' : ` on ${shownTime(f.io, f.env, credited.issuedAt)}`;
  if (issuedHere) return team ? `issued${on}, recorded in the team's database` : `issued here${on}`;
  return `issued${on}, imported into ${team ? "the team's database" : 'this ledger'}`;
}
