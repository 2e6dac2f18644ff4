// `svc sandbox trigger return-request SERVICE_RECEIPT_ID`: what a customer's device does when
// its owner asks to return items (CONTRACT.md §7), so an integration can rehearse
// RETURN_REQUESTED, `svc credit-note poll` and the credit note that answers it.
import { QueueItem, RefundPreference } from '../../contract/returns.js';
import type { ReturnRequestTrigger } from '../../contract/sandbox-returns.js';
import { ApiError, NotFoundError, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note, println } from '../../io/streams.js';
import { resolveReceiptId } from '../../receipts/receipt-id.js';
import { parseItem } from '../item-flag.js';
import { parseCompanies, spreadReturnRequests } from './trigger-spread.js';

export interface TriggerReturnRequestOptions {
  serviceReceiptId: string;
  /** PRODUCT_ID:QTY, repeatable; none: every line of the receipt once. */
  item?: string[] | undefined;
  refund?: string | undefined;
  note?: string | undefined;
  reason?: string | undefined;
  /** One request in each of this many companies (a sandbox started with --companies). */
  companies?: string | undefined;
}

export function triggerBody(opts: TriggerReturnRequestOptions): ReturnRequestTrigger {
  const body: ReturnRequestTrigger = {};
  if (opts.item?.length) body.items = opts.item.map(parseItem);
  if (opts.refund !== undefined) {
    const refund = RefundPreference.safeParse(opts.refund.toUpperCase());
    if (!refund.success) throw new UsageError(`--refund: "${opts.refund}" is not one of ${RefundPreference.options.join(', ')}`);
    body.refundPreference = refund.data;
  }
  // Unknown reason codes are passed on: the issuer must show them as they are.
  if (opts.reason !== undefined) body.reasonCode = opts.reason.toUpperCase();
  if (opts.note !== undefined) body.customerNote = opts.note;
  return body;
}

export async function run(opts: TriggerReturnRequestOptions, f: Factory): Promise<void> {
  const body = triggerBody(opts);
  const serviceReceiptId = await resolveReceiptId(f, opts.serviceReceiptId);
  if (opts.companies !== undefined) return spreadReturnRequests(f, serviceReceiptId, body, parseCompanies(opts.companies));
  const api = await f.api();
  let item: QueueItem;
  try {
    // Not retried: a repeat after a lost answer would be a second return request.
    item = await api.request({
      method: 'POST',
      path: `/sandbox/receipts/${encodeURIComponent(serviceReceiptId)}/return-requests`,
      body,
      schema: QueueItem,
    });
  } catch (error) {
    // Not sandboxRequest: its 404 means "not a sandbox", but here it is usually an unknown receipt.
    if (error instanceof ApiError && error.status === 404) {
      throw new NotFoundError(`${api.baseUrl} has no receipt ${serviceReceiptId}`, {
        hint: 'check the ID with `svc receipt list`, and that the base URL is a sandbox (`svc sandbox start`)',
        cause: error,
      });
    }
    throw error;
  }
  if (f.io.json) {
    writeJson(f.io, item);
    return;
  }
  println(f.io, item.requestId);
  note(f.io, `return request ${item.requestId} for receipt ${item.serviceReceiptId} is ${item.status}; the issuer sees it with \`svc credit-note poll\``);
}
