// A session that waits for a lock says for whom: after a second of waiting (a lock in svc is
// held for milliseconds), another connection asks PostgreSQL who blocks it
// (pg_blocking_pids, pg_stat_activity) and the waiter is told once, naming the holder's
// application_name ("svc HOST pid PID"), address and since when. If lock_timeout ends the
// wait, the error names the same holder.
import type { Pool, PoolClient } from 'pg';
import { describeLockHolder, lockHolders, type LockHolder } from './pool.js';

export interface LockWaitOptions {
  /** Called once per wait, with the line to show (on stderr). */
  onWait?: ((text: string) => void) | undefined;
  /** How long a query may run before the holders are looked up. */
  lookupAfterMs?: number;
}

export interface LockWaitWatch {
  /** The holder last seen blocking this client, if any. */
  holder(): LockHolder | undefined;
  stop(): void;
}

export function watchLockWait(pool: Pool, client: PoolClient, opts: LockWaitOptions): LockWaitWatch {
  const pid = (client as unknown as { processID?: number }).processID;
  let holder: LockHolder | undefined;
  let told = false;
  let timer: NodeJS.Timeout | undefined;
  const look = () => {
    timer = undefined;
    if (pid === undefined) return;
    void lockHolders(pool, pid).then((found) => {
      if (stopped) return;
      if (found[0] !== undefined) {
        holder = found[0];
        if (!told) {
          told = true;
          opts.onWait?.(`waiting for a lock in the team's database held by ${describeLockHolder(holder)}`);
        }
      }
      timer = setTimeout(look, 1_000);
      timer.unref();
    });
  };
  let stopped = false;
  timer = setTimeout(look, opts.lookupAfterMs ?? 1_000);
  timer.unref();
  return {
    holder: () => holder,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
