// What a `triage` session did, request by request, and the summary it ends with.

export interface Tally {
  /** Open requests when the walk began. */
  total: number;
  accepted: string[];
  /** Accepted in part (PARTIALLY_ACCEPTED); not in `accepted`. */
  partial: string[];
  rejected: { requestId: string; reason: string }[];
  issued: { requestId: string; documentNumber: string; serviceReceiptId: string }[];
  /** Completed without a credit note (`c`). */
  completed: string[];
  /** Moved while on screen, but not by this walk's key (a colleague, another terminal): said apart. */
  elsewhere: string[];
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
  return { total, accepted: [], partial: [], rejected: [], issued: [], completed: [], elsewhere: [], reached: [] };
}

/** The requests reached with nothing done to them by this walk. */
export function skippedOf(tally: Tally): string[] {
  const done = new Set([...tally.accepted, ...tally.partial, ...tally.rejected.map((r) => r.requestId), ...tally.issued.map((i) => i.requestId), ...tally.completed, ...tally.elsewhere]);
  return tally.reached.filter((id) => !done.has(id));
}

const SHORT = 8;
const short = (requestId: string) => requestId.slice(0, SHORT);

/** The summary as `key  value` fields: counts, with the requests (and reasons, document numbers) behind them. */
export function summaryFields(tally: Tally): [string, string][] {
  const list = (items: readonly string[]) => (items.length === 0 ? '' : `: ${items.join(', ')}`);
  const fields: [string, string][] = [
    ['accepted', `${tally.accepted.length}${list(tally.accepted.map(short))}`],
    ['accepted in part', `${tally.partial.length}${list(tally.partial.map(short))}`],
    ['rejected', `${tally.rejected.length}${list(tally.rejected.map((r) => `${short(r.requestId)} ("${r.reason}")`))}`],
    ['issued', `${tally.issued.length}${list(tally.issued.map((i) => `${i.documentNumber} (request ${short(i.requestId)}, ${i.serviceReceiptId})`))}`],
    ...(tally.completed.length > 0 ? [['completed, no credit note', `${tally.completed.length}${list(tally.completed.map(short))}`] as [string, string]] : []),
    ...(tally.elsewhere.length > 0 ? [['changed elsewhere', `${tally.elsewhere.length}${list(tally.elsewhere.map(short))}`] as [string, string]] : []),
    ['skipped', `${skippedOf(tally).length}${list(skippedOf(tally).map(short))}`],
  ];
  const left = tally.total - tally.reached.length;
  if (left > 0) fields.push(['not reached', String(left)]);
  if (tally.unread !== undefined && tally.unread.companies.length > 0) {
    const { companies, total } = tally.unread;
    fields.push(['not read', `${companies.length} of ${total} companies, their requests not walked: ${companies.slice(0, 3).join(', ')}${companies.length > 3 ? ', …' : ''}`]);
  }
  if (tally.rejected.length > 0) fields.push(['note', 'rejection reasons are kept on this machine only (the service takes none); `svc credit-note show` shows them']);
  return fields;
}
