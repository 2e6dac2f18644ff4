// `svc receipt send`: template → resolve → inject the customer → encrypt per device →
// submit. Everything the merchant gives is checked before the first request. The receipt is
// recorded in the ledger with its exact request and Idempotency-Key before anything is sent
// (src/receipts/issue.ts), so a run killed at any point, or whose answer was lost, is
// finished by running it again: the same bytes under the same key, which the service
// answers with the receipt it issued the first time. `--batch` issues many (send-batch.ts).
import { writeReceiptsCaller } from '../../auth/caller.js';
import { rememberFoundBy } from '../../grants/found.js';
import type { RecipientLookup } from '../../api/recipient.js';
import { CustomerDetails, type ReceiptSubmission, type ReceiptSubmissionResult } from '../../contract/receipt.js';
import { parseOrThrow } from '../../contract/validate.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { SMALL_BYTES, type ReadLimit } from '../../io/bounded-read.js';
import { inputName, readJsonInput } from '../../io/input.js';
import { writeJson, writeRecord } from '../../io/output.js';
import { withSpinner } from '../../io/spinner.js';
import { note, println } from '../../io/streams.js';
import { companyNameOf } from '../../auth/caller.js';
import { buildReceipt, issuedBefore, issueReceipt, type IssueUi } from '../../receipts/issue.js';
import { supplierPartyIdOf } from '../../receipts/document.js';
import { checkIdempotencyKey } from '../../receipts/submission.js';
import type { IdentifierFlags } from '../recipient/index.js';
import { lookupFromFlags } from '../recipient/lookup.js';
import { checkMembers, readTemplateRequest } from './template-step.js';
import { counted } from '../../io/plural.js';

export interface SendOptions extends IdentifierFlags {
  /** The template request; with --batch, a JSONL file of lines instead. */
  file?: string | undefined;
  customer?: string | undefined;
  store?: string | undefined;
  dryRun?: boolean | undefined;
  /** Overrides the key derived from the issuer and the document number. */
  idempotencyKey?: string | undefined;
  /** Closes a submission of this receipt left under way, instead of resuming it. */
  abandonPending?: boolean | undefined;
  /** A JSONL file (or -) of receipts to issue. */
  batch?: string | undefined;
  concurrency?: string | undefined;
  maxLines?: string | undefined;
  /** Replaces the file's issueDate: an ISO 8601 time, or `now`. */
  issueDate?: string | undefined;
  /** Refuse members the interface does not name instead of warning. */
  strict?: boolean | undefined;
}

export async function run(opts: SendOptions, f: Factory): Promise<void> {
  if (opts.batch !== undefined) return (await import('./send-batch.js')).runBatch(opts, opts.batch, f);
  if (opts.file === undefined) throw new UsageError('receipt send needs --file (the template request) or --batch FILE.jsonl', { hint: 'see `svc receipt send --help`' });
  if (opts.file === '-' && opts.customer === '-') {
    throw new UsageError('--file and --customer cannot both read standard input', { hint: 'give one of them as a file' });
  }
  if (opts.idempotencyKey !== undefined) checkIdempotencyKey(opts.idempotencyKey);
  const lookup = lookupFromFlags(opts, ['email', 'phone', 'iban', 'card']);
  const request = await readTemplateRequest(f, opts.file, opts.store, opts.issueDate, opts.strict);
  const customer: CustomerDetails = opts.customer === undefined ? {} : await readCustomer(f, opts.customer, opts.strict);

  const caller = await writeReceiptsCaller(f);
  const ui: IssueUi = { step: (label, work) => withSpinner(f.io, label, work), note: (text) => note(f.io, text) };
  if (opts.dryRun) {
    const built = await buildReceipt(caller, { request, lookup, customer }, ui);
    // What a send would meet: a receipt issued before under this number is reported, or refused (exit 7), as a send would.
    const earlier = await issuedBefore(await f.ledger(), caller, { request, lookup, customer }, supplierPartyIdOf(built.template));
    reportDryRun(f, built.submission, built.finalHash, lookup);
    if (earlier !== undefined) note(f.io, `receipt ${request.documentNumber} was already issued as ${earlier.serviceReceiptId} at ${earlier.issuedAt}: a send would report it again and send nothing`);
    return;
  }
  const { record, earlier } = await issueReceipt(f, caller, await f.ledger(), { request, lookup, customer, idempotencyKey: opts.idempotencyKey, abandonPending: opts.abandonPending }, ui);
  await rememberFoundBy(f, caller, 'receipts', [record.serviceReceiptId]);
  report(f, record.submission, { templateHash: record.templateHash, finalHash: record.finalHash, recipients: record.recipients.length });
  // The company it was issued for, read from the Grant used (a platform holds many).
  const company = await companyNameOf(f, caller);
  if (earlier) note(f.io, `receipt ${request.documentNumber} of ${company} was already issued as ${record.serviceReceiptId} at ${record.issuedAt}; nothing was sent again`);
  else note(f.io, `issued to ${counted(record.recipients.length, 'device')} of ${lookup.kind} ${lookup.display} for ${company}; recorded in the ledger`);
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

/** Customer details are a name, an address and a few contacts. */
const CUSTOMER_LIMIT: ReadLimit = { bytes: SMALL_BYTES, why: 'customer details are a name, an address and contacts' };

/** The --customer file, checked like the receipt's: invalid is exit 2; unknown members a warning, or with --strict exit 2. */
async function readCustomer(f: Factory, file: string, strict: boolean | undefined): Promise<CustomerDetails> {
  const value = await readJsonInput(file, f, CUSTOMER_LIMIT);
  const customer = parseOrThrow(CustomerDetails, value, inputName(file));
  checkMembers(f, CustomerDetails, value, inputName(file), strict);
  return customer;
}
