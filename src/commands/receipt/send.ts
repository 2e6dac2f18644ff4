// `svc receipt send`: template → resolve → inject the customer → encrypt per device →
// submit. Everything the merchant gives is checked before the first request. The receipt is
// an intent of the ledger before anything is sent (src/store/ledger.ts), and the exact
// request and its Idempotency-Key are kept before they go out, so a run killed at any point,
// or whose answer was lost, is finished by running it again: the same bytes under the same
// key, which the service answers with the receipt it issued the first time.
import { writeReceiptsCaller, type Caller } from '../../api/caller.js';
import { submitEncryptedReceipt } from '../../api/receipt.js';
import { resolveRecipient, type RecipientLookup } from '../../api/recipient.js';
import { CustomerDetails, type ReceiptSubmission, type ReceiptSubmissionResult } from '../../contract/receipt.js';
import type { Recipient } from '../../contract/recipient.js';
import type { ReceiptTemplateRequest } from '../../contract/template.js';
import { parseOrThrow } from '../../contract/validate.js';
import { keyFingerprint } from '../../crypto/keys.js';
import { NotFoundError, SvcError, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { inputName, readJsonInput } from '../../io/input.js';
import { writeJson, writeRecord } from '../../io/output.js';
import { withSpinner } from '../../io/spinner.js';
import { note, println } from '../../io/streams.js';
import { supplierPartyIdOf } from '../../receipts/document.js';
import { encryptForRecipients } from '../../receipts/encrypt.js';
import { finalDocument } from '../../receipts/final-document.js';
import type { ReceiptRecord } from '../../receipts/records.js';
import { AlreadySubmittedError, checkIdempotencyKey, contentDigest, derivedIdempotencyKey, sendPrepared, startedBy } from '../../receipts/submission.js';
import type { Intent, LedgerStore } from '../../store/ledger.js';
import type { IdentifierFlags } from '../recipient/index.js';
import { lookupFromFlags } from '../recipient/lookup.js';
import { fetchTemplate, readTemplateRequest } from './template-step.js';

export interface SendOptions extends IdentifierFlags {
  file: string;
  customer?: string | undefined;
  store?: string | undefined;
  dryRun?: boolean | undefined;
  /** Overrides the key derived from the issuer and the document number. */
  idempotencyKey?: string | undefined;
  /** Closes a submission of this receipt left under way, instead of resuming it. */
  abandonPending?: boolean | undefined;
}

/** What the record needs besides the merchant's input and the service's answer; kept with the prepared request. */
interface Prepared {
  template: ReceiptRecord['template'];
  templateHash: string;
  finalHash: string;
  matchId: string;
  recipients: ReceiptRecord['recipients'];
}

/** The only algorithm CONTRACT.md §2 defines a wrap for. */
const SUPPORTED_ALGORITHM = 'RSA_2048';

export async function run(opts: SendOptions, f: Factory): Promise<void> {
  if (opts.file === '-' && opts.customer === '-') {
    throw new UsageError('--file and --customer cannot both read standard input', { hint: 'give one of them as a file' });
  }
  if (opts.idempotencyKey !== undefined) checkIdempotencyKey(opts.idempotencyKey);
  const lookup = lookupFromFlags(opts, ['email', 'phone', 'iban', 'card']);
  const request = await readTemplateRequest(f, opts.file, opts.store);
  const customer: CustomerDetails =
    opts.customer === undefined ? {} : parseOrThrow(CustomerDetails, await readJsonInput(opts.customer, f), inputName(opts.customer));

  const caller = await writeReceiptsCaller(f);
  if (opts.dryRun) {
    const built = await build(f, caller, request, lookup, customer);
    return reportDryRun(f, built.submission, built.finalHash, lookup);
  }

  const ledger = await f.ledger();
  const documentNumber = request.documentNumber;
  const what = `receipt ${documentNumber}`;
  const digest = contentDigest({ request, lookup: lookup.request, customer });
  const last = await ledger.lastIntent('receipt', documentNumber);
  if (last?.state === 'done') return alreadyIssued(f, ledger, last, digest, what);
  if (opts.abandonPending) await abandonOpen(f, ledger, documentNumber, what);

  // A receipt reserves nothing, so its intent is recorded once the request is built, with
  // the request: a run killed before that sent nothing. One left open by an earlier run
  // (or by another process sending the same receipt) is finished instead.
  let intent = await ledger.openIntent('receipt', documentNumber);
  if (!intent) {
    const built = await build(f, caller, request, lookup, customer);
    const context: Prepared = {
      template: built.template,
      templateHash: built.templateHash,
      finalHash: built.finalHash,
      matchId: built.submission.matchId,
      recipients: built.recipients.map((r) => ({ recipientId: r.recipientId, receiverType: r.receiverType, keyId: keyFingerprint(r.publicKey) })),
    };
    const idempotencyKey = opts.idempotencyKey ?? derivedIdempotencyKey(supplierPartyIdOf(built.template), 'receipt', documentNumber);
    const reserved = await ledger.reserveReceipt({
      kind: 'receipt',
      subject: documentNumber,
      documentNumber,
      digest,
      prepared: { idempotencyKey, body: JSON.stringify(built.submission), context },
    });
    intent = reserved.intent;
    if (!reserved.created) resuming(f, intent, digest, what, 'another svc process started');
  } else resuming(f, intent, digest, what, 'resuming');
  const prepared = intent.context as Prepared;
  const count = prepared.recipients.length;
  const result = await sendPrepared(ledger, intent, what, (body, key) =>
    withSpinner(f.io, `submitting for ${count} device(s)`, () => submitEncryptedReceipt(caller, body as ReceiptSubmission, key)),
  );
  if (result.templateHash !== prepared.templateHash) {
    note(f.io, `warning: the service reports templateHash ${result.templateHash}, this svc computed ${prepared.templateHash}`);
  }
  const record: ReceiptRecord = {
    version: 1,
    serviceReceiptId: result.serviceReceiptId,
    issuedAt: new Date(f.clock.now()).toISOString(),
    templateRequest: request,
    template: prepared.template,
    templateHash: prepared.templateHash,
    finalHash: prepared.finalHash,
    matchId: prepared.matchId,
    lookup: { by: lookup.kind, display: lookup.display },
    recipients: prepared.recipients,
    customer,
    submission: result,
  };
  await complete(ledger, intent, record);
  report(f, result, { templateHash: prepared.templateHash, finalHash: prepared.finalHash, recipients: count });
  note(f.io, `issued to ${count} device(s) of ${lookup.kind} ${lookup.display}; recorded in the ledger`);
}

interface Built {
  template: ReceiptRecord['template'];
  templateHash: string;
  finalHash: string;
  recipients: Recipient[];
  submission: ReceiptSubmission;
}

/** Template → resolve → final document → encrypted for each device. */
async function build(f: Factory, caller: Caller, request: ReceiptTemplateRequest, lookup: RecipientLookup, customer: CustomerDetails): Promise<Built> {
  const { document: template, templateHash, canonical } = await fetchTemplate(f, caller, request);
  const match = await withSpinner(f.io, `resolving ${lookup.kind} ${lookup.display}`, () => resolveRecipient(caller, lookup));
  const recipients = encryptable(f, match.recipients, lookup);
  const finalDoc = finalDocument(canonical, customer);
  const submission: ReceiptSubmission = {
    matchId: match.matchId,
    templateHash,
    encryptedReceipts: encryptForRecipients(finalDoc, customer, recipients, supplierPartyIdOf(template)),
  };
  return { template, templateHash, finalHash: finalDoc.finalHash, recipients, submission };
}

/** An open intent of the same receipt is finished; one of another receipt under the same number is refused. */
function resuming(f: Factory, intent: Intent, digest: string, what: string, who: string): void {
  if (intent.digest !== digest) {
    throw new AlreadySubmittedError(`${what} has a submission under way ${startedBy(intent)} with other content than this one`, {
      hint: 'finish it by running the command that started it again, or close it with --abandon-pending',
    });
  }
  note(f.io, `${who} the submission of ${what} ${startedBy(intent)}: sending the same request under the same Idempotency-Key`);
}

/** The record goes in with the intent closed; should that fail, the receipt is issued and a re-run records it. */
async function complete(ledger: LedgerStore, intent: Intent, record: ReceiptRecord): Promise<void> {
  try {
    await ledger.complete(intent.id, { kind: 'receipt', record });
  } catch (error) {
    throw new SvcError(`receipt ${record.templateRequest.documentNumber} was issued as ${record.serviceReceiptId}, but it could not be recorded: ${error instanceof Error ? error.message : error}`, {
      hint: 'run the same command again once the ledger can be written: it records the receipt without issuing it again',
      cause: error,
    });
  }
}

/** A re-run of a finished command: the same receipt is reported again, another one under its number refused. */
async function alreadyIssued(f: Factory, ledger: LedgerStore, last: Intent, digest: string, what: string): Promise<void> {
  if (last.digest !== digest || last.result === undefined) {
    throw new AlreadySubmittedError(`${what} was already issued as ${last.result ?? 'a receipt'} with other content`, {
      hint: 'give the new receipt its own documentNumber; nothing was submitted',
    });
  }
  const record = await ledger.receipt(last.result);
  if (!record) throw new AlreadySubmittedError(`${what} was already issued as ${last.result}`, { hint: 'nothing was submitted' });
  report(f, record.submission, { templateHash: record.templateHash, finalHash: record.finalHash, recipients: record.recipients.length });
  note(f.io, `${what} was already issued as ${last.result} at ${record.issuedAt}; nothing was sent again`);
}

async function abandonOpen(f: Factory, ledger: LedgerStore, documentNumber: string, what: string): Promise<void> {
  const open = await ledger.openIntent('receipt', documentNumber);
  if (!open) return;
  await ledger.abandon(open.id);
  note(f.io, `abandoned the submission of ${what} started ${startedBy(open)}`);
}

/** Recipients whose key this svc can wrap for; the others are named on stderr and left out. */
function encryptable(f: Factory, recipients: readonly Recipient[], lookup: RecipientLookup): Recipient[] {
  const usable = recipients.filter((r) => r.keyAlgorithm === SUPPORTED_ALGORITHM);
  for (const r of recipients) {
    if (r.keyAlgorithm !== SUPPORTED_ALGORITHM) note(f.io, `warning: skipping recipient ${r.recipientId}: key algorithm ${r.keyAlgorithm} is not supported`);
  }
  if (usable.length > 0) return usable;
  throw new NotFoundError(`no device of that ${lookup.kind} can receive an encrypted receipt`, {
    hint: 'send it by email instead with `svc receipt email --file … --to …`',
  });
}

function report(f: Factory, result: ReceiptSubmissionResult, extra: { templateHash: string; finalHash: string; recipients: number }): void {
  if (f.io.json) writeJson(f.io, { ...result, ...extra });
  else println(f.io, result.serviceReceiptId);
}

// Counts and hashes only: the ciphertexts are of no use to a person, and --json has them.
function reportDryRun(f: Factory, submission: ReceiptSubmission, finalHash: string, lookup: RecipientLookup): void {
  const { matchId, templateHash, encryptedReceipts } = submission;
  writeRecord(
    f.io,
    [
      ['customer', `${lookup.kind} ${lookup.display}`],
      ['matchId', matchId],
      ['recipients', String(encryptedReceipts.length)],
      ['supplierPartyId', encryptedReceipts[0]?.supplierPartyId ?? '-'],
      ['templateHash', templateHash],
      ['finalHash', finalHash],
      ['request size', `${Buffer.byteLength(JSON.stringify(submission))} bytes`],
    ],
    { dryRun: true, templateHash, finalHash, recipients: encryptedReceipts.length, request: submission },
  );
  note(f.io, 'dry run: nothing was submitted');
}
