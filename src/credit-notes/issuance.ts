// `credit-note issue`: the whole of docs/interface-decisions.md#return-requests processing. The request
// (or the part of it named with --item, which a PARTIALLY_ACCEPTED request needs) is decrypted
// and checked against the merchant's own record of the receipt (open-request.ts), the credit
// note is computed from that record, never from the customer's figures (prepare.ts), and
// shown (preview.ts), and only after the merchant confirms does anything reach the service:
// template → resolve the owner's current devices → inject the customer → encrypt per device
// → submit with one Idempotency-Key → record in the ledger (submit.ts), so the next
// over-return is caught. The check is made again inside the ledger's transaction that
// reserves what the credit note takes (src/store/ledger.ts), counting every reservation still
// being submitted, so two issues against one receipt, on one machine or on several sharing a
// database, cannot both credit its last items. The exact request and its key are kept before
// they are sent: a run killed at any point, or whose answer was lost, is finished by running
// it again, for the part it began (its reservation's, whatever --item says then). The command
// (src/commands/credit-note/issue.ts) and triage's `i` both run this.
import type { Caller } from '../api/caller.js';
import { RequestStateError, setReturnRequestStatus } from '../api/credit-note.js';
import type { CreditNoteSubmissionResult } from '../contract/credit-note.js';
import type { QueueItem } from '../contract/returns.js';
import { formatMoney } from '../crypto/money.js';
import type { Factory } from '../factory.js';
import { canPrompt, note } from '../io/streams.js';
import { shownTime } from '../io/time.js';
import { confirmOrCancel } from '../io/prompter.js';
import { contentDigest, startedBy } from '../receipts/submission.js';
import type { Credited, Intent } from '../store/ledger.js';
import { creditedPart, OverAcceptedPartError, partChanged, partText, partWords, samePart, sameRecordedPart } from './accepted-part.js';
import type { ItemQuantity } from './item-flag.js';
import { CLOSED_STATUSES, ClosedRequestError, decryptRequest, openRequest, type Opened } from './open-request.js';
import { AlreadyCreditedError, creditedBy, creditedOf, pendingSince, prepare, returnWindowDays, sameCreditNote, type Prepared, type Terms } from './prepare.js';
import { preview } from './preview.js';
import { callerForRequests } from './request-grant.js';
import { mayBePrefix, resolveRequestIds } from './request-id.js';
import { findQueueItem } from './queue-cache.js';
import { issueQuestion } from './moves.js';
import { creditLines, requestAskedBrief } from './summary.js';
import { oneLine } from '../io/output.js';
import { SvcError, UsageError, ValidationError } from '../errors.js';
import { companyNameOf } from '../auth/caller.js';
import { rememberMove } from '../completion/cache.js';
import { issuedWhere } from './credited.js';
import { grantFlagOf } from '../grants/company.js';
import { reservationOf, submit, type Issued } from './submit.js';

/** What `credit-note issue` was asked for: its flags, the request ID given (a unique prefix will do) and the parsed --item. */
export interface IssueRequest {
  requestId: string;
  /** A receipt record JSON file, for a receipt another machine issued. */
  original?: string | undefined;
  documentNumber?: string | undefined;
  /** Credit only these (required for a PARTIALLY_ACCEPTED request); none: all of the request. */
  items: readonly ItemQuantity[];
  yes?: boolean | undefined;
  complete?: boolean | undefined;
  /** Overrides the key derived from the issuer and the document number. */
  idempotencyKey?: string | undefined;
  /** Closes a submission of this request's credit note left under way, instead of resuming it. */
  abandonPending?: boolean | undefined;
  /** Runs every check and shows the credit note, then stops: nothing is reserved or sent. */
  dryRun?: boolean | undefined;
  /** The caller (triage) has just shown this credit note, so it is not printed again. */
  previewShown?: boolean | undefined;
  /**
   * Told which credit note credits the request: one this run issued (`here`; told before the
   * request is completed, so triage counts it even when completing fails), or one issued
   * before (a colleague's, an earlier run's) once --complete has completed the request on it.
   */
  onCredited?: ((credited: { documentNumber: string; serviceReceiptId: string; here: boolean }) => void) | undefined;
}

