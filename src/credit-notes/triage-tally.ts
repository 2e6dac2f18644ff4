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
  /** Passed over with nothing done. */
  skipped: string[];
  /** Walked through: every request the session reached, acted on or not. */
  seen: number;
}

export function emptyTally(total: number): Tally {
  return { total, accepted: [], partial: [], rejected: [], issued: [], completed: [], skipped: [], seen: 0 };
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
    ['skipped', `${tally.skipped.length}${list(tally.skipped.map(short))}`],
  ];
  const left = tally.total - tally.seen;
  if (left > 0) fields.push(['not reached', String(left)]);
  if (tally.rejected.length > 0) fields.push(['note', 'rejection reasons are kept on this machine only (the service takes none); `svc credit-note show` shows them']);
  return fields;
}
