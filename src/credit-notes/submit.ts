// The issuance sequence of a credit note under its ledger intent: built (template → the
// receipt's current devices → the customer injected → encrypted per device), kept with its
// Idempotency-Key, sent, and recorded with the intent closed.
import type { Caller } from '../api/caller.js';
import { companyNameOf } from '../auth/caller.js';
import { createCreditNoteTemplate, submitEncryptedCreditNote } from '../api/credit-note.js';
import { resolveRecipient } from '../api/recipient.js';
import type { CreditNoteSubmission, CreditNoteSubmissionResult, EncryptedCreditNoteEntry } from '../contract/credit-note.js';
import type { EncryptedReceiptEntry } from '../contract/receipt.js';
import type { Recipient } from '../contract/recipient.js';
import { CreditNoteTemplateRequest } from '../contract/template.js';
import { parseOrThrow } from '../contract/validate.js';
import { keyFingerprint } from '../crypto/keys.js';
import { NotFoundError } from '../errors.js';
import type { Factory } from '../factory.js';
import { counted } from '../io/plural.js';
import { withSpinner } from '../io/spinner.js';
import { note } from '../io/streams.js';
import { supplierPartyIdOf } from '../receipts/document.js';
import { encryptForRecipients } from '../receipts/encrypt.js';
import { finalDocument } from '../receipts/final-document.js';
import { derivedIdempotencyKey, sendPrepared } from '../receipts/submission.js';
import { NotRecordedError } from '../store/errors.js';
import type { Credited, Intent, LedgerStore } from '../store/ledger.js';
import { hashedTemplate } from '../receipts/template.js';
import { originalReceipt } from './open-request.js';
import { grantFlagOf } from '../grants/company.js';
import type { CreditNoteRecord } from '../contract/records.js';
import { recorder } from './recorder.js';

/** The only algorithm docs/interface-decisions.md#hybrid-encryption defines a wrap for. */
const SUPPORTED_ALGORITHM = 'RSA_2048';

export interface Issued {
  result: CreditNoteSubmissionResult;
  finalHash: string;
  recipients: number;
}

/** What the record needs besides the reservation and the service's answer; kept with the prepared request. */
interface Built {
  templateHash: string;
  finalHash: string;
  matchId: string;
  recipients: CreditNoteRecord['recipients'];
}

/**
 * The issuance sequence under the intent: the request is built (template → devices →
 * encryption) and kept with its key unless an earlier run kept one; then it is sent and the
 * credit note recorded with the intent closed. Every step before the record can be killed
 * and run again.
 */
export async function submit(f: Factory, caller: Caller, ledger: LedgerStore, intent: Intent, originalFile: string | undefined): Promise<Issued> {
  const reservation = reservationOf(intent);
  if (intent.body === undefined) {
    const built = await build(f, caller, intent, reservation, originalFile);
    intent = await ledger.prepare(intent.id, built);
  }
  const built = intent.context as Built;
  const what = `credit note ${intent.documentNumber}`;
  const result = await sendPrepared(ledger, intent, what, (body, key) =>
    withSpinner(f.io, `submitting for ${counted(built.recipients.length, 'device')}`, () => submitEncryptedCreditNote(caller, body as CreditNoteSubmission, key)),
  );
  if (result.templateHash !== built.templateHash) {
    note(f.io, `warning: the service reports templateHash ${result.templateHash}, this svc computed ${built.templateHash}`);
  }
  const record: CreditNoteRecord = {
    serviceReceiptId: result.serviceReceiptId,
    requestId: reservation.requestId,
    documentNumber: reservation.documentNumber,
    issuedAt: new Date(f.clock.now()).toISOString(),
    issuedBy: recorder(),
    lines: reservation.lines,
    templateRequest: reservation.templateRequest,
    templateHash: built.templateHash,
    finalHash: built.finalHash,
    matchId: built.matchId,
    recipients: built.recipients,
    submission: result,
  };
  try {
    await ledger.complete(intent.id, { kind: 'credit-note', record });
  } catch (error) {
    throw new NotRecordedError(`${what} was issued as ${result.serviceReceiptId}, but it could not be recorded: ${error instanceof Error ? error.message : error}`, {
      hint: `run the same command again once the ledger can be written: it records the credit note without issuing it again`,
      cause: error,
    });
  }
  // The company it was issued for, as `receipt send` names it: a document number recurs across a platform's companies.
  note(f.io, `${what} issued to ${counted(built.recipients.length, 'device')} for ${await companyNameOf(f, caller)}; recorded in the ledger`);
  return { result, finalHash: built.finalHash, recipients: built.recipients.length };
}