/** How it ended: a dry run stopped by a submission under way, a dry run whose checks passed, or a credit note issued. */
export type IssueOutcome =
  | { kind: 'pending'; requestId: string; intent: Intent; grantFlag: string }
  | { kind: 'dry-run'; shown: Prepared }
  | { kind: 'issued'; requestId: string; intent: Intent; issued: Issued; status: string | undefined }
  /** `acceptedPart`: the part this run accepted a PENDING request in, as its credit note credited it (not all it asked). */
  | { kind: 'credited-elsewhere'; requestId: string; creditNote: Credited; status: string; acceptedPart?: ItemQuantity[] | undefined };

/**
 * The whole of `credit-note issue` after its flags are read: an open intent of the request is
 * resumed (or abandoned), else the request is opened, checked and previewed, confirmed,
 * reserved in the ledger (checked again there) and submitted; --complete then closes it.
 */
export async function issueCreditNote(f: Factory, given: IssueRequest): Promise<IssueOutcome> {
  let opts = given;
  const { items } = given;
  const terms: Terms = { documentNumber: opts.documentNumber?.trim(), now: f.clock.now(), windowDays: returnWindowDays(f) };
  const caller = await callerForRequests(f, [opts.requestId]);
  // The commands its hints print name the company when it is not the default.
  const grantFlag = await grantFlagOf(f, caller);
  const ledger = await f.ledger();

  let intent = await ledger.openIntent('credit-note', opts.requestId);
  if (!intent && mayBePrefix(opts.requestId)) {
    // A unique prefix of the ID will do; from here on, the whole ID (its open intent too).
    opts = { ...opts, requestId: (await resolveRequestIds(f, caller, [opts.requestId]))[0] ?? opts.requestId };
    intent = await ledger.openIntent('credit-note', opts.requestId);
  }
  if (intent && opts.abandonPending) {
    await ledger.abandon(intent.id);
    note(f.io, `abandoned the submission of credit note ${intent.documentNumber} started ${startedBy(intent)}`);
    intent = undefined;
  }
  let item: QueueItem;
  let whole = true;

  /**
   * --item beyond the accepted part: its hint (leave out --item to credit the part) holds
   * only when the part can still be credited whole, which is checked here as `issue` alone
   * would check it; when it cannot (lines credited since by other requests), the hint says
   * what is left instead.
   */
  async function overAcceptedPart(error: OverAcceptedPartError): Promise<UsageError> {
    let refusal: ValidationError | undefined;
    try {
      const part = await openRequest(f, caller, opts, [], false);
      prepare(part, creditedOf(await ledger.credits(part.item.serviceReceiptId)), terms);
    } catch (checked) {
      if (checked instanceof ValidationError) refusal = checked;
      else return error;
    }
    if (refusal === undefined) return error;
    const why = refusal.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    // What the check says next: what can still be credited (its --item), and the way that is left.
    const next = refusal.hint?.replace(/^nothing was submitted; /, '') ?? `settle it another way and run \`svc credit-note complete ${opts.requestId}${grantFlag} --credited-elsewhere\``;
    return new UsageError(error.message, { hint: `nothing was submitted; the accepted part cannot be credited whole either (${why}): ${next}` });
  }
  if (intent && opts.dryRun) return { kind: 'pending', requestId: opts.requestId, intent, grantFlag };
  if (intent) {
    item = await findQueueItem(f, caller, opts.requestId);
    // Nothing of it was sent yet (its bytes are kept before they are): a request closed since then is not credited.
    if (intent.state === 'reserved' && CLOSED_STATUSES.has(item.status)) {
      throw new RequestStateError(`return request ${item.requestId} is ${item.status} and its credit note ${intent.documentNumber}, started ${startedBy(intent)}, was never sent: it is not sent now`, {
        hint: `close the submission with \`svc credit-note issue ${item.requestId}${grantFlag} --abandon-pending\``,
      });
    }
    // The part the interrupted run credits is the one carried on, whatever --item says now:
    // another part is refused, and without --item it is that part, never the whole request.
    const begun = creditedPart(reservationOf(intent).lines);
    if (items.length > 0 && !samePart(items, begun)) throw otherPartBegun(f, intent, begun, items, `${item.requestId}${grantFlag}`, opts.complete === true);
    note(f.io, `resuming the submission of credit note ${intent.documentNumber} started ${startedBy(intent)}: the same request under the same Idempotency-Key`);
    // --complete accepts a PENDING request as the credit note credits it: whole, or in part.
    const acceptsNow = opts.complete === true && item.status === 'PENDING';
    whole = (await creditsWholeRequest(f, item, begun, acceptsNow)) === true;
    if (!whole) {
      const accepting = acceptsNow ? ', a part of the request: it is accepted in part (PARTIALLY_ACCEPTED), then completed' : '';
      note(f.io, `resuming the issue begun at ${shownTime(f.io, f.env, intent.createdAt)} for ${partWords(begun)}${accepting}`);
    }
  } else {
    let opened: Opened;
    try {
      opened = await openRequest(f, caller, opts, items, canPrompt(f.io));
    } catch (error) {
      if (error instanceof OverAcceptedPartError) throw await overAcceptedPart(error);
      // COMPLETED with its credit note in the ledger: what --complete asked for is done already.
      if (!(error instanceof ClosedRequestError && opts.complete && !opts.dryRun && error.item.status === 'COMPLETED')) throw error;
      const issued = (await ledger.credits(error.item.serviceReceiptId)).issued.find((n) => n.requestId === error.item.requestId);
      if (issued === undefined) throw error;
      return { kind: 'credited-elsewhere', requestId: error.item.requestId, creditNote: issued, status: error.item.status };
    }
    ({ item } = opened);
    whole = opened.approved.whole;
    const receipt = item.serviceReceiptId;
    // Issued by another run (a colleague's, on the shared ledger): --complete completes it, nothing is issued twice.
    const elsewhere = (error: unknown) => (opts.complete && !opts.dryRun ? issuedBefore(error) : undefined);
    let shown: Prepared;
    try {
      shown = prepare(opened, creditedOf(await ledger.credits(receipt)), terms);
    } catch (error) {
      const earlier = elsewhere(error);
      if (earlier === undefined) throw error;
      return completeCreditedElsewhere(f, caller, grantFlag, opened, earlier, opts);
    }
    if (!opts.previewShown) preview(f, shown.credit, shown.returnRequest, shown.previous, { issueDate: shown.original.request.issueDate, now: terms.now, windowDays: terms.windowDays, askedAt: Date.parse(shown.item.createdAt) });
    if (opts.dryRun) return { kind: 'dry-run', shown };
    if (await confirm(f, caller, opts, shown)) await unmovedSinceAsked(f, caller, item);
    const reserving = ledger.reserveCreditNote(receipt, item.requestId, (credits, acceptedPart) => {
      // A colleague may have accepted in part, or changed the part, since it was read; nobody can now.
      if (!sameRecordedPart(opened.acceptedPart, acceptedPart)) {
        throw partChanged(item.requestId, acceptedPart, `nothing was reserved or sent; run \`svc credit-note issue ${item.requestId}${grantFlag}\` again to credit the part as it is now`);
      }
      // Another issue may have credited or reserved the receipt since the preview; none can now.
      const prepared = prepare(opened, creditedOf(credits), terms);
      if (!sameCreditNote(shown, prepared)) changedSincePreview(f, opts, shown, prepared, grantFlag);
      const reservation = creditedBy(prepared);
      return {
        kind: 'credit-note',
        subject: item.requestId,
        parent: receipt,
        documentNumber: reservation.documentNumber,
        digest: contentDigest(reservation),
        reservation,
        idempotencyKey: opts.idempotencyKey,
      };
    });
    let reserved: Awaited<typeof reserving>;
    try {
      reserved = await reserving;
    } catch (error) {
      const earlier = elsewhere(error);
      if (earlier === undefined) throw error;
      return completeCreditedElsewhere(f, caller, grantFlag, opened, earlier, { ...opts, yes: true });
    }
    intent = reserved.intent;
    if (!reserved.created) note(f.io, `another svc started the credit note of request ${item.requestId} ${startedBy(intent)}; finishing that one`);
  }
  const issued = await submit(f, caller, ledger, intent, opts.original);
  opts.onCredited?.({ documentNumber: intent.documentNumber, serviceReceiptId: issued.result.serviceReceiptId, here: true });
  const status = opts.complete ? await completeRequest(f, caller, grantFlag, item, whole, issued.result) : undefined;
  return { kind: 'issued', requestId: item.requestId, intent, issued, status };
}

