// Issuing one receipt under an intent of the ledger, shared by `receipt send` and
// `receipt send --batch`: template → resolve → inject the customer → encrypt per device,
// recorded with its exact bytes and Idempotency-Key before it is sent, then sent and
// recorded. A receipt is identified by its company and document number (docs/interface-decisions.md#idempotency-keys): the
// same number and content again is the same receipt (an open intent is finished, a done one
// reported), the same number with other content is refused; another company's receipt under
// that number (a platform's, `--grant`) is another receipt.
import type { Caller } from '../api/caller.js';
import { createReceiptTemplate, submitEncryptedReceipt } from '../api/receipt.js';
import { resolveRecipient, type RecipientLookup } from '../api/recipient.js';
import type { CustomerDetails, ReceiptSubmission } from '../contract/receipt.js';
import type { Recipient } from '../contract/recipient.js';
import type { ReceiptTemplateRequest } from '../contract/template.js';
import { keyFingerprint } from '../crypto/keys.js';
import { NotFoundError } from '../errors.js';
import type { Factory } from '../factory.js';
import { NotRecordedError } from '../store/errors.js';
import type { Intent, LedgerStore } from '../store/ledger.js';
import { supplierPartyIdOf } from './document.js';
import { encryptForRecipients } from './encrypt.js';
import { canonicalTemplate } from './final-document.js';
import { finalDocument } from './final-document.js';
import type { ReceiptRecord } from '../contract/records.js';
import { AlreadySubmittedError, contentDigest, derivedIdempotencyKey, sendPrepared, startedBy } from './submission.js';
import { counted } from '../io/plural.js';

/** How a step shows itself: a spinner and notes for one receipt, nothing per receipt in a batch. */
export interface IssueUi {
  step<T>(label: string, work: () => Promise<T>): Promise<T>;
  note(text: string): void;
}

export interface ReceiptInput {
  request: ReceiptTemplateRequest;
  lookup: RecipientLookup;
  customer: CustomerDetails;
  /** Overrides the key derived from the issuer and the document number. */
  idempotencyKey?: string | undefined;
  /** Closes a submission of this receipt left under way instead of resuming it. */
  abandonPending?: boolean | undefined;
}

export interface Issued {
  record: ReceiptRecord;
  /** The receipt was issued by an earlier run: reported again, nothing sent. */
  earlier: boolean;
}

/** What the record needs besides the merchant's input and the service's answer; kept with the prepared request. */
interface Prepared {
  template: ReceiptRecord['template'];
  templateHash: string;
  finalHash: string;
  matchId: string;
  recipients: ReceiptRecord['recipients'];
}

export interface Built {
  template: ReceiptRecord['template'];
  templateHash: string;
  finalHash: string;
  recipients: Recipient[];
  submission: ReceiptSubmission;
}

/** The only algorithm docs/interface-decisions.md#hybrid-encryption defines a wrap for. */
const SUPPORTED_ALGORITHM = 'RSA_2048';

