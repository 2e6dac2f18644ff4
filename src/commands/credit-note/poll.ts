// `svc credit-note poll [--status S] [--watch] [--interval SECONDS] [--no-decrypt]`: the
// return request queue, each request decrypted with whichever of the profile's keys (current
// or historical) it was encrypted for. With --watch the queue is fetched again and again:
// a terminal shows the table redrawn in place, anything else gets only the changes, one
// line (or JSON object) each, so the output can feed a script.
import type { Caller } from '../../api/caller.js';
import { writeReceiptsCaller } from '../../auth/caller.js';
import { listReturnRequests, streamReturnRequests } from '../../api/credit-note.js';
import type { QueueItem, ReturnRequest } from '../../contract/returns.js';
import { age, itemsSummary } from '../../credit-notes/display.js';
import { maskedItem, readQueue, readQueueStream, type ReadItem } from '../../credit-notes/queue.js';
import type { KeyringEntry } from '../../crypto/hybrid.js';
import { loadKeyring } from '../../keys/keystore.js';
import { howToGetAKey } from '../../keys/registered.js';
import { ExitCode, UsageError, exitCodeOf } from '../../errors.js';
import { parseLimit } from '../../io/count.js';
import { parseDurationSeconds } from '../../io/duration.js';
import { matchesFilter, oldestFirst, type QueueFilter } from '../../credit-notes/filter.js';
import { queueFilter, queueSelection, type QueueFilterFlags } from '../../credit-notes/queue-flags.js';
export { queueFilter };
import { rememberPolled, rememberPolledJson } from '../../credit-notes/request-grant.js';
import { idsOf, keepPolled, keepsPolled, polledKeeper, type PolledKeeper } from '../../credit-notes/keep-polled.js';
import type { Factory } from '../../factory.js';
import { jsonText, oneLine, writeJsonArray, writeJsonArrayText, writeList, type Column, type Tone } from '../../io/output.js';
import { canPrompt, note, println } from '../../io/streams.js';
import { clockTime, zoneOf } from '../../io/time.js';
import { holdTerminal } from '../../io/terminal-keys.js';
import { fansOut, type FanOutFlags } from '../../grants/fan-out.js';
import { counted } from '../../io/plural.js';
import { documentNumberOf, knownReceipts, receiptsOfCustomer } from '../../receipts/receipt-id.js';
import type { ReceiptRecord } from '../../contract/records.js';

/** The queue's filters (src/credit-notes/queue-flags.ts), its order, and the fan-out's flags. */
export interface PollOptions extends FanOutFlags, QueueFilterFlags {
  sort?: string | undefined;
  reverse?: boolean | undefined;
  limit?: string | undefined;
  watch?: boolean | undefined;
  /** Seconds, as typed. */
  interval: string;
  /** false with --no-decrypt */
  decrypt: boolean;
}

/** A queue item as shown: decrypted (or with its error) unless --no-decrypt. */
export type PolledItem = QueueItem & { returnRequest?: ReturnRequest; decryptError?: string };