/**
 * Whether the part an interrupted run credits is all the request asks: it cannot be while the
 * request is PARTIALLY_ACCEPTED; otherwise the request is read. Undefined when it cannot be
 * read and nothing depends on it (`mustKnow`: a move does, and the DecryptError stands).
 */
async function creditsWholeRequest(f: Factory, item: QueueItem, begun: readonly ItemQuantity[], mustKnow: boolean): Promise<boolean | undefined> {
  if (item.status === 'PARTIALLY_ACCEPTED') return false;
  try {
    return creditsWhole({ returnRequest: await decryptRequest(f, item) }, { lines: begun });
  } catch (error) {
    if (mustKnow || !(error instanceof SvcError)) throw error;
    return undefined;
  }
}

/** --item naming another part than the one an interrupted run of the request began to credit (exit 7): nothing is sent or moved. */
function otherPartBegun(f: Factory, intent: Intent, begun: readonly ItemQuantity[], items: readonly ItemQuantity[], request: string, complete: boolean): RequestStateError {
  return new RequestStateError(
    `an issue of return request ${intent.subject} was begun at ${shownTime(f.io, f.env, intent.createdAt)} for ${partWords(begun)} (credit note ${intent.documentNumber}, still being submitted): --item ${partText(items)} names another part`,
    {
      hint: `nothing was sent or moved; finish the issue begun, for that part, with \`svc credit-note issue ${request}${complete ? ' --complete' : ''}\` (without --item), or, if it must not be finished, close it with \`svc credit-note issue ${request} --abandon-pending\``,
    },
  );
}

