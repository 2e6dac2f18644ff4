// `svc sandbox trigger return-request SERVICE_RECEIPT_ID`: what a customer's device does when
// its owner asks to return items (docs/interface-decisions.md#sandbox-endpoints), so an integration can rehearse
// RETURN_REQUESTED, `svc credit-note poll` and the credit note that answers it. `--age 7d`
// or `--created-at ISO` dates it back (an aged queue); `--count N` makes N at once through
// the bulk endpoint (no RETURN_REQUESTED events).
import { QueueItem, RefundPreference } from '../../contract/returns.js';
import * as z from '../../contract/zod.js';
import { BulkReturnRequestResult, MAX_BULK_RETURN_REQUESTS, type ReturnRequestTrigger } from '../../contract/sandbox-returns.js';
import { parseDurationSeconds } from '../../io/duration.js';
import { ApiError, NotFoundError, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note, println } from '../../io/streams.js';
import { resolveReceiptId } from '../../receipts/receipt-id.js';
import { parseItem } from '../../credit-notes/item-flag.js';
import { parseCompanies, spreadReturnRequests } from './trigger-spread.js';
import { grantOfFound } from '../../grants/found.js';
import { companyLabel, namedCompany, pollCommandFor } from '../../grants/company.js';

export interface TriggerReturnRequestOptions {
  serviceReceiptId: string;
  /** PRODUCT_ID:QTY, repeatable; none: every line of the receipt once. */
  item?: string[] | undefined;
  refund?: string | undefined;
  note?: string | undefined;
  reason?: string | undefined;
  /** One request in each of this many companies (a sandbox started with --companies). */
  companies?: string | undefined;
  /** ISO 8601 time the customer asked at (an aged queue). */
  createdAt?: string | undefined;
  /** How long ago the customer asked: 7d, 12h, 90m, seconds. */
  age?: string | undefined;
  /** That many requests at once (the bulk endpoint). */
  count?: string | undefined;
}

const IsoTime = z.iso.datetime({ offset: true });
/** Ten years: further back than any receipt a sandbox holds. */
const MAX_AGE_SECONDS = 3650 * 86_400;

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
  if (opts.createdAt !== undefined && opts.age !== undefined) throw new UsageError('--age and --created-at exclude each other: give one');
  if (opts.createdAt !== undefined) {
    if (!IsoTime.safeParse(opts.createdAt).success) {
      throw new UsageError(`--created-at: "${opts.createdAt}" is not an ISO 8601 time`, { hint: 'e.g. --created-at 2026-11-19T10:00:00Z, or --age 7d' });
    }
    body.createdAt = opts.createdAt;
  }
  if (opts.age !== undefined) body.ageSeconds = parseDurationSeconds(opts.age, { name: '--age', minSeconds: 0, maxSeconds: MAX_AGE_SECONDS });
  return body;
}

function parseCount(value: string): number {
  const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= MAX_BULK_RETURN_REQUESTS)) throw new UsageError(`--count: "${value}" is not a whole number from 1 to ${MAX_BULK_RETURN_REQUESTS}`);
  return n;
}

export async function run(opts: TriggerReturnRequestOptions, f: Factory): Promise<void> {
  const body = triggerBody(opts);
  const count = opts.count === undefined ? undefined : parseCount(opts.count);
  const serviceReceiptId = await resolveReceiptId(f, opts.serviceReceiptId);
  if (opts.companies !== undefined) return spreadReturnRequests(f, serviceReceiptId, body, parseCompanies(opts.companies), count);
  const api = await f.api();
  let item: QueueItem;
  try {
    if (count !== undefined) {
      const bulk = await api.request({ method: 'POST', path: '/sandbox/return-requests/bulk', body: { ...body, serviceReceiptId, count }, schema: BulkReturnRequestResult });
      if (f.io.json) return writeJson(f.io, bulk);
      println(f.io, bulk.requestIds.join('\n'));
      note(f.io, `${bulk.count} return requests for receipt ${bulk.serviceReceiptId} are PENDING (no RETURN_REQUESTED events); ${await whoSees(f, serviceReceiptId, 'them')}`);
      return;
    }
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
  note(f.io, `return request ${item.requestId} for receipt ${item.serviceReceiptId} is ${item.status}; ${await whoSees(f, serviceReceiptId, 'it')}`);
}

/**
 * The issuer of the receipt (the company it was sent for) and the command that finds its
 * requests, as far as this profile knows it: a receipt this profile did not issue (nor find
 * under a Grant) is in the queue of whoever did, which this profile may not see (a queue is
 * the issuing client application's, or its company's API key's), so no company is named.
 */
async function whoSees(f: Factory, serviceReceiptId: string, them: string): Promise<string> {
  const grant = await grantOfFound(f, 'receipts', [serviceReceiptId]);
  const issuedHere = grant !== undefined || (await (await f.ledger()).receipt(serviceReceiptId).catch(() => undefined)) !== undefined;
  if (!issuedHere) {
    return `this profile did not issue receipt ${serviceReceiptId}: the client application or API key that did sees ${them} with \`svc credit-note poll\` (the queue is the issuing caller's)`;
  }
  const named = await namedCompany(f, grant);
  const issuer = named === undefined ? 'the issuer' : `the issuer, ${companyLabel(named.entry)},`;
  return `${issuer} sees ${them} with \`${pollCommandFor(named)}\`${named?.ofMany ? ' (or --all-grants)' : ''}`;
}