export async function issueReceipt(f: Factory, caller: Caller, ledger: LedgerStore, input: ReceiptInput, ui: IssueUi): Promise<Issued> {
  const { request, lookup, customer } = input;
  const documentNumber = request.documentNumber;
  const what = `receipt ${documentNumber}`;
  const digest = contentDigest({ request, lookup: lookup.request, customer });
  const last = await intentOf(ledger, 'lastIntent', documentNumber, caller.companyId);
  if (last?.state === 'done') return { record: await issuedEarlier(ledger, last, digest, what, input), earlier: true };
  if (input.abandonPending) await abandonOpen(ledger, documentNumber, caller.companyId, what, ui);

  // A receipt reserves nothing, so its intent is recorded once the request is built, with
  // the request: a run killed before that sent nothing. One left open by an earlier run
  // (or by another process sending the same receipt) is finished instead.
  let intent = await intentOf(ledger, 'openIntent', documentNumber, caller.companyId);
  if (!intent) {
    const built = await buildReceipt(caller, input, ui);
    const context: Prepared = {
      template: built.template,
      templateHash: built.templateHash,
      finalHash: built.finalHash,
      matchId: built.submission.matchId,
      recipients: built.recipients.map((r) => ({ recipientId: r.recipientId, receiverType: r.receiverType, keyId: keyFingerprint(r.publicKey) })),
    };
    const issuer = supplierPartyIdOf(built.template);
    // A caller whose company only the template names (an API key, a Grant this profile does not
    // record): a receipt kept under that company's number (sent with a profile's Grant) is this one.
    const subject = receiptSubject(documentNumber, caller.companyId ?? issuer);
    if (caller.companyId === undefined) {
      const kept = await ledger.lastIntent('receipt', subject);
      if (kept?.state === 'done') return { record: await issuedEarlier(ledger, kept, digest, what, input), earlier: true };
      if (input.abandonPending) await abandonOpen(ledger, documentNumber, issuer, what, ui);
    }
    const idempotencyKey = input.idempotencyKey ?? derivedIdempotencyKey(issuer, 'receipt', documentNumber);
    const reserved = await ledger.reserveReceipt({
      kind: 'receipt',
      subject,
      documentNumber,
      digest,
      issuer,
      prepared: { idempotencyKey, body: JSON.stringify(built.submission), context },
    });
    intent = reserved.intent;
    // Another process (another machine of the team) issued it while this one built it.
    if (intent.state === 'done') return { record: await issuedEarlier(ledger, intent, digest, what, input), earlier: true };
    if (!reserved.created) resuming(intent, digest, what, 'another svc process started', ui);
  } else resuming(intent, digest, what, 'resuming', ui);

  const prepared = intent.context as Prepared;
  const count = prepared.recipients.length;
  const result = await sendPrepared(ledger, intent, what, (body, key) =>
    ui.step(`submitting for ${counted(count, 'device')}`, () => submitEncryptedReceipt(caller, body as ReceiptSubmission, key)),
  );
  if (result.templateHash !== prepared.templateHash) {
    ui.note(`warning: the service reports templateHash ${result.templateHash}, this svc computed ${prepared.templateHash}`);
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
  return { record, earlier: false };
}

/** Template → resolve → final document → encrypted for each device. */
export async function buildReceipt(caller: Caller, input: Pick<ReceiptInput, 'request' | 'lookup' | 'customer'>, ui: IssueUi): Promise<Built> {
  const { request, lookup, customer } = input;
  const template = await ui.step('creating the receipt template', () => createReceiptTemplate(caller, request));
  for (const warning of template.warnings ?? []) ui.note(`warning: ${warning}`);
  const canonical = canonicalTemplate(template);
  const match = await ui.step(`resolving ${lookup.kind} ${lookup.display}`, () => resolveRecipient(caller, lookup));
  const recipients = encryptable(match.recipients, lookup, ui);
  const finalDoc = finalDocument(canonical, customer);
  const submission: ReceiptSubmission = {
    matchId: match.matchId,
    templateHash: canonical.templateHash,
    encryptedReceipts: encryptForRecipients(finalDoc, customer, recipients, supplierPartyIdOf(template)),
  };
  return { template, templateHash: canonical.templateHash, finalHash: finalDoc.finalHash, recipients, submission };
}

/** An open intent of the same receipt is finished; one of another receipt under the same number is refused. */
function resuming(intent: Intent, digest: string, what: string, who: string, ui: IssueUi): void {
  if (intent.digest !== digest) {
    throw new AlreadySubmittedError(`${what} has a submission under way ${startedBy(intent)} with other content than this one`, {
      hint: 'finish it by running the command that started it again, or close it with --abandon-pending',
    });
  }
  ui.note(`${who} the submission of ${what} ${startedBy(intent)}: sending the same request under the same Idempotency-Key`);
}

/** The record goes in with the intent closed; should that fail, the receipt is issued and a re-run records it. */
async function complete(ledger: LedgerStore, intent: Intent, record: ReceiptRecord): Promise<void> {
  try {
    await ledger.complete(intent.id, { kind: 'receipt', record });
  } catch (error) {
    throw new NotRecordedError(
      `receipt ${record.templateRequest.documentNumber} was issued as ${record.serviceReceiptId}, but it could not be recorded: ${error instanceof Error ? error.message : error}`,
      { hint: 'run the same command again once the ledger can be written: it records the receipt without issuing it again', cause: error },
    );
  }
}

/** A re-run of a finished command: the same receipt is reported again; another one under its number is refused. */
async function issuedEarlier(ledger: LedgerStore, last: Intent, digest: string, what: string, input: Pick<ReceiptInput, 'request' | 'lookup' | 'customer'>): Promise<ReceiptRecord> {
  if (last.digest !== digest || last.result === undefined) {
    const earlier = last.result === undefined ? undefined : await ledger.receipt(last.result).catch(() => undefined);
    throw new AlreadySubmittedError(`${what} was already issued as ${last.result ?? 'a receipt'} ${howItDiffers(earlier, input)}`, {
      hint: `nothing was submitted; a document number is one receipt${last.result === undefined ? '' : ` (see it in \`svc receipt list\`)`}: give a new receipt its own documentNumber`,
      serviceReceiptId: last.result,
    });
  }
  const record = await ledger.receipt(last.result);
  if (!record) throw new AlreadySubmittedError(`${what} was already issued as ${last.result}`, { hint: 'nothing was submitted', serviceReceiptId: last.result });
  return record;
}

/**
 * What differs between the receipt issued earlier and this send, as the ledger's record tells
 * it: the document, the customer it went to (`--email`, `--card`, … as displayed), the customer
 * details. Without the record, or when what differs is not shown (two cards with the same
 * last four digits), said as such.
 */
function howItDiffers(earlier: ReceiptRecord | undefined, input: Pick<ReceiptInput, 'request' | 'lookup' | 'customer'>): string {
  if (earlier === undefined) return 'with other content than this send (a document, customer or customer details of its own)';
  const to = `${earlier.lookup.by} ${earlier.lookup.display}`;
  const sameDocument = contentDigest(earlier.templateRequest) === contentDigest(input.request);
  const sameTo = to === `${input.lookup.kind} ${input.lookup.display}`;
  const sameCustomer = contentDigest(earlier.customer ?? {}) === contentDigest(input.customer ?? {});
  const differences = [
    ...(sameDocument ? [] : [documentDiffers(earlier.templateRequest as unknown as Record<string, unknown>, input.request as unknown as Record<string, unknown>)]),
    ...(sameTo ? [] : [`this send names ${input.lookup.kind} ${input.lookup.display}`]),
    ...(sameCustomer ? [] : ['other customer details (--customer)']),
  ];
  if (differences.length === 0) return `to ${to}, with other content than this send (another ${input.lookup.kind} with the same shown digits, or customer details of its own)`;
  return `to ${to}${sameDocument ? ', the same document' : ''}: ${differences.join('; ')}`;
}

/**
 * Which of the document's fields differ, by name, not "the file": a file sent again as it was
 * with `--issue-date now` differs in its date alone, which is said with both dates.
 */
function documentDiffers(earlier: Record<string, unknown>, now: Record<string, unknown>): string {
  const names = [...new Set([...Object.keys(earlier), ...Object.keys(now)])].filter((k) => contentDigest(earlier[k] ?? null) !== contentDigest(now[k] ?? null));
  if (names.length === 1 && names[0] === 'issueDate') {
    return `another document: its issueDate (${String(earlier.issueDate)} then, ${String(now.issueDate)} in this send; \`--issue-date now\` dates each send anew)`;
  }
  const shown = names.slice(0, 4).join(', ') + (names.length > 4 ? `, and ${names.length - 4} more` : '');
  return `another document: ${names.length === 1 ? 'its field' : 'its fields'} ${shown} ${names.length === 1 ? 'differs' : 'differ'}`;
}

/**
 * What sending `input` would meet in the ledger, for --dry-run: the receipt issued earlier
 * with the same content (a send reports it again and sends nothing), undefined when none, or
 * the refusal a send would get (AlreadySubmittedError, exit 7). `issuer`: the template's
 * supplier, for a caller that names no company.
 */
export async function issuedBefore(ledger: LedgerStore, caller: Caller, input: Pick<ReceiptInput, 'request' | 'lookup' | 'customer'>, issuer: string): Promise<ReceiptRecord | undefined> {
  const { request, lookup, customer } = input;
  const what = `receipt ${request.documentNumber}`;
  const digest = contentDigest({ request, lookup: lookup.request, customer });
  const last =
    (await intentOf(ledger, 'lastIntent', request.documentNumber, caller.companyId)) ??
    (caller.companyId === undefined ? await ledger.lastIntent('receipt', receiptSubject(request.documentNumber, issuer)) : undefined);
  return last?.state === 'done' ? issuedEarlier(ledger, last, digest, what, input) : undefined;
}

async function abandonOpen(ledger: LedgerStore, documentNumber: string, companyId: string | undefined, what: string, ui: IssueUi): Promise<void> {
  const open = await intentOf(ledger, 'openIntent', documentNumber, companyId);
  if (!open) return;
  await ledger.abandon(open.id);
  ui.note(`abandoned the submission of ${what} started ${startedBy(open)}`);
}

/**
 * A receipt's subject in the ledger: its number within its company when the caller acts for
 * a Grant the profile records (each company of a platform numbers its own receipts), else the
 * number alone (an API key is one company's).
 */
function receiptSubject(documentNumber: string, companyId: string | undefined): string {
  return companyId === undefined ? documentNumber : `${companyId}/${documentNumber}`;
}

/**
 * The company's intent of a receipt; one recorded under the number alone (by an svc before
 * receipts were kept per company, or with an API key) counts when its template names this
 * company as the supplier.
 */
async function intentOf(ledger: LedgerStore, which: 'lastIntent' | 'openIntent', documentNumber: string, companyId: string | undefined): Promise<Intent | undefined> {
  const subject = receiptSubject(documentNumber, companyId);
  const own = await ledger[which]('receipt', subject);
  if (own !== undefined || subject === documentNumber) return own;
  const bare = await ledger[which]('receipt', documentNumber);
  const template = (bare?.context as Partial<Prepared> | undefined)?.template;
  return template !== undefined && supplierOf(template) === companyId ? bare : undefined;
}

function supplierOf(template: ReceiptRecord['template']): string | undefined {
  try {
    return supplierPartyIdOf(template);
  } catch {
    return undefined;
  }
}

/** Recipients whose key this svc can wrap for; the others are named and left out. */
function encryptable(recipients: readonly Recipient[], lookup: RecipientLookup, ui: IssueUi): Recipient[] {
  const usable = recipients.filter((r) => r.keyAlgorithm === SUPPORTED_ALGORITHM);
  for (const r of recipients) {
    if (r.keyAlgorithm !== SUPPORTED_ALGORITHM) ui.note(`warning: skipping recipient ${r.recipientId}: key algorithm ${r.keyAlgorithm} is not supported`);
  }
  if (usable.length > 0) return usable;
  throw new NotFoundError(`no device of that ${lookup.kind} can receive an encrypted receipt`, {
    hint: 'send it by email instead with `svc receipt email --file … --to …`',
  });
}
