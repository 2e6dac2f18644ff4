// The first step of `credit-note issue`, and of what `show` and `triage` say it would do: the
// return request found in the queue, decrypted, the part of it to credit (the recorded part
// of a request accepted in part, or --item's, or asked for) and the merchant's own record of
// the receipt it is for (or --original's).
import type { Caller } from '../api/caller.js';
import { RequestStateError } from '../api/credit-note.js';
import { ReturnRequest, type QueueItem } from '../contract/returns.js';
import { ReceiptTemplateRequest } from '../contract/template.js';
import { parseOrThrow, validate } from '../contract/validate.js';
import { decryptOutcome } from '../crypto/decrypt-batch.js';
import { loadKeyring } from '../keys/keystore.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { Factory } from '../factory.js';
import { inputName, readJsonInput } from '../io/input.js';
import { note } from '../io/streams.js';
import { loadReceiptRecord } from '../receipts/records.js';
import { ReceiptRecord } from '../contract/records.js';
import type { AcceptedPart } from '../store/ledger.js';
import type { ItemQuantity } from './item-flag.js';
import { askPart, keepAcceptedPart, withinAcceptedPart } from './accepted-part.js';
import { approvedPart, type ApprovedPart } from './approved.js';
import { encryptedPart } from './queue.js';
import { findQueueItem } from './queue-cache.js';
import { grantFlagOf } from '../grants/company.js';
import { unreadableRequest } from './queue-read.js';

/** Statuses after which the customer is owed nothing more for this request. */
export const CLOSED_STATUSES: ReadonlySet<string> = new Set(['REJECTED', 'CANCELLED', 'COMPLETED']);

/** The request is REJECTED, CANCELLED or COMPLETED (`item` as found): nothing to credit (exit 7). `grantFlag`: its company's, for the hint. */
export class ClosedRequestError extends RequestStateError {
  readonly item: QueueItem;
  constructor(item: QueueItem, grantFlag: string) {
    super(`return request ${item.requestId} is ${item.status}: there is nothing to credit`, {
      hint: `see the open requests (pending and accepted) with \`svc credit-note poll${grantFlag}\``,
    });
    this.item = item;
  }
}

export interface Original {
  record: ReceiptRecord;
  request: ReceiptTemplateRequest;
}

/** The decrypted request, the part of it to credit and the receipt it is for: what the check starts from. */
export interface Opened {
  item: QueueItem;
  returnRequest: ReturnRequest;
  approved: ApprovedPart;
  /** The part recorded when the request was opened (for a PARTIALLY_ACCEPTED one, asked for and recorded just now, too). */
  acceptedPart: AcceptedPart | undefined;
  original: Original;
  /** ` --grant …` in the commands its hints print, when its company is not the default (grantFlagOf). */
  grantFlag: string;
}

/**
 * What to credit of a request accepted in part: the recorded part, or less (--item); more is
 * refused naming the part. With none recorded (accepted elsewhere, or by an older svc) the
 * part is --item's, or asked for on a terminal and then recorded as the decision.
 */
async function partToCredit(
  f: Factory,
  requestId: string,
  request: ReturnRequest,
  items: readonly ItemQuantity[],
  ask: boolean,
  grantFlag: string,
): Promise<{ items: readonly ItemQuantity[]; recorded: AcceptedPart | undefined }> {
  const recordedPart = await (await f.ledger()).acceptedPart(requestId);
  const recorded = withinAcceptedPart(recordedPart, items);
  if (recorded !== undefined) return { items: recorded, recorded: recordedPart };
  if (items.length > 0 || !ask) return { items, recorded: undefined };
  note(f.io, `return request ${requestId} was accepted in part, and no part is recorded (accepted on another machine, or by an older svc)`);
  const asked = await askPart(f, requestId, request);
  return { items: asked, recorded: await keepAcceptedPart(f, requestId, asked, undefined, grantFlag) };
}

export async function openRequest(
  f: Factory,
  caller: Caller,
  opts: { requestId: string; original?: string | undefined; found?: QueueItem | undefined },
  items: readonly ItemQuantity[],
  ask = false,
): Promise<Opened> {
  const item = opts.found ?? (await findQueueItem(f, caller, opts.requestId));
  const grantFlag = await grantFlagOf(f, caller);
  if (CLOSED_STATUSES.has(item.status)) throw new ClosedRequestError(item, grantFlag);
  const returnRequest = await decryptRequest(f, item);
  // Read whatever the status: a part recorded while an issue runs (a colleague accepting in part) must stop it.
  const part =
    item.status === 'PARTIALLY_ACCEPTED'
      ? await partToCredit(f, item.requestId, returnRequest, items, ask, grantFlag)
      : { items, recorded: await (await f.ledger()).acceptedPart(item.requestId) };
  const approved = approvedPart({ requestId: item.requestId, status: item.status, request: returnRequest, items: part.items });
  const original = await originalReceipt(f, opts.original, item.serviceReceiptId, item.requestId, grantFlag);
  return { item, returnRequest, approved, acceptedPart: part.recorded, original, grantFlag };
}

/** The request a queue item carries, decrypted with this profile's keys (DecryptError, exit 4, when none opens it). */
export async function decryptRequest(f: Factory, item: QueueItem): Promise<ReturnRequest> {
  const outcome = decryptOutcome(encryptedPart(item), await loadKeyring(f));
  if (!outcome.ok) throw unreadableRequest(item.requestId, outcome.error);
  return parseOrThrow(ReturnRequest, outcome.value, `return request ${item.requestId}`);
}

/** The local record of the receipt (or --original's); a receipt without one is not provably this merchant's. `grantFlag`: the request's, for the hint. */
export async function originalReceipt(f: Factory, file: string | undefined, serviceReceiptId: string, requestId: string, grantFlag: string): Promise<Original> {
  let record: ReceiptRecord;
  if (file !== undefined) {
    const parsed = validate(ReceiptRecord, await readJsonInput(file, f));
    if (!parsed.success) {
      throw new ValidationError(inputName(file), parsed.issues, {
        hint: '--original takes the receipt record `svc receipt send` kept: its element of `svc receipt list --json` on the machine that issued it',
      });
    }
    record = parsed.data;
  } else {
    try {
      record = await loadReceiptRecord(f, serviceReceiptId);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      throw new ValidationError(
        `return request ${requestId}`,
        [{ path: 'serviceReceiptId', message: `receipt ${serviceReceiptId} is not known as one of this merchant's receipts: this profile has no record of it` }],
        // A whole command: triage and the queue screen, which take no --original, call this too.
        { hint: `issued by another machine or profile (records are kept per profile)? \`svc credit-note issue ${requestId}${grantFlag} --original FILE\` with its receipt record` },
      );
    }
  }
  const request = parseOrThrow(ReceiptTemplateRequest, record.templateRequest, `the record of receipt ${record.serviceReceiptId}`);
  return { record, request };
}
