// CONTRACT §8 "Outstanding" queue, for a team (README "Working as a team"): a poll keeps the
// requests it lists, encrypted as the service sent them, in the shared ledger, so that a
// colleague's `issue` or `complete` finds a request the service has stopped listing. Only on a
// team database: the embedded ledger keeps a request when `show`, `accept` or `issue` first
// needs it, and a poll of thousands pays nothing for it.
import { databaseUrlOf } from '../config/profile-dir.js';
import type { QueueItem } from '../contract/returns.js';
import { SvcError, type ExitCode } from '../errors.js';
import type { Factory } from '../factory.js';
import { counted } from '../io/plural.js';

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
 * Keeps the listed items in the team ledger; call it after the queue is shown, since what the
 * service listed is true whether or not it could be kept. A ledger that cannot be reached is
 * then the command's error, saying what was not kept (exit 8 for a database that is down).
 */
export async function keepPolled(f: Factory, items: readonly QueueItem[]): Promise<void> {
  if (items.length === 0) return;
  try {
    await (await f.ledger()).rememberQueueItems(items);
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    throw new PolledNotKeptError(`${counted(items.length, 'request')} listed ${items.length === 1 ? 'was' : 'were'} shown but not kept in the team ledger: ${error.message}`, error);
  }
}
