// What a `triage` session did, request by request, and the summary it ends with.

export interface Tally {
  /** Open requests when the walk began. */
  total: number;
  accepted: string[];
  /** Accepted in part (PARTIALLY_ACCEPTED); not in `accepted`. */
  partial: string[];
  rejected: { requestId: string; reason: string }[];
  /** Credit notes this walk's `i` issued (a submission it resumed included). */
  issued: { requestId: string; documentNumber: string; serviceReceiptId: string }[];
  /**
   * Completed by `i` on a credit note issued before, not by this walk (a colleague's on the
   * team's database, or an earlier run's): nothing was issued here.
   */
  credited: { requestId: string; documentNumber: string }[];
  /** Completed without a credit note (`c`). */
  completed: string[];
  /** Moved while on screen, but not by this walk's key (a colleague, another terminal): said apart. */
  elsewhere: string[];
  /**
   * Moves the service would not take for reasons of the company, not of the request (its Grant
   * revoked, no access, the service unreachable): the last such failure of each request not
   * decided since. They end the walk partly failed (exit 9).
   */
  failed: { requestId: string; message: string; error: unknown }[];
  /**
   * Every request the walk reached, in the order first reached, acted on or not. Those with
   * nothing done here (passed with `s` or `b`, or on screen at `q` or Esc) are the skipped:
   * worked out at the end, so that one skipped and then decided after `b` is counted once.
   */
  reached: string[];
  /** Over many companies: those whose queues could not be read, so none of their requests was walked. */
  unread?: { companies: readonly string[]; total: number } | undefined;
}

export function emptyTally(total: number): Tally {
  return { total, accepted: [], partial: [], rejected: [], issued: [], credited: [], completed: [], elsewhere: [], failed: [], reached: [] };
}

/**
 * Each request reached, once, by where it ended: issued, completed (on an earlier credit note,
 * or with none), rejected, accepted in part, accepted (a request accepted and then issued is issued, said as accepted first),
 * could not be moved, changed elsewhere, or skipped (nothing done to it).
 */
export function outcomesOf(tally: Tally): {
  accepted: string[];
  partial: string[];
  failed: Tally['failed'];
  elsewhere: string[];
  skipped: string[];
} {
  const closed = new Set([...tally.issued.map((i) => i.requestId), ...tally.credited.map((c) => c.requestId), ...tally.completed, ...tally.rejected.map((r) => r.requestId)]);
  const partial = tally.partial.filter((id) => !closed.has(id));
  const accepted = tally.accepted.filter((id) => !closed.has(id) && !partial.includes(id));
  const decided = new Set([...closed, ...partial, ...accepted]);
  const failed = tally.failed.filter((x) => !decided.has(x.requestId));
  const elsewhere = tally.elsewhere.filter((id) => !decided.has(id) && !failed.some((x) => x.requestId === id));
  const counted = new Set([...decided, ...failed.map((x) => x.requestId), ...elsewhere]);
  return { accepted, partial, failed, elsewhere, skipped: tally.reached.filter((id) => !counted.has(id)) };
}


const SHORT = 8;
const short = (requestId: string) => requestId.slice(0, SHORT);

/**
 * The summary as `key  value` fields: counts, with the requests (and reasons, document numbers)
 * behind them. `reasonsKept`: where the ledger keeps rejection reasons (src/credit-notes/rejection.ts reasonsKeptWhere).
 */
export function summaryFields(tally: Tally, reasonsKept: string): [string, string][] {
  const list = (items: readonly string[]) => (items.length === 0 ? '' : `: ${items.join(', ')}`);
  const ended = outcomesOf(tally);
  // How a closed one got there, when this walk accepted it first.
  const first = (requestId: string) => (tally.partial.includes(requestId) ? ', accepted in part first' : tally.accepted.includes(requestId) ? ', accepted first' : '');
  const fields: [string, string][] = [
    ['accepted', `${ended.accepted.length}${list(ended.accepted.map(short))}`],
    ['accepted in part', `${ended.partial.length}${list(ended.partial.map(short))}`],
    ['rejected', `${tally.rejected.length}${list(tally.rejected.map((r) => `${short(r.requestId)} ("${r.reason}")${first(r.requestId)}`))}`],
    ['issued', `${tally.issued.length}${list(tally.issued.map((i) => `${i.documentNumber} (request ${short(i.requestId)}${first(i.requestId)}, credit note ID ${i.serviceReceiptId})`))}`],
    ...(tally.credited.length > 0 ? [['completed, already credited', `${tally.credited.length}${list(tally.credited.map((c) => `${short(c.requestId)} (by ${c.documentNumber})`))}`] as [string, string]] : []),
    ...(tally.completed.length > 0 ? [['completed, no credit note', `${tally.completed.length}${list(tally.completed.map((id) => `${short(id)}${first(id) === '' ? '' : ` (${first(id).slice(2)})`}`))}`] as [string, string]] : []),
    ...(ended.failed.length > 0 ? [['could not be moved', `${ended.failed.length}${list(ended.failed.map((x) => `${short(x.requestId)} (${x.message})`))}`] as [string, string]] : []),
    ...(ended.elsewhere.length > 0 ? [['changed elsewhere', `${ended.elsewhere.length}${list(ended.elsewhere.map(short))}`] as [string, string]] : []),
    ['skipped', `${ended.skipped.length}${list(ended.skipped.map(short))}`],
  ];
  const left = tally.total - tally.reached.length;
  if (left > 0) fields.push(['not reached', String(left)]);
  if (tally.unread !== undefined && tally.unread.companies.length > 0) {
    const { companies, total } = tally.unread;
    fields.push(['not read', `${companies.length} of ${total} companies, their requests not walked: ${companies.slice(0, 3).join(', ')}${companies.length > 3 ? ', …' : ''}`]);
  }
  if (tally.rejected.length > 0) fields.push(['note', `rejection reasons are kept ${reasonsKept} (the service takes none); \`svc credit-note show\` shows them`]);
  return fields;
}