/** The credit note an AlreadyCreditedError names when it was issued (not one still being submitted). */
function issuedBefore(error: unknown): Credited | undefined {
  return error instanceof AlreadyCreditedError && error.earlier.serviceReceiptId !== undefined ? error.earlier : undefined;
}

/**
 * `issue --complete` of a request another run has credited (the ledger holds its credit note):
 * nothing is issued; the request is accepted (in part, as it was credited) when still
 * PENDING, and completed. Each move is idempotent, and one a colleague made meanwhile (the
 * accept of a request they completed) is no failure. Confirmed like the issue was, unless
 * the issue was confirmed already.
 */
async function completeCreditedElsewhere(f: Factory, caller: Caller, grantFlag: string, opened: Opened, earlier: Credited, opts: IssueRequest): Promise<IssueOutcome> {
  const { item } = opened;
  // The part it was credited for is the one it is accepted and completed for: another --item is refused.
  const credited = creditedPart(earlier.lines);
  if (opts.items.length > 0 && !samePart(opts.items, credited)) {
    throw new RequestStateError(
      `return request ${item.requestId} was already credited by ${earlier.documentNumber} (${await issuedWhere(f, earlier)}) for ${partWords(credited)}: --item ${partText(opts.items)} names another part`,
      { hint: `nothing was moved; complete it as it was credited with \`svc credit-note issue ${item.requestId}${grantFlag} --complete\` (without --item)` },
    );
  }
  if (!opts.yes) {
    const company = await companyNameOf(f, caller);
    const message = `Request ${item.requestId} of ${company} was already credited by ${earlier.documentNumber} (${await issuedWhere(f, earlier)}; no second credit note is issued). Complete it? It cannot be moved again.`;
    await confirmOrCancel(f.prompter(), { message, flag: '--yes' }, `cancelled: request ${item.requestId} was not completed (it stays credited by ${earlier.documentNumber})`);
  }
  let acceptedPart: ItemQuantity[] | undefined;
  if (item.status === 'PENDING') {
    const part = creditsWhole(opened, earlier) ? 'ACCEPTED' : 'PARTIALLY_ACCEPTED';
    try {
      await setReturnRequestStatus(caller, item.requestId, part, grantFlag);
      if (part === 'PARTIALLY_ACCEPTED') acceptedPart = credited;
    } catch (error) {
      // Accepted or completed by a colleague meanwhile: COMPLETED below says whether it may still move.
      if (!(error instanceof RequestStateError)) throw error;
    }
  }
  const { status } = await setReturnRequestStatus(caller, item.requestId, 'COMPLETED', grantFlag);
  await rememberMove(f, item.requestId, status);
  opts.onCredited?.({ documentNumber: earlier.documentNumber, serviceReceiptId: earlier.serviceReceiptId ?? '', here: false });
  return { kind: 'credited-elsewhere', requestId: item.requestId, creditNote: earlier, status, acceptedPart };
}

/** Whether the credit note credits every item the customer asked to return (the request's lines, by product). */
function creditsWhole({ returnRequest }: Pick<Opened, 'returnRequest'>, credited: { lines: readonly { productId: string; quantity: number }[] }): boolean {
  const left = new Map<string, number>();
  for (const line of returnRequest.lineItems) left.set(line.productId, (left.get(line.productId) ?? 0) + line.quantity);
  for (const line of credited.lines) left.set(line.productId, (left.get(line.productId) ?? 0) - line.quantity);
  return [...left.values()].every((n) => n < 1e-9);
}