/** What --watch waits with; tests replace both. */
export interface WatchDeps {
  /** Ends the watch; default: SIGINT. */
  signal?: AbortSignal;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const MIN_INTERVAL_SECONDS = 1;
const CLEAR_SCREEN = '\x1b[H\x1b[2J';
const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[?25l';
const LEAVE_ALT_SCREEN = '\x1b[?25h\x1b[?1049l';

export function run(opts: PollOptions, f: Factory): Promise<void> {
  return poll(opts, f);
}

export async function poll(opts: PollOptions, f: Factory, deps: WatchDeps = {}): Promise<void> {
  // Every flag is checked before anything is fetched.
  queueFilter(opts, f.clock.now());
  if (fansOut(opts)) return (await import('./poll-all.js')).pollAll(opts, f, deps);
  const intervalMs = opts.watch ? intervalOf(opts.interval) : 0;
  const arrange = arrangement(opts);
  const [caller, keys] = await Promise.all([writeReceiptsCaller(f), opts.decrypt ? loadKeyring(f) : undefined]);
  // After the login is known to be there: without one, that is the thing to fix first.
  if (keys?.length === 0) note(f.io, `warning: this profile has no private keys, so no request can be decrypted; ${await howToGetAKey(f)}`);
  const selection = await queueSelection(f, opts, { decrypt: keys !== undefined });
  if (selection.nothingBecause !== undefined) note(f.io, selection.nothingBecause);
  const status = selection.filter;
  arrange.select(selection.decrypted);
  if (opts.watch) return watch(f, { fetchQueue: queueReader(caller, keys, status, arrange), intervalMs, decrypt: opts.decrypt, deps, selected: status?.statuses, keeper: await polledKeeper(f) });
  if (keys === undefined) {
    const all = await listReturnRequests(caller);
    await rememberPolled(f, caller, all, true);
    const viewed = all.filter((i) => matchesFilter(i, status));
    const shown = arrange(viewed);
    if (f.io.json) await writeJsonArray(f.io, shown);
    else await writeList(f.io, shown, columns(f, false), shown, { footer: footerOf(shown, arrange.selectedOf(viewed), f.clock.now(), status?.statuses) });
    return keepPolledOnTeam(f, all, shown);
  }
  // A team's ledger keeps the items as listed, so they are fetched whole rather than streamed.
  const keep = await keepsPolled(f);
  if (arrange.active || keep) {
    // Sorting, limiting or filtering by what is encrypted needs every shown item read first.
    const all = await listReturnRequests(caller);
    await rememberPolled(f, caller, all, true);
    const read = (await readQueue(all.filter((i) => matchesFilter(i, status)), keys)).map(maskedItem);
    const shown = arrange(read);
    if (f.io.json) await writeJsonArray(f.io, shown);
    else {
      await writeList(f.io, shown, columns(f, true), shown, { footer: footerOf(shown, arrange.selectedOf(read), f.clock.now(), status?.statuses) });
      reportUnreadable(f, read.filter((i) => i.decryptError !== undefined).length, read.length);
    }
    if (keep) await keepPolled(f, all, idsOf(shown));
    return;
  }
  // Read while it downloads: a queue of thousands is decrypted on every core meanwhile.
  // Bank details are masked in every list, --json too: the full IBAN is `show --reveal`'s.
  const read = await streamReturnRequests(caller, (response) => readQueueStream(response, keys, { filter: status, asJson: f.io.json, masked: true }));
  if (f.io.json) {
    await rememberPolledJson(f, caller, read.requestIds);
    return writeJsonArrayText(f.io, read.json);
  }
  await rememberPolled(f, caller, read.items, status === undefined);
  await writeList(f.io, read.items, columns(f, true), read.items, { footer: footerOf(read.items, read.items, f.clock.now(), status?.statuses) });
  reportUnreadable(f, read.unreadable, read.shown);
}

/** Keeps what a poll listed when the ledger is a team's (src/credit-notes/keep-polled.ts); `shown`: what it showed of it. */
async function keepPolledOnTeam(f: Factory, all: readonly QueueItem[], shown: readonly QueueItem[]): Promise<void> {
  if (await keepsPolled(f)) await keepPolled(f, all, idsOf(shown));
}

/** The longest pause between polls: a day. */
const MAX_INTERVAL_SECONDS = 86_400;

function intervalOf(value: string): number {
  return Math.round(parseDurationSeconds(value, { name: '--interval', minSeconds: MIN_INTERVAL_SECONDS, maxSeconds: MAX_INTERVAL_SECONDS, fractions: true }) * 1000);
}

export interface Polled {
  /** Every item of the queue, for the status changes --watch reports. */
  all: QueueItem[];
  /** The items as the service listed them, when `all` carries more (a company's Grant): what a team's ledger keeps. */
  listed?: readonly QueueItem[];
  /** The items of the --status (and the other filters on what is in clear) asked for: what the count line describes. */
  viewed: QueueItem[];
  /** Those shown (after --reason, --refund, --limit…), decrypted unless --no-decrypt. */
  shown: PolledItem[];
  /** Over many companies: those this round could not read, in a line (grants/report.ts unreadLine). */
  unread?: string | undefined;
}

/**
 * Fetches the queue and decrypts only the items to be shown, each once: a request's
 * ciphertext never changes, so --watch decrypts only the items it has not seen yet.
 */
function queueReader(caller: Caller, keys: KeyringEntry[] | undefined, filter: QueueFilter, arrange?: Arrangement): () => Promise<Polled> {
  const read = new Map<string, Pick<ReadItem, 'returnRequest' | 'decryptError'>>();
  return async () => {
    const all = await listReturnRequests(caller);
    const shown = all.filter((i) => matchesFilter(i, filter));
    if (keys === undefined) return { all, viewed: arrange?.selectedOf(shown) ?? shown, shown: arrange ? arrange(shown) : shown };
    const fresh = (await readQueue(shown.filter((i) => !read.has(i.requestId)), keys)).map(maskedItem);
    for (const item of fresh) {
      read.set(item.requestId, item.decryptError === undefined ? { returnRequest: item.returnRequest } : { decryptError: item.decryptError });
    }
    const merged = shown.map((item) => ({ ...item, ...read.get(item.requestId) }));
    return { all, viewed: arrange?.selectedOf(merged) ?? merged, shown: arrange ? arrange(merged) : merged };
  };
}

export function columns(f: Factory, decrypted: boolean): Column<PolledItem>[] {
  const now = f.clock.now();
  const base: Column<PolledItem>[] = [
    { header: 'REQUEST ID', value: (i) => i.requestId, id: true },
    // On a terminal, what the customer reads out: the receipt's document number in the request
    // (else its serviceReceiptId); piped rows keep the serviceReceiptId scripts already read.
    f.io.stdoutIsTTY
      ? { header: 'RECEIPT', value: shownReceipt, drop: 1 }
      : { header: 'RECEIPT', value: (i) => i.serviceReceiptId, id: true, drop: 1 },
    // STATUS and AGE decide: on a narrow terminal they are the last left out (after RECEIPT, Column.drop).
    { header: 'STATUS', value: (i) => i.status, tone: statusTone },
    { header: 'AGE', value: (i) => age(i.createdAt, now), align: 'right' },
  ];
  if (!decrypted) return base;
  return [
    ...base,
    // On a narrow terminal the refund preference is left out first, then the items, the note,
    // the receipt, and only then the age and the status (Column.drop).
    { header: 'ITEMS', value: (i) => (i.returnRequest ? itemsSummary(i.returnRequest) : '-'), drop: 3 },
    { header: 'REFUND', value: (i) => i.returnRequest?.refundPreference ?? '-', drop: 4 },
    // An unreadable request shows why in full: the reason is what the merchant acts on.
    // Whole here: a terminal cuts it to fit, a pipe gets it all (tabs and line breaks escaped).
    {
      header: 'NOTE',
      value: (i) => (i.decryptError === undefined ? (i.returnRequest?.customerNote ?? '') : `error: ${i.decryptError}`),
      flex: true,
      drop: 2,
    },
  ];
}

const SORT_KEYS = ['created', 'age', 'status', 'receipt'] as const;
// Made when --sort receipt first compares: a collator loads ICU data that other polls never need.
let natural: Intl.Collator | undefined;
const NATURAL = { compare: (a: string, b: string) => (natural ??= new Intl.Collator('en', { numeric: true })).compare(a, b) };
/** The receipt as a person reads it: its document number, else its serviceReceiptId. */
const shownReceipt = (i: PolledItem) => i.returnRequest?.receiptId ?? i.serviceReceiptId;
const STATUS_ORDER = ['PENDING', 'ACCEPTED', 'PARTIALLY_ACCEPTED', 'COMPLETED', 'REJECTED', 'CANCELLED'];

/**
 * The tests of the decrypted request (queue-flags.ts, through `select`), --sort
 * created|age|status|receipt, --reverse and --limit N, applied in that order; `active` when any was given.
 */
export type Arrangement = ((items: PolledItem[]) => PolledItem[]) & {
  active: boolean;
  select(test: ((item: PolledItem) => boolean) | undefined): void;
  /** The items the selection keeps, before --limit: what the count line counts. */
  selectedOf<T extends PolledItem>(items: T[]): T[];
};

export function arrangement(opts: Pick<PollOptions, 'sort' | 'reverse' | 'limit'>, companyOf?: (item: PolledItem) => string): Arrangement {
  const sort = opts.sort?.trim().toLowerCase();
  if (sort !== undefined && !(SORT_KEYS as readonly string[]).includes(sort)) throw new UsageError(`--sort ${opts.sort} is not one of ${SORT_KEYS.join(', ')}`);
  const limit = opts.limit === undefined ? undefined : parseLimit(opts.limit);
  let selected: ((item: PolledItem) => boolean) | undefined;
  const compare = (a: PolledItem, b: PolledItem): number => {
    switch (sort) {
      case 'created':
        return oldestFirst(a, b);
      case 'age':
        return oldestFirst(b, a);
      case 'status':
        return STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) || oldestFirst(a, b);
      case 'receipt':
        // What the table shows: the company (of many), then the document number in natural order (R-2 before R-10).
        return (companyOf === undefined ? 0 : NATURAL.compare(companyOf(a), companyOf(b))) || NATURAL.compare(shownReceipt(a), shownReceipt(b)) || oldestFirst(a, b);
      default:
        return 0;
    }
  };
  const apply = (items: PolledItem[]) => {
    let out = selected === undefined ? items : items.filter(selected);
    // Oldest first unless --sort says otherwise: one company's queue comes so from the service,
    // the queues of many are merged company after company, so --limit N takes the N oldest.
    out = [...out].sort(sort === undefined ? oldestFirst : compare);
    if (opts.reverse) out = [...out].reverse();
    return limit === undefined ? out : out.slice(0, limit);
  };
  const arranged = Object.assign(apply, {
    active: [opts.sort, opts.limit].some((v) => v !== undefined) || Boolean(opts.reverse),
    // Tests of the decrypted request (--reason, --refund, a document number): every item is read first.
    select(test: ((item: PolledItem) => boolean) | undefined) {
      selected = test;
      if (test !== undefined) arranged.active = true;
    },
    selectedOf: <T extends PolledItem>(items: T[]): T[] => (selected === undefined ? items : items.filter(selected)),
  });
  return arranged;
}

/** Statuses by meaning: open work stands out, closed work recedes. */
function statusTone(status: string): Tone | undefined {
  if (status === 'PENDING') return 'yellow';
  if (status === 'ACCEPTED' || status === 'PARTIALLY_ACCEPTED') return 'cyan';
  if (status === 'COMPLETED') return 'green';
  if (status === 'REJECTED') return 'red';
  return 'dim';
}

const STATUS_WORDS: Readonly<Record<string, string>> = {
  PENDING: 'pending',
  ACCEPTED: 'accepted',
  PARTIALLY_ACCEPTED: 'partially accepted',
  COMPLETED: 'completed',
  REJECTED: 'rejected',
  CANCELLED: 'cancelled',
};

/**
 * The count line under the table, of the queue as selected (`viewed`: the statuses and the
 * filters on what is in clear) and of the view: "3 of 28 shown · 15 pending · 7 accepted ·
 * oldest 7d" (gh: "Showing 3 of 28"); "28 requests · …" when every one is shown. `selected`:
 * the statuses the view selects (undefined: any), so that "0 pending" is said only where it could be more.
 */
export function footerOf(shown: readonly QueueItem[], viewed: readonly QueueItem[], now: number, selected?: readonly string[]): string {
  const head = shown.length === viewed.length ? counted(viewed.length, 'request') : `${shown.length} of ${viewed.length} shown`;
  const byStatus = new Map<string, number>();
  for (const item of viewed) byStatus.set(item.status, (byStatus.get(item.status) ?? 0) + 1);
  const statuses = [...STATUS_ORDER, ...[...byStatus.keys()].filter((s) => !STATUS_ORDER.includes(s))];
  const counts = statuses.flatMap((s) => {
    const n = byStatus.get(s) ?? 0;
    // "0 pending" is news only where pending requests could be (not under --status ACCEPTED).
    const pendingInView = s === 'PENDING' && (selected === undefined || selected.includes('PENDING'));
    return n > 0 || pendingInView ? [`${n} ${STATUS_WORDS[s] ?? s.toLowerCase()}`] : [];
  });
  const oldest = viewed.reduce<string | undefined>((o, i) => (o === undefined || i.createdAt < o ? i.createdAt : o), undefined);
  return [head, ...counts, ...(oldest ? [`oldest ${age(oldest, now)}`] : [])].join(' · ');
}

export function reportUnreadable(f: Factory, failed: number, of: number): void {
  if (failed > 0) note(f.io, `${failed} of ${counted(of, 'request')} could not be read; see \`svc keys list\` for the keys this profile holds`);
}

export interface WatchParts {
  fetchQueue: () => Promise<Polled>;
  /** Columns before the queue's own (COMPANY over several Grants). */
  leading?: Column<PolledItem>[];
  intervalMs: number;
  decrypt: boolean;
  deps: WatchDeps;
  /** The statuses the view selects (footerOf): the count line of every refresh is the plain poll's. */
  selected?: readonly string[] | undefined;
  /** On a team database: keeps each refresh's list in the shared ledger, in the background. */
  keeper?: PolledKeeper | undefined;
}

/** One refresh of a watch, its list handed to the team ledger's keeper (which never holds the refresh up). */
async function fetchKept(parts: WatchParts): Promise<Polled> {
  const polled = await parts.fetchQueue();
  parts.keeper?.keep(polled.listed ?? polled.all, polled.shown.map((item) => item.requestId));
  return polled;
}

export async function watch(f: Factory, parts: WatchParts): Promise<void> {
  const { intervalMs, decrypt, deps } = parts;
  const controller = new AbortController();
  const stop = () => controller.abort();
  // Ctrl-C ends the watch like the end of the list: the command returns, nothing exits.
  const interrupt = deps.signal ? undefined : f.stopSignal();
  if (deps.signal?.aborted) stop();
  else if (deps.signal) deps.signal.addEventListener('abort', stop, { once: true });
  else void interrupt?.stopped.then(stop);
  const signal = controller.signal;
  const sleep = deps.sleep ?? sleepUnlessAborted;
  const redraw = f.io.stdoutIsTTY && !f.io.json;
  let statuses: Map<string, string> | undefined;
  let shownBefore: Map<string, PolledItem> | undefined;
  let last: Polled | undefined;
  const keysHeld = redraw && f.io.stdinIsTTY;
  // Keys on a terminal: the queue screen (a cursor, a filter, decisions on the selected rows).
  if (keysHeld) {
    try {
      await queueScreen(f, parts, signal);
    } finally {
      deps.signal?.removeEventListener('abort', stop);
      interrupt?.dispose();
    }
    return parts.keeper?.finish();
  }
  const cols = () => [...(parts.leading ?? []), ...columns(f, decrypt)];
  // One draw at a time: a resize while a refresh draws waits for it.
  let drawing = Promise.resolve();
  const draw = (polled: Polled, before: Map<string, string> | undefined) => {
    drawing = drawing.then(() => redrawTable(f, polled, before, cols(), intervalMs, keysHeld, parts.selected));
    return drawing;
  };
  // A terminal watches on the alternate screen: a fixed header, no copies in the scrollback,
  // and the normal screen back as it was when it ends. q or Esc leaves; keys are not echoed;
  // a resize draws the table again at the new width.
  if (redraw) f.io.stdout.write(ENTER_ALT_SCREEN);
  let lastStatuses: Map<string, string> | undefined;
  const held = redraw
    ? holdTerminal(f.io, {
        key: (key) => {
          if (key === 'q' || key === 'Q' || key === 'escape' || key === 'ctrl-c') stop();
        },
        resize: () => {
          if (last !== undefined) void draw(last, lastStatuses);
        },
      })
    : undefined;
  try {
    while (!signal.aborted) {
      let polled: Polled | undefined;
      try {
        polled = await fetchKept(parts);
      } catch (error) {
        // The service may be restarting: a watch outlives that, anything else ends it.
        if (exitCodeOf(error) !== ExitCode.unavailable) throw error;
        note(f.io, `warning: ${(error as Error).message}; trying again in ${intervalMs / 1000} s`);
      }
      if (polled !== undefined && !signal.aborted) {
        if (redraw) {
          [last, lastStatuses] = [polled, statuses];
          await draw(polled, statuses);
        } else writeChanges(f, polled, statuses, shownBefore, cols());
        statuses = new Map(polled.all.map((i) => [i.requestId, i.status]));
        shownBefore = new Map(polled.shown.map((i) => [i.requestId, i]));
        // What an earlier refresh listed and the team ledger has not kept (the write runs behind the refresh).
        const unkept = parts.keeper?.warning();
        if (unkept !== undefined) note(f.io, `warning: ${unkept}`);
      }
      if (!signal.aborted) await sleep(intervalMs, signal);
    }
  } finally {
    held?.dispose();
    await drawing;
    if (redraw) f.io.stdout.write(LEAVE_ALT_SCREEN);
    deps.signal?.removeEventListener('abort', stop);
    interrupt?.dispose();
  }
  await parts.keeper?.finish();
}

/**
 * `poll --watch` with a terminal on stdin and stdout: the queue screen (src/queue-screen/),
 * each decision through the single commands (screen-decisions.ts); decisions only where a
 * person may be asked (not --no-input).
 */
async function queueScreen(f: Factory, parts: WatchParts, signal: AbortSignal): Promise<void> {
  const [{ runQueueScreen }, { screenDecisions }] = await Promise.all([import('../../queue-screen/screen.js'), import('./screen-decisions.js')]);
  let before: Map<string, string> | undefined;
  // This profile's receipt records, read again with each refresh: `/` finds a request by its customer as --customer does.
  let records = new Map<string, ReceiptRecord>();
  return runQueueScreen<PolledItem>({
    io: f.io,
    async fetch() {
      const polled = await fetchKept(parts);
      // A ledger that cannot be read (a team database down) only leaves `/` without customers:
      // the queue is still shown, and the keeper says what was not kept.
      records = await knownReceipts(f).then((known) => new Map(known.map((r) => [r.serviceReceiptId, r])), () => records);
      const previous = before;
      before = new Map(polled.all.map((i) => [i.requestId, i.status]));
      return {
        rows: polled.shown,
        footer: () => footerOf(polled.shown, polled.viewed, f.clock.now(), parts.selected),
        // New or changed since the refresh before (none on the first).
        changed: (row) => previous !== undefined && previous.get(row.requestId) !== row.status,
        // Companies not read this round first: their requests are missing from what is shown.
        warning: polled.unread ?? parts.keeper?.warning(),
      };
    },
    columns: () => [...(parts.leading ?? []), ...columns(f, parts.decrypt)],
    intervalMs: parts.intervalMs,
    clockTime: () => clockTime(new Date(f.clock.now()).toISOString(), zoneOf(f.env)),
    signal,
    decisions: screenDecisions(f),
    canDecide: canPrompt(f.io),
    matches: (row) => {
      const record = records.get(row.serviceReceiptId);
      if (record === undefined) return undefined;
      return (needle) => receiptsOfCustomer([record], needle).length > 0 || documentNumberOf(record).toLowerCase().includes(needle);
    },
  });
}

/** One refresh: the table from the top, rows new or changed since the last refresh highlighted, the footer with the time. */
async function redrawTable(f: Factory, polled: Polled, statuses: Map<string, string> | undefined, cols: Column<PolledItem>[], intervalMs: number, keysHeld: boolean, selected: readonly string[] | undefined): Promise<void> {
  const leave = keysHeld ? 'q to leave' : 'Ctrl-C to stop';
  const items = polled.shown;
  const rows = (f.io.stdout as { rows?: number }).rows ?? 24;
  const at = clockTime(new Date(f.clock.now()).toISOString(), zoneOf(f.env));
  f.io.stdout.write(CLEAR_SCREEN);
  await writeList(f.io, items, cols, items, {
    footer: `${footerOf(items, polled.viewed, f.clock.now(), selected)} · updated ${at} · every ${intervalMs / 1000} s · ${leave}`,
    highlight: (item) => statuses !== undefined && statuses.get(item.requestId) !== item.status,
    // The header, the rows, the "more" line and the footer on one screen.
    maxRows: Math.max(1, rows - 3),
    moreHow: 'narrow it with --status, --receipt or --limit',
  });
  if (items.length === 0) f.io.stdout.write(`nothing to show · updated ${at} · ${leave}\n`);
  // Said on stderr before the screen was cleared: said again where it stays.
  if (polled.unread !== undefined) f.io.stdout.write(`warning: ${polled.unread}\n`);
}

/** New items and status changes since the last poll; on the first poll every item is new. */
function writeChanges(f: Factory, polled: Polled, statuses: Map<string, string> | undefined, shownBefore: Map<string, PolledItem> | undefined, cols: Column<PolledItem>[]): void {
  for (const item of polled.shown) {
    const previous = statuses?.get(item.requestId);
    // Back in the view with the same status (a filter's edge): new to the view all the same.
    if (previous === item.status && (shownBefore === undefined || shownBefore.has(item.requestId))) continue;
    const change = previous === undefined || previous === item.status ? 'new' : 'status';
    if (f.io.json) {
      const line = change === 'new' ? { change, ...item } : { change, previousStatus: previous, ...item };
      f.io.stdout.write(`${jsonText(line)}\n`);
    } else {
      const cells = cols.map((c) => oneLine(c.value(item)));
      println(f.io, [change, ...cells, ...(change === 'new' ? [] : [`was ${previous}`])].join('\t'));
    }
  }
  // A request that left the view (rejected, completed, cancelled, gone, or filtered out):
  // said once, as it was last shown, with its status now (kubectl get -w: DELETED).
  const now = new Set(polled.shown.map((i) => i.requestId));
  const current = new Map(polled.all.map((i) => [i.requestId, i.status]));
  for (const [requestId, item] of shownBefore ?? []) {
    if (now.has(requestId)) continue;
    const status = current.get(requestId) ?? null;
    if (f.io.json) {
      f.io.stdout.write(`${jsonText({ change: 'deleted', ...item, currentStatus: status })}\n`);
    } else {
      const cells = cols.map((c) => oneLine(c.value(item)));
      println(f.io, ['deleted', ...cells, status === null ? 'no longer listed' : `now ${status}`].join('\t'));
    }
  }
}

function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
