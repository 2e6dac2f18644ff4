// `svc credit-note issue [REQUEST_ID]`: the flags read and checked, the request chosen on a
// terminal when none is given, and the result reported. The issuance itself (the request
// decrypted and checked against the merchant's record of the receipt, the credit note
// computed, shown and confirmed, reserved and submitted under one Idempotency-Key, so that a
// run killed at any point is finished by running it again) is src/credit-notes/issuance.ts.
import { issueCreditNote, type IssueOutcome, type IssueRequest } from '../../credit-notes/issuance.js';
import { pickRequestId } from '../../credit-notes/pick.js';
import { issuedWhere } from '../../credit-notes/credited.js';
import { reservationOf } from '../../credit-notes/submit.js';
import type { CreditNoteTemplateRequest } from '../../contract/template.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note, println } from '../../io/streams.js';
import { checkIdempotencyKey, startedBy } from '../../receipts/submission.js';
import { parseItem } from '../../credit-notes/item-flag.js';
import { partWords } from '../../credit-notes/accepted-part.js';

/** The command's flags: the issuance's request, with the request ID left out (chosen on a terminal) and --item as typed. */
export type IssueOptions = Omit<IssueRequest, 'requestId' | 'items'> & {
  /** Undefined: chosen on a terminal among the open requests. */
  requestId?: string | undefined;
  /** PRODUCT_ID:QTY, repeatable: credit only these (required for a PARTIALLY_ACCEPTED request); none: all of the request. */
  item?: string[] | undefined;
  /** The caller (triage) says the request's status itself, read back after this: not said here too. */
  statusSaid?: boolean | undefined;
};

export async function run(given: IssueOptions, f: Factory): Promise<void> {
  if (given.documentNumber !== undefined && given.documentNumber.trim() === '') {
    throw new UsageError('--document-number must not be empty');
  }
  if (given.idempotencyKey !== undefined) checkIdempotencyKey(given.idempotencyKey);
  const items = (given.item ?? []).map(parseItem);
  const requestId = given.requestId ?? (await pickRequestId(f, { command: 'credit-note issue', usage: '[options] [request-id]', purpose: 'credit', verb: 'issue' }));
  const outcome = await issueCreditNote(f, { ...given, requestId, items });
  if (outcome.kind === 'pending') {
    const { intent } = outcome;
    // Shaped like show's decision when the checks are not run (credit-notes/decision.ts).
    if (f.io.json) {
      writeJson(f.io, {
        dryRun: true,
        requestId: outcome.requestId,
        checks: 'not run',
        reason: `credit note ${intent.documentNumber} is being submitted (${startedBy(intent)})`,
        hint: `run \`svc credit-note issue ${outcome.requestId}${outcome.grantFlag}\` without --dry-run to finish it`,
      });
    }
    note(f.io, `dry run: credit note ${intent.documentNumber} of request ${outcome.requestId} is being submitted (${startedBy(intent)}); run without --dry-run to finish it`);
    return;
  }
  if (outcome.kind === 'dry-run') {
    const { shown } = outcome;
    if (f.io.json) writeJson(f.io, { dryRun: true, requestId: shown.item.requestId, checks: 'passed', creditNote: shown.credit.request, totals: shown.credit.totals, currency: shown.credit.currency });
    note(f.io, `dry run: every check passed; credit note ${shown.credit.request.documentNumber} was not issued, nothing was reserved or sent`);
    return;
  }
  if (outcome.kind === 'credited-elsewhere') return reportCreditedElsewhere(f, outcome);
  report(f, outcome, given.statusSaid === true);
}

/**
 * `issue --complete` of a request an earlier run credited (this one, or a colleague's on the
 * team's ledger): exit 0, since what was asked holds (its credit note exists, once, and the
 * request is completed). stderr says where and when the ledger has it issued; stdout names
 * that credit note, as an issue names its own; --json says this run issued nothing (`issuedHere: false`),
 * and a PENDING request accepted in part here, as it was credited, carries that part (`acceptedPart`).
 */
async function reportCreditedElsewhere(f: Factory, { requestId, creditNote, status, acceptedPart }: Extract<IssueOutcome, { kind: 'credited-elsewhere' }>): Promise<void> {
  const inPart = acceptedPart === undefined ? '' : `; accepted in part for ${partWords(acceptedPart)}, as it was credited`;
  const said = `request ${requestId}: already credited by ${creditNote.documentNumber} (${await issuedWhere(f, creditNote)})${inPart}; ${status === 'COMPLETED' ? 'completed' : `now ${status}`}`;
  if (!f.io.json) {
    note(f.io, said);
    return println(f.io, creditNote.serviceReceiptId ?? '');
  }
  const request = creditNote.templateRequest;
  writeJson(f.io, {
    serviceReceiptId: creditNote.serviceReceiptId,
    requestId,
    documentNumber: creditNote.documentNumber,
    issuedAt: creditNote.issuedAt,
    currency: request.currency,
    totalAmount: request.totalAmount,
    lines: creditNote.lines.map((l) => ({ productId: l.productId, quantity: l.quantity })),
    issuedHere: false,
    ...(acceptedPart === undefined ? {} : { acceptedPart }),
    status,
    message: said,
  });
}

function report(f: Factory, { intent, requestId, issued, status }: Extract<IssueOutcome, { kind: 'issued' }>, statusSaid: boolean): void {
  if (!f.io.json) {
    if (status !== undefined && !statusSaid) note(f.io, `request ${requestId} is ${status}`);
    return println(f.io, issued.result.serviceReceiptId);
  }
  const request = reservationOf(intent).templateRequest as CreditNoteTemplateRequest;
  writeJson(f.io, {
    ...issued.result,
    requestId,
    documentNumber: request.documentNumber,
    currency: request.currency,
    invoiceSubtotal: request.invoiceSubtotal,
    totalBeforeTax: request.totalBeforeTax,
    totalTaxAmount: request.totalTaxAmount,
    totalAmount: request.totalAmount,
    lines: request.products.map((p) => ({ productId: p.identifier, quantity: p.quantity, subtotal: p.subtotal, total: p.total })),
    finalHash: issued.finalHash,
    recipients: issued.recipients,
    ...(status === undefined ? {} : { status }),
  });
}