/**
 * Credit notes recorded since the preview left enough to return, but changed the figures
 * (the document number, a cent of a prorated share). With --yes the new figures are shown
 * and issued; a merchant who confirmed the old ones is asked to look again.
 */
function changedSincePreview(f: Factory, opts: IssueRequest, shown: Prepared, prepared: Prepared, grantFlag: string): void {
  const seen = new Set(shown.previous.map((n) => n.documentNumber));
  const others = prepared.previous.filter((n) => !seen.has(n.documentNumber)).map((n) => (n.pending ? `${n.documentNumber} (being submitted ${pendingSince(n)})` : n.documentNumber));
  const receipt = prepared.item.serviceReceiptId;
  const what =
    others.length > 0
      ? `receipt ${receipt} was credited by ${others.join(', ')} after this credit note was shown`
      : `the credit note records of receipt ${receipt} changed after this credit note was shown`;
  if (!opts.yes) {
    throw new RequestStateError(`${what}, which changes it`, {
      hint: `nothing was submitted; run \`svc credit-note issue ${prepared.item.requestId}${grantFlag}\` again to see the new figures`,
    });
  }
  note(f.io, `${what}; issuing it as it is now:`);
  preview(f, prepared.credit, prepared.returnRequest);
}

/**
 * The request as the service says after the answer: a question stays open for as long as a
 * person takes, and a colleague may have completed, rejected or moved the request meanwhile
 * (the service would still take a credit note for its receipt). Nothing is reserved or sent then.
 */
async function unmovedSinceAsked(f: Factory, caller: Caller, asked: QueueItem): Promise<void> {
  const now = await findQueueItem(f, caller, asked.requestId);
  if (now.status === asked.status) return;
  throw new RequestStateError(`request ${asked.requestId} is ${now.status} now (moved elsewhere while the question was open): no credit note was issued`, {
    hint: CLOSED_STATUSES.has(now.status) ? `see how it was closed with \`svc credit-note show ${asked.requestId}\`` : `run \`svc credit-note issue ${asked.requestId}\` again to decide it as it is`,
  });
}

/** Says what it will do before it is done: the credit note, its total, whose, and (--complete) the request it closes for good. True when it asked. */
async function confirm(f: Factory, caller: Caller, opts: IssueRequest, shown: Prepared): Promise<boolean> {
  if (opts.yes) return false;
  const { credit } = shown;
  const whole = creditsWhole(shown, { lines: credit.lines.map((line) => ({ productId: line.productId, quantity: line.product.quantity })) });
  const issued = {
    requestId: shown.item.requestId,
    receipt: oneLine(shown.returnRequest.receiptId),
    company: await companyNameOf(f, caller),
    askedMore: whole ? undefined : requestAskedBrief(shown.returnRequest, await (await f.ledger()).receipt(shown.item.serviceReceiptId)),
  };
  const lines = creditLines(credit);
  const message = issueQuestion({ documentNumber: credit.request.documentNumber, amount: formatMoney(credit.totals.total, credit.currency), lines }, issued, opts.complete === true);
  await confirmOrCancel(f.prompter(), { message, flag: '--yes' }, 'cancelled: no credit note was issued');
  return true;
}

/** --complete: PENDING must be accepted (in part, when only part was credited) before it can be completed (docs/interface-decisions.md#return-request-moves). */
async function completeRequest(f: Factory, caller: Caller, grantFlag: string, item: QueueItem, whole: boolean, result: CreditNoteSubmissionResult): Promise<string> {
  try {
    if (item.status === 'PENDING') await rememberMove(f, item.requestId, (await setReturnRequestStatus(caller, item.requestId, whole ? 'ACCEPTED' : 'PARTIALLY_ACCEPTED', grantFlag)).status);
    const { status } = await setReturnRequestStatus(caller, item.requestId, 'COMPLETED', grantFlag);
    // Completion offers a request only to the verbs that can still move it: `complete <Tab>` no longer offers this one.
    await rememberMove(f, item.requestId, status);
    return status;
  } catch (error) {
    note(f.io, `the credit note was issued as ${result.serviceReceiptId}, but request ${item.requestId} was not marked COMPLETED`);
    throw error;
  }
}
