// `svc credit-note show [REQUEST_ID] [--reveal]`: one return request, decrypted, in full, and
// the decision under it (what `issue` would credit, or why not), all on stdout; --json adds
// it as `decision`, shaped like `issue --dry-run --json`. Bank
// details are masked to their last 4 characters unless --reveal, in --json output too. Without
// an ID a terminal offers the open requests to choose from.
import { isKnownReasonCode, type ReturnRequest } from '../../contract/returns.js';
import { partText } from '../../credit-notes/accepted-part.js';
import { age, maskedRequest } from '../../credit-notes/display.js';
import { pickRequestId } from '../../credit-notes/pick.js';
import { recordedName } from '../../credit-notes/summary.js';
import { reasonsKeptWhere, rejectedWhen } from '../../credit-notes/rejection.js';
import type { ReceiptRecord } from '../../contract/records.js';
import { readQueue } from '../../credit-notes/queue.js';
import { unreadableRequest } from '../../credit-notes/queue-read.js';
import { callerForRequests } from '../../credit-notes/request-grant.js';
import { companyNameOf } from '../../auth/caller.js';
import { findQueueItem } from '../../credit-notes/queue-cache.js';
import { loadKeyring } from '../../keys/keystore.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { println } from '../../io/streams.js';
import { wrapText } from '../../io/wrap.js';
import { localTime, zoneOf } from '../../io/time.js';

export interface ShowOptions {
  /** Undefined: chosen on a terminal. */
  requestId?: string | undefined;
  reveal: boolean;
}

export async function run(opts: ShowOptions, f: Factory): Promise<void> {
  const given = opts.requestId ?? (await pickRequestId(f, { command: 'credit-note show', usage: '[options] [request-id]', purpose: 'show', verb: 'show' }));
  const caller = await callerForRequests(f, [given]);
  // A unique prefix of the ID will do.
  const item = await findQueueItem(f, caller, given);
  const requestId = item.requestId;
  const [read] = await readQueue([item], await loadKeyring(f));
  if (read === undefined || read.returnRequest === undefined) {
    throw unreadableRequest(requestId, read?.decryptError ?? 'no result');
  }
  const request = opts.reveal ? read.returnRequest : maskedRequest(read.returnRequest);
  // The service takes no reason with a rejection: the ledger (this machine's, or the team's database) may have kept one.
  const ledger = await f.ledger();
  const rejection = f.io.json ? undefined : await ledger.rejection(requestId);
  // Nor a part with a partial acceptance: the ledger keeps it, for the team (docs/interface-decisions.md#partial-acceptance).
  const part = item.status === 'PARTIALLY_ACCEPTED' ? await ledger.acceptedPart(requestId) : undefined;
  // The decision: what `issue` would credit, or why it would not; on stdout, as the rest.
  const decision = await (await import('../../credit-notes/decision.js')).decisionOf(f, caller, requestId, [], item);
  // Who the receipt went to, as this profile's records have it (the service's request does not say).
  const record = await ledger.receipt(request.serviceReceiptId);
  const customer = record === undefined ? undefined : (Object.fromEntries(Object.entries(record.customer).filter(([, v]) => typeof v === 'string' && v !== '')) as Record<string, string>);
  writeRecord(
    f.io,
    [
      ['request', item.requestId],
      ['company', await companyNameOf(f, caller)],
      ['status', item.status],
      ...(rejection === undefined ? [] : [['reason', `${rejection.reason} (${rejectedWhen(rejection, zoneOf(f.env))}; kept ${await reasonsKeptWhere(f)})`] as [string, string]]),
      ...(item.status !== 'PARTIALLY_ACCEPTED'
        ? []
        : [['accepted part', part ? `${partText(part.items)} (recorded ${localTime(part.acceptedAt, zoneOf(f.env))}${part.acceptedBy ? ` by ${part.acceptedBy}` : ''})` : 'not recorded: `issue` asks for it, or name it with --item'] as [string, string]]),
      ['created', `${localTime(item.createdAt, zoneOf(f.env))} (${age(item.createdAt, f.clock.now())} ago)`],
      ['receipt', `${request.serviceReceiptId} (document ${request.receiptId})`],
      ['customer', customerText(record, customer)],
      ...refundFields(request),
      ...(request.customerNote === undefined ? [] : [['note', request.customerNote] as [string, string]]),
      ...lineFields(request, record),
    ],
    // The item as `poll --json` has it, so scripts read both alike.
    { ...item, returnRequest: request, ...(customer && Object.keys(customer).length > 0 ? { customer } : {}), ...(part ? { acceptedPart: part } : {}), decision: decision.json },
  );
  if (!f.io.json) println(f.io, `\n${f.io.stdoutIsTTY ? wrapText(decision.text, f.io.columns, { hang: '  ' }) : decision.text}`);
}

/** "Bob Builder <bob@example.com>", or how the customer was found when no details were given. */
function customerText(record: { lookup: { by: string; display: string } } | undefined, customer: Record<string, string> | undefined): string {
  if (record === undefined) return "not in this profile's records (the receipt was sent elsewhere)";
  const { name, email, phone } = customer ?? {};
  const contact = [email, phone].filter((v) => v !== undefined).join(', ');
  if (name !== undefined) return contact === '' ? name : `${name} <${contact}>`;
  if (contact !== '') return contact;
  return `${record.lookup.display} (found by ${record.lookup.by}; no customer details were given)`;
}

function refundFields(request: ReturnRequest): [string, string][] {
  const fields: [string, string][] = [['refund', `${request.refundPreference} (the customer's preference)`]];
  for (const [key, value] of Object.entries(request.refundBankAccount ?? {})) {
    if (value !== undefined && value !== null) fields.push([`  ${key}`, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  return fields;
}

/** "1 × Whole milk 3.5% 1 l (4001234567890) · DAMAGED": by name where this profile's record of the receipt knows it, as a confirmation names it; the ID as --item takes it. */
function lineFields(request: ReturnRequest, record: ReceiptRecord | undefined): [string, string][] {
  return request.lineItems.map((line, index) => {
    const reason = isKnownReasonCode(line.reasonCode) ? line.reasonCode : `${line.reasonCode} (unknown reason code)`;
    const description = line.reasonDescription ? ` · ${line.reasonDescription}` : '';
    const name = recordedName(record, line.productId);
    return [`line ${index + 1}`, `${line.quantity} × ${name === undefined ? line.productId : `${name} (${line.productId})`} · ${reason}${description}`];
  });
}
