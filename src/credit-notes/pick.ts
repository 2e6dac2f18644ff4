// A request ID left out: on a terminal, a list of the open requests the verb can move to
// choose from (the work a person is there to do, oldest first, as `poll` lists them), its question
// naming the company whose queue it is; anywhere else the usage error it always was,
// naming the argument and where its values come from. `triage` walks the same list.
import type { Caller } from '../api/caller.js';
import { companyNameOf, writeReceiptsCaller } from '../auth/caller.js';
import type { ReceiptRecord } from '../contract/records.js';
import { listReturnRequests } from '../api/credit-note.js';
import { loadKeyring } from '../keys/keystore.js';
import { CancelError, NotFoundError, UsageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { missingArgumentText } from '../help/arguments.js';
import { tableLines, type Column } from '../io/output.js';
import { canPrompt } from '../io/streams.js';
import { age } from './display.js';
import { OPEN_STATUSES, oldestFirst } from './filter.js';
import { namedCompany, pollCommandFor } from '../grants/company.js';
import { movableStatuses, verbCanMove, type QueueVerb } from './moves.js';
import { readQueue, type ReadItem } from './queue.js';
import { asked } from './summary.js';

/** The command a picker stands in for, for its question and for the error without a terminal. */
export interface PickFor {
  /** `credit-note accept` */
  command: string;
  /** Its arguments as `--help` shows them: `[request-id...]`. */
  usage: string;
  /** What the chosen request is for: "accept" in "Which return request to accept?". */
  purpose: string;
  /** Only the requests this verb can move are offered (src/credit-notes/moves.ts). */
  verb: QueueVerb;
  /** With `status`: the status to set. */
  target?: string;
}

/** Shortest prefix shown; `credit-note` commands take a prefix of 6+ characters, the table shows 8. */
const SHORT_ID = 8;

/**
 * The request a person chooses from the open ones. Without a terminal (or with --no-input
 * or CI) a UsageError (exit 2), before anything is fetched; Esc or Ctrl-C is a CancelError
 * (exit 3); an empty queue a NotFoundError (exit 6).
 */
export async function pickRequestId(f: Factory, what: PickFor): Promise<string> {
  if (!canPrompt(f.io)) {
    throw new UsageError(missingArgumentText('request-id'), {
      hint: `usage: svc ${what.command} ${what.usage}; on a terminal, leave it out to choose from the open requests`,
    });
  }
  const caller = await writeReceiptsCaller(f);
  const open = (await openRequests(f, caller)).filter((item) => verbCanMove(what.verb, item.status, what.target));
  // Whose queue this is: the default company's (or --grant's); of several, how to list another's.
  const named = caller.grantId === undefined ? undefined : await namedCompany(f, caller.grantId);
  const whose = await companyNameOf(f, caller);
  if (open.length === 0) {
    const statuses = movableStatuses(what.verb, what.target).filter((s) => (OPEN_STATUSES as readonly string[]).includes(s));
    throw new NotFoundError(`there are no return requests of ${whose} to ${what.purpose}: none is ${statuses.join(' or ')}`, {
      hint: `\`${pollCommandFor(named)} --all\` lists every request and its status${named?.ofMany ? '; another company\'s: add --grant NAME' : ''}`,
    });
  }
  const now = f.clock.now();
  const { labels, dropped } = await choiceLabels(open, now, f.io.columns, await receiptRecords(f, open));
  try {
    return await f.prompter().select({
      message: `Which return request of ${whose} to ${what.purpose}?${named?.ofMany ? ' (for another company, add --grant NAME)' : ''}${dropped.length > 0 ? ` (not shown: ${dropped.join(', ')})` : ''}`,
      flag: 'a request ID',
      choices: open.map((item, i) => ({ name: labels[i] ?? item.requestId, value: item.requestId, short: item.requestId })),
    });
  } catch (error) {
    if (error instanceof CancelError) throw new CancelError('cancelled: no request was chosen, nothing was changed');
    throw error;
  }
}

/**
 * The open requests (PENDING, ACCEPTED, PARTIALLY_ACCEPTED) the service lists, oldest first,
 * each decrypted or with the reason it cannot be; kept in the ledger as seen (docs/interface-decisions.md#outstanding-queue).
 */
export async function openRequests(f: Factory, caller: Caller): Promise<ReadItem[]> {
  const listed = await listReturnRequests(caller);
  const open = listed.filter((i) => (OPEN_STATUSES as readonly string[]).includes(i.status));
  open.sort(oldestFirst);
  await (await f.ledger()).rememberQueueItems(open);
  return readQueue(open, await loadKeyring(f));
}

/** This profile's records of the items' receipts, by serviceReceiptId: the names and amounts the labels show. */
async function receiptRecords(f: Factory, items: readonly ReadItem[]): Promise<Map<string, ReceiptRecord>> {
  const ledger = await f.ledger();
  const records = new Map<string, ReceiptRecord>();
  for (const id of new Set(items.map((i) => i.serviceReceiptId))) {
    const record = await ledger.receipt(id);
    if (record !== undefined) records.set(id, record);
  }
  return records;
}

/** A request as a row of the picker. */
interface ChoiceRow {
  id: string;
  status: string;
  age: string;
  receipt: string;
  asked: string;
  amount: string;
}

/** The picker's columns; the receipt's document number is the first to give way. */
const CHOICE_COLUMNS: readonly Column<ChoiceRow>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'STATUS', value: (r) => r.status },
  { header: 'AGE', value: (r) => r.age, align: 'right' },
  { header: 'RECEIPT', value: (r) => r.receipt, drop: 1 },
  { header: 'ASKED', value: (r) => r.asked, flex: true },
  { header: 'AMOUNT', value: (r) => r.amount, align: 'right' },
];

/**
 * One line per request, in columns fitted as every table is (tableLines): short ID, status,
 * age, the receipt's document number, what is asked back, by name where this profile's
 * record of the receipt knows the products (as a confirmation names them:
 * src/credit-notes/summary.ts), and about how much. The names give way first (cut with …),
 * the amount never: a column that does not fit whole is left out and named in `dropped`.
 * One line each (a wrapped line would break the list). Customer-supplied text is made printable first.
 */
export async function choiceLabels(items: readonly ReadItem[], now: number, columns: number, records: ReadonlyMap<string, ReceiptRecord> = new Map()): Promise<{ labels: string[]; dropped: string[] }> {
  const rows = items.map((item): ChoiceRow => {
    const request = item.returnRequest;
    const parts = request ? asked(request.lineItems, records.get(item.serviceReceiptId)) : undefined;
    return {
      id: item.requestId.slice(0, SHORT_ID),
      status: item.status,
      age: age(item.createdAt, now),
      receipt: request ? request.receiptId : '-',
      asked: parts ? parts.lines.join(', ') : `cannot read: ${item.decryptError ?? ''}`,
      amount: parts?.money.join(', ') ?? '',
    };
  });
  // The cursor and a space stand before each entry.
  const table = await tableLines({ color: false }, rows, CHOICE_COLUMNS, Math.max(20, columns - 3), undefined, false);
  // No blanks after a row whose amount is unknown (no record of the receipt).
  return { labels: table.rows.map((l) => l.trimEnd()), dropped: table.dropped };
}
