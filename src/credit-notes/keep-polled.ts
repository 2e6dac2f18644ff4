// The "outstanding" queue for a team (docs/interface-decisions.md; docs/teams.md): a real
// service may list only PENDING requests, so every poll keeps the requests it lists, encrypted
// as the service sent them, in the shared ledger, and a colleague's `issue` or `complete`
// finds one the service has stopped listing. Only on a team database: the embedded ledger
// keeps a request when `show`, `accept` or `issue` first needs it, and a poll of thousands pays
// nothing for it. A plain poll keeps what it listed after showing it; --all-grants keeps every
// company's list in bounded batches (a statement per batch, never one per request); --watch
// keeps each refresh's list in the background, so a slow or absent database never holds up
// the screen, says on each refresh while what it listed is not kept, and ends exit 8 if some
// of it never was.
import { databaseUrlOf } from '../config/profile-dir.js';
import type { QueueItem } from '../contract/returns.js';
import { SvcError, type ExitCode } from '../errors.js';
import type { Factory } from '../factory.js';
import { counted } from '../io/plural.js';

/** Requests written by one statement: 20,000 requests of 10,000 companies are 20 round trips, each a few MB at most. */
export const KEEP_BATCH = 1000;

/** Whether a poll keeps what it lists: with a team database (SVC_DATABASE_URL or the profile's database-url). */
export async function keepsPolled(f: Factory): Promise<boolean> {
  return (await databaseUrlOf(f)) !== undefined;
}

/** The ledger could not keep what a poll listed (shown all the same): the ledger's own exit code. */
export class PolledNotKeptError extends SvcError {
  override readonly exitCode: ExitCode;
  constructor(message: string, cause: SvcError) {
    super(message, {
      cause,
      hint: cause.hint ?? 'the queue shown is the service\'s; poll again once the database answers (`svc db status`), so that `issue` and `complete` find a request the service stops listing',
    });
    this.exitCode = cause.exitCode;
  }
}

/**
 * Of the requests not kept, those shown, said as they are: a poll keeps every request the
 * service listed, and shows those its filters select (the open ones by default), so the two
 * counts differ. `state`: "not kept", "never kept"…; `verb`: the form of "be" for them; a
 * warning of a watch under way (`while: true`) says nothing of the shown when all were.
 */
function notKeptText(unkept: readonly QueueItem[], shown: ReadonlySet<string>, state: string, verb: string, opts: { while?: boolean } = {}): string {
  const seen = unkept.filter((item) => shown.has(item.requestId)).length;
  if (seen === unkept.length) return opts.while ? `${verb} ${state} in the team ledger` : `${verb} shown but ${state} in the team ledger`;
  const ofThem = seen === 0 ? (unkept.length === 1 ? 'not shown' : 'none of them shown') : `${seen} of them shown`;
  return `${verb} ${state} in the team ledger (${ofThem})`;
}

function notKept(unkept: readonly QueueItem[], of: number, shown: ReadonlySet<string>, error: SvcError): PolledNotKeptError {
  const what = unkept.length === of ? `${counted(of, 'request')} listed` : `${unkept.length} of ${counted(of, 'request')} listed`;
  return new PolledNotKeptError(`${what} ${notKeptText(unkept, shown, 'not kept', unkept.length === 1 ? 'was' : 'were')}: ${error.message}`, error);
}

/**
 * Keeps the listed items in the team ledger, KEEP_BATCH to a statement; call it after the
 * queue is shown, since what the service listed is true whether or not it could be kept. A
 * ledger that cannot be reached is then the command's error, saying how many were not kept
 * and how many of those were shown (`shown`: the request IDs shown); exit 8 for a database
 * that is down. The batches before the failure stay kept.
 */
export async function keepPolled(f: Factory, items: readonly QueueItem[], shown: ReadonlySet<string>): Promise<void> {
  if (items.length === 0) return;
  let kept = 0;
  try {
    const ledger = await f.ledger();
    for (; kept < items.length; kept += KEEP_BATCH) await ledger.rememberQueueItems(items.slice(kept, kept + KEEP_BATCH));
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    throw notKept(items.slice(kept), items.length, shown, error);
  }
}

/** The request IDs of `items`: what a poll showed, for keepPolled. */
export function idsOf(items: readonly QueueItem[]): Set<string> {
  return new Set(items.map((item) => item.requestId));
}

/** What a watch keeps with: each refresh hands over its list, and the screen never waits for the ledger. */
export interface PolledKeeper {
  /** Keeps this refresh's list in the background (after the write under way, if any); `shown`: the IDs this refresh shows of it. */
  keep(items: readonly QueueItem[], shown: readonly string[]): void;
  /** While something listed is not kept because the last write failed: what to say, else undefined. */
  warning(): string | undefined;
  /** At the end of the watch: writes what is left; PolledNotKeptError if some listed request was never kept. */
  finish(): Promise<void>;
}

/** A keeper for a watch on a team database; undefined without one (nothing to keep). */
export async function polledKeeper(f: Factory): Promise<PolledKeeper | undefined> {
  if (!(await keepsPolled(f))) return undefined;
  // Listed and not kept yet, each as last listed; a later list replaces an earlier sighting.
  const unkept = new Map<string, QueueItem>();
  // Of those, the ones a refresh showed (a watch's filters show fewer than the service lists).
  const shownUnkept = new Set<string>();
  let failure: SvcError | undefined;
  let writing: Promise<void> | undefined;
  const write = async (): Promise<void> => {
    while (unkept.size > 0) {
      const batch = [...unkept.values()];
      try {
        await keepPolled(f, batch, shownUnkept);
      } catch (error) {
        if (!(error instanceof PolledNotKeptError)) throw error;
        failure = error.cause as SvcError;
        // Tried again with the next refresh's list, not in a loop against a database that is down.
        return;
      }
      failure = undefined;
      // Whatever a refresh listed meanwhile is written next; what was written leaves the map unless listed again since.
      for (const item of batch) {
        if (unkept.get(item.requestId) !== item) continue;
        unkept.delete(item.requestId);
        shownUnkept.delete(item.requestId);
      }
    }
  };
  const start = () => {
    writing ??= write().finally(() => {
      writing = undefined;
    });
    return writing;
  };
  return {
    keep(items, shown) {
      for (const item of items) unkept.set(item.requestId, item);
      for (const id of shown) if (unkept.has(id)) shownUnkept.add(id);
      // A failure other than the ledger's is a bug: it ends the watch at finish(), not the process now.
      void start().catch((error: unknown) => {
        failure = error instanceof SvcError ? error : new SvcError(String(error instanceof Error ? error.message : error));
      });
    },
    warning() {
      if (failure === undefined || unkept.size === 0) return undefined;
      return `${counted(unkept.size, 'request')} listed ${notKeptText([...unkept.values()], shownUnkept, 'not kept', unkept.size === 1 ? 'is' : 'are', { while: true })}: ${failure.message}; trying again at the next refresh`;
    },
    async finish() {
      await writing?.catch(() => undefined);
      if (unkept.size > 0) await start().catch(() => undefined);
      if (unkept.size > 0 && failure !== undefined) {
        throw new PolledNotKeptError(`${counted(unkept.size, 'request')} the watch listed ${notKeptText([...unkept.values()], shownUnkept, 'never kept', unkept.size === 1 ? 'was' : 'were')}: ${failure.message}`, failure);
      }
    },
  };
}