export function reservationOf(intent: Intent): Credited {
  if (intent.reservation === undefined || intent.parent === undefined) throw new Error(`credit-note intent ${intent.id} has no reservation`);
  return intent.reservation;
}

/** Template → the receipt's current devices → final document → encrypted per device, with the key it goes under. */
async function build(
  f: Factory,
  caller: Caller,
  intent: Intent,
  reservation: Credited,
  originalFile: string | undefined,
): Promise<{ idempotencyKey: string; body: string; context: Built }> {
  const parent = intent.parent as string;
  const request = parseOrThrow(CreditNoteTemplateRequest, reservation.templateRequest, `the reservation of credit note ${intent.documentNumber}`);
  const { document: template, templateHash, canonical } = await hashedTemplate(f, 'creating the credit note template', () =>
    createCreditNoteTemplate(caller, request),
  );
  const match = await withSpinner(f.io, `resolving the devices of receipt ${parent}`, () =>
    resolveRecipient(caller, { request: { serviceReceiptId: parent }, kind: 'receipt', display: parent }),
  );
  const recipients = encryptable(f, match.recipients);
  const { record: original } = await originalReceipt(f, originalFile, parent, reservation.requestId, await grantFlagOf(f, caller));
  const customer = original.customer;
  const finalDoc = finalDocument(canonical, customer);
  const submission: CreditNoteSubmission = {
    matchId: match.matchId,
    parentServiceReceiptId: parent,
    encryptedCreditNotes: encryptForRecipients(finalDoc, customer, recipients, supplierPartyIdOf(template)).map(asCreditNoteEntry),
    templateHash,
  };
  const context: Built = {
    templateHash,
    finalHash: finalDoc.finalHash,
    matchId: match.matchId,
    recipients: recipients.map((r) => ({ recipientId: r.recipientId, receiverType: r.receiverType, keyId: keyFingerprint(r.publicKey) })),
  };
  const idempotencyKey = intent.idempotencyKey ?? derivedIdempotencyKey(supplierPartyIdOf(template), 'credit-note', intent.documentNumber);
  return { idempotencyKey, body: JSON.stringify(submission), context };
}

/** Recipients whose key this svc can wrap for; the others are named on stderr and left out. */
function encryptable(f: Factory, recipients: readonly Recipient[]): Recipient[] {
  const usable = recipients.filter((r) => r.keyAlgorithm === SUPPORTED_ALGORITHM);
  for (const r of recipients) {
    if (r.keyAlgorithm !== SUPPORTED_ALGORITHM) note(f.io, `warning: skipping recipient ${r.recipientId}: key algorithm ${r.keyAlgorithm} is not supported`);
  }
  if (usable.length > 0) return usable;
  throw new NotFoundError('the customer has no device that can receive an encrypted credit note', {
    hint: 'nothing was submitted; refund the customer by other means and reject or complete the request',
  });
}

/** docs/interface-decisions.md#receipt-template-and-submission: the receipt entry and the credit note entry differ only in the document's field. */
function asCreditNoteEntry({ encryptedReceipt, ...entry }: EncryptedReceiptEntry): EncryptedCreditNoteEntry {
  return { ...entry, encryptedCreditNote: encryptedReceipt };
}
