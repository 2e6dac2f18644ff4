// The flags that choose which return requests a list shows, shared by `poll`, its --watch
// and `triage`: --status/--all, --receipt (a serviceReceiptId or its prefix, or the
// receipt's document number), --customer (the email, phone or name the merchant gave with
// the receipt), --older-than/--newer-than, and on the decrypted request --reason and
// --refund. Each value is checked before anything is fetched (exit 2 naming the valid ones).
// What the queue item carries in clear becomes a QueueFilter (applied before decrypting); the rest is a test of the decrypted request.
import { KNOWN_REASON_CODES, QueueItemStatus, RefundPreference, type ReturnRequest } from '../contract/returns.js';
import { UsageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { parseDurationSeconds } from '../io/duration.js';
import { documentNumberNamed, documentNumberOf, knownReceipts, receiptNamed, receiptsOfCustomer } from '../receipts/receipt-id.js';
import { OPEN_STATUSES, type QueueFilter } from './filter.js';
import { MIN_PREFIX } from '../ids/prefix.js';

export interface QueueFilterFlags {
  /** Repeatable and comma-separated; default: the open statuses. */
  status?: string | string[] | undefined;
  all?: boolean | undefined;
  receipt?: string | undefined;
  customer?: string | undefined;
  olderThan?: string | undefined;
  newerThan?: string | undefined;
  reason?: string | undefined;
  refund?: string | undefined;
}

/** An item as a list holds it: decrypted, or not (--no-decrypt, or an unreadable one). */
export interface Selectable {
  serviceReceiptId: string;
  returnRequest?: ReturnRequest | undefined;
}

export interface QueueSelection {
  filter: QueueFilter;
  /** Tests of the decrypted request; undefined when there are none. */
  decrypted?: ((item: Selectable) => boolean) | undefined;
  /** Why nothing can be shown, known before fetching (a customer this ledger never sent a receipt to). */
  nothingBecause?: string | undefined;
}

/** The statuses, times, reason and refund, checked; no ledger is read. */
export function queueFilter(flags: QueueFilterFlags, now: number): QueueFilter {
  const given = (Array.isArray(flags.status) ? flags.status : flags.status === undefined ? [] : [flags.status])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim().toUpperCase())
    .filter((v) => v !== '');
  if (flags.all && given.length > 0) throw new UsageError('--all and --status exclude each other', { hint: '--all shows every status' });
  for (const value of given) {
    if (!QueueItemStatus.safeParse(value).success) {
      throw new UsageError(`--status ${value} is not a status of a return request`, { hint: `use one of ${QueueItemStatus.options.join(', ')}` });
    }
  }
  checkedCode('--reason', flags.reason, KNOWN_REASON_CODES, 'a reason code');
  checkedCode('--refund', flags.refund, RefundPreference.options, 'a refund preference');
  const statuses = flags.all ? undefined : given.length > 0 ? [...new Set(given)] : [...OPEN_STATUSES];
  const ago = (value: string | undefined, name: string) =>
    value === undefined ? undefined : new Date(now - parseDurationSeconds(value, { name, minSeconds: 0, maxSeconds: 3650 * 86_400 }) * 1000).toISOString();
  return { statuses, receipt: flags.receipt?.trim() || undefined, createdBefore: ago(flags.olderThan, '--older-than'), createdAfter: ago(flags.newerThan, '--newer-than') };
}

/**
 * The whole selection: queueFilter's, with --receipt and --customer resolved against this
 * profile's receipt records. A --receipt no record knows still matches a serviceReceiptId
 * prefix, or the document number in a decrypted request (receipts another machine issued).
 */
export async function queueSelection(f: Factory, flags: QueueFilterFlags, opts: { decrypt: boolean; acrossCompanies?: boolean }): Promise<QueueSelection> {
  const filter = queueFilter(flags, f.clock.now());
  const reason = flags.reason?.trim().toUpperCase();
  const refund = flags.refund?.trim().toUpperCase();
  const tests: ((item: Selectable) => boolean)[] = [];
  if (reason !== undefined) tests.push((i) => i.returnRequest?.lineItems.some((l) => l.reasonCode.toUpperCase() === reason) ?? false);
  if (refund !== undefined) tests.push((i) => i.returnRequest?.refundPreference === refund);
  if ((reason !== undefined || refund !== undefined) && !opts.decrypt) {
    throw new UsageError('--reason and --refund need the decrypted requests', { hint: 'drop --no-decrypt' });
  }
  let nothingBecause: string | undefined;
  const customer = flags.customer?.trim();
  if (flags.customer !== undefined && customer === '') throw new UsageError('--customer needs some of an email, phone number or name');
  const records = filter.receipt !== undefined || customer !== undefined ? await knownReceipts(f) : [];
  // A serviceReceiptId (or a prefix of one) names one receipt, in any company.
  const byId = filter.receipt !== undefined && records.some((r) => r.serviceReceiptId.startsWith(filter.receipt!));
  // Else a document number, exactly or by a unique prefix (exit 2 naming them when it starts several), as one Grant's poll takes it.
  const number = filter.receipt === undefined || byId ? undefined : documentNumberNamed(records, filter.receipt);
  const sameNumber = number === undefined ? [] : records.filter((r) => documentNumberOf(r) === number);
  if (number !== undefined && (sameNumber.length > 1 || (opts.acrossCompanies && opts.decrypt))) {
    // A document number is per company: on several receipts (of several companies), or in
    // the queues of many companies (where receipts this ledger never kept may carry it too),
    // it means every receipt with that number, one per company.
    const ids = new Set(sameNumber.map((r) => r.serviceReceiptId));
    filter.receipt = undefined;
    if (opts.decrypt) tests.push((i) => ids.has(i.serviceReceiptId) || i.returnRequest?.receiptId === number);
    else filter.receipts = [...ids];
  } else if (filter.receipt !== undefined) {
    const named = receiptNamed(records, filter.receipt);
    // No record here knows it: matched in the queue, as a prefix from 6 characters on, as
    // everywhere an ID is typed; fewer would be a guess (three hex digits name hundreds of
    // receipts), so they match only a whole serviceReceiptId or document number ("X-77").
    const given = filter.receipt;
    const matches = given.length < MIN_PREFIX ? (value: string | undefined) => value === given : (value: string | undefined) => value?.startsWith(given) ?? false;
    if (named !== undefined) {
      filter.receipts = [named.serviceReceiptId];
      filter.receipt = undefined;
    } else if (opts.decrypt) {
      filter.receipt = undefined;
      tests.push((i) => matches(i.serviceReceiptId) || matches(i.returnRequest?.receiptId));
    } else if (given.length < MIN_PREFIX) {
      filter.receipt = undefined;
      filter.receipts = [given];
    }
  }
  if (customer !== undefined) {
    const theirs = receiptsOfCustomer(records, customer).map((r) => r.serviceReceiptId);
    filter.receipts = filter.receipts === undefined ? theirs : filter.receipts.filter((id) => theirs.includes(id));
    if (theirs.length === 0) nothingBecause = `no receipt in this profile's records went to a customer matching "${customer}"`;
  }
  return { filter, decrypted: tests.length === 0 ? undefined : (item) => tests.every((t) => t(item)), nothingBecause };
}

function checkedCode(flag: string, value: string | undefined, valid: readonly string[], what: string): void {
  if (value === undefined) return;
  const code = value.trim().toUpperCase();
  if (!valid.includes(code)) throw new UsageError(`${flag} ${value} is not ${what}`, { hint: `use one of ${valid.join(', ')}` });
}
