// `svc receipt send`: template → resolve → inject the customer → encrypt per device →
// submit. Everything the merchant gives is checked before the first request, and the
// submission carries one Idempotency-Key for all of the client's retries, so a lost
// response can never issue the receipt twice.
import { randomUUID } from 'node:crypto';
import { writeReceiptsCaller } from '../../api/caller.js';
import { submitEncryptedReceipt } from '../../api/receipt.js';
import { resolveRecipient, type RecipientLookup } from '../../api/recipient.js';
import { CustomerDetails, type ReceiptSubmission, type ReceiptSubmissionResult } from '../../contract/receipt.js';
import type { Recipient } from '../../contract/recipient.js';
import { parseOrThrow } from '../../contract/validate.js';
import { keyFingerprint } from '../../crypto/keys.js';
import { NotFoundError, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { inputName, readJsonInput } from '../../io/input.js';
import { writeJson, writeRecord } from '../../io/output.js';
import { withSpinner } from '../../io/spinner.js';
import { note, println } from '../../io/streams.js';
import { supplierPartyIdOf } from '../../receipts/document.js';
import { encryptForRecipients } from '../../receipts/encrypt.js';
import { finalDocument } from '../../receipts/final-document.js';
import { saveReceiptRecord } from '../../receipts/records.js';
import type { IdentifierFlags } from '../recipient/index.js';
import { lookupFromFlags } from '../recipient/lookup.js';
import { fetchTemplate, readTemplateRequest } from './template-step.js';

export interface SendOptions extends IdentifierFlags {
  file: string;
  customer?: string | undefined;
  store?: string | undefined;
  dryRun?: boolean | undefined;
}

/** The only algorithm CONTRACT.md §2 defines a wrap for. */
const SUPPORTED_ALGORITHM = 'RSA_2048';

export async function run(opts: SendOptions, f: Factory): Promise<void> {
  if (opts.file === '-' && opts.customer === '-') {
    throw new UsageError('--file and --customer cannot both read standard input', { hint: 'give one of them as a file' });
  }
  const lookup = lookupFromFlags(opts, ['email', 'phone', 'iban', 'card']);
  const request = await readTemplateRequest(f, opts.file, opts.store);
  const customer: CustomerDetails =
    opts.customer === undefined ? {} : parseOrThrow(CustomerDetails, await readJsonInput(opts.customer, f), inputName(opts.customer));

  const caller = await writeReceiptsCaller(f);
  const { document: template, templateHash, canonical } = await fetchTemplate(f, caller, request);
  const match = await withSpinner(f.io, `resolving ${lookup.kind} ${lookup.display}`, () => resolveRecipient(caller, lookup));
  const recipients = encryptable(f, match.recipients, lookup);

  const finalDoc = finalDocument(canonical, customer);
  const { finalHash } = finalDoc;
  const submission: ReceiptSubmission = {
    matchId: match.matchId,
    templateHash,
    encryptedReceipts: encryptForRecipients(finalDoc, customer, recipients, supplierPartyIdOf(template)),
  };
  if (opts.dryRun) return reportDryRun(f, submission, finalHash, lookup);

  const result = await withSpinner(f.io, `submitting for ${recipients.length} device(s)`, () =>
    submitEncryptedReceipt(caller, submission, randomUUID()),
  );
  if (result.templateHash !== templateHash) {
    note(f.io, `warning: the service reports templateHash ${result.templateHash}, this svc computed ${templateHash}`);
  }
  const path = await saveReceiptRecord(f, {
    version: 1,
    serviceReceiptId: result.serviceReceiptId,
    issuedAt: new Date(f.clock.now()).toISOString(),
    templateRequest: request,
    template,
    templateHash,
    finalHash,
    matchId: match.matchId,
    lookup: { by: lookup.kind, display: lookup.display },
    recipients: recipients.map((r) => ({ recipientId: r.recipientId, receiverType: r.receiverType, keyId: keyFingerprint(r.publicKey) })),
    customer,
    submission: result,
  });
  report(f, result, { templateHash, finalHash, recipients: recipients.length });
  note(f.io, `issued to ${recipients.length} device(s) of ${lookup.kind} ${lookup.display}; record saved in ${path}`);
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
