// A listener's claims on the shared journal's deliveries, kept so that no two live listeners
// ever process one delivery:
//
// - renewed while held: every quarter of the lease one UPDATE extends all of this listener's
//   unprocessed claims (a heartbeat), so a delivery waiting behind a slow app stays claimed
//   however long it waits; one that another listener took over (this one was cut off for
//   longer than the lease) is dropped here, never processed.
// - processed only under a fresh claim: `admit` lets a delivery through only when its claim
//   was renewed less than half a lease ago (by this machine's clock, from when the
//   renewal was sent), so it cannot have run out on the database meanwhile.
// - outcomes recorded by the claimant only (claimed_by = this listener), many per UPDATE,
//   retried until they are recorded; the deliveries stay claimed (and renewed) until then.
// - paused while the database cannot be written: a renewal or an outcome that fails stops
//   admitting deliveries (said once on stderr) until a renewal gets through again, instead
//   of processing what could not be recorded and processing it again later.
import type { QueryResult } from 'pg';
import type { ProcessedOutcome } from './journal.js';

export interface ClaimKeeperOptions {
  /** claimed_by of this listener. */
  me: string;
  claimSeconds: number;
  query(sql: string, params: unknown[]): Promise<QueryResult>;
  /** A line for stderr: paused, resumed. */
  note(text: string): void;
  now?: () => number;
}

export interface ClaimKeeper {
  /** Deliveries this listener has just claimed (inserted or taken over), with when the claiming statement was sent. */
  hold(ids: Iterable<string>, claimedAt: number): void;
  /** The deliveries this listener has in hand (claimed, not yet recorded). */
  held(): string[];
  /** Resolves true once the delivery may be processed here, false if another listener has it; waits while paused. */
  admit(id: string): Promise<boolean>;
  /** Records the outcome (retried until it is); resolves once it is recorded. */
  finish(id: string, outcome: ProcessedOutcome): Promise<void>;
  /** Stops renewing; records what it can of the outcomes in hand, rejecting the rest. */
  stop(): Promise<void>;
}

interface Pending {
  outcome: ProcessedOutcome;
  done: { resolve(): void; reject(error: unknown): void };
}

export function createClaimKeeper(opts: ClaimKeeperOptions): ClaimKeeper {
  const now = opts.now ?? (() => performance.now());
  const leaseMs = opts.claimSeconds * 1000;
  /** id → when the statement that last claimed or renewed it was sent. */
  const held = new Map<string, number>();
  const pending = new Map<string, Pending>();
  /** Admitted once: a delivery enqueued twice is still processed once. */
  const admitted = new Set<string>();
  let paused: string | undefined;
  let stopped = false;
  let wake: (() => void) | undefined;
  let woken = new Promise<void>((resolve) => (wake = resolve));
  const signal = () => {
    wake?.();
    woken = new Promise<void>((resolve) => (wake = resolve));
  };
  const pause = (error: unknown) => {
    if (paused === undefined) {
      paused = error instanceof Error ? error.message : String(error);
      opts.note(`processing paused: the webhook journal cannot be written (${paused}); deliveries are kept claimed and processed once it can`);
    }
  };
  const resume = () => {
    if (paused === undefined) return;
    paused = undefined;
    opts.note('processing resumed: the webhook journal can be written again');
  };

  let renewing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(() => void renew(), ms);
  };
  /** One heartbeat at a time; the next one is scheduled when it ends (sooner while paused). */
  function renew(): Promise<void> {
    renewing ??= beat().finally(() => {
      renewing = undefined;
      signal();
      schedule(paused === undefined ? leaseMs / 4 : Math.min(1_000, leaseMs / 4));
    });
    return renewing;
  }
  async function beat(): Promise<void> {
    const sentAt = now();
    const before = [...held.keys()];
    try {
      if (before.length > 0) {
        const { rows } = await opts.query(
          // Without waiting for the commit's fsync (synchronous_commit off for this one statement's
          // transaction): a renewal lost in a crash only shortens a claim, and a renewal that
          // waits behind a busy disk lets the lease run out.
          //
          // Only the deliveries in hand: a row this listener's INSERT committed but whose reply was
          // lost (answered 503) is claimed by it without being in hand; renewing every row claimed
          // by it kept such a row claimed forever, processed by nobody.
          `UPDATE svc_webhook_deliveries SET claimed_until = now() + make_interval(secs => $2)
           WHERE claimed_by = $1 AND id = ANY($3) AND processed_at IS NULL AND set_config('synchronous_commit', 'off', true) IS NOT NULL
           RETURNING id`,
          [opts.me, opts.claimSeconds, before],
        );
        const still = new Set((rows as { id: string }[]).map((r) => r.id));
        for (const id of before) {
          if (still.has(id)) held.set(id, Math.max(held.get(id) ?? 0, sentAt));
          // Taken over by another listener (or recorded meanwhile): not this one's to process.
          else if (!pending.has(id)) held.delete(id);
        }
      }
      if (pending.size > 0 && !flushing) startFlush();
      await flushing;
      if (paused === undefined || pending.size === 0) resume();
    } catch (error) {
      pause(error);
    }
  }

  async function flush(): Promise<void> {
    const batch = [...pending];
    if (batch.length === 0) return;
    const { rows } = await opts.query(
      `UPDATE svc_webhook_deliveries d SET processed_at = now(), ok = o.ok, error = o.error, claimed_by = NULL, claimed_until = NULL
       FROM unnest($2::text[], $3::boolean[], $4::text[]) AS o(id, ok, error)
       WHERE d.id = o.id AND d.claimed_by = $1 AND d.processed_at IS NULL
       RETURNING d.id`,
      [opts.me, batch.map(([id]) => id), batch.map(([, p]) => p.outcome.ok), batch.map(([, p]) => storedError(p.outcome) ?? null)],
    );
    const recorded = new Set((rows as { id: string }[]).map((r) => r.id));
    for (const [id, p] of batch) {
      pending.delete(id);
      held.delete(id);
      admitted.delete(id);
      if (recorded.has(id)) p.done.resolve();
      else p.done.reject(new Error('another listener had taken it over'));
    }
  }

  // Outcomes arriving together share one UPDATE; a failed one is retried by the heartbeat, sooner while paused.
  let flushing: Promise<void> | undefined;
  const startFlush = () => {
    flushing ??= flush()
      .then(resume, (error: unknown) => {
        pause(error);
        schedule(Math.min(1_000, leaseMs / 4));
      })
      .finally(() => {
        flushing = undefined;
        signal();
        if (pending.size > 0 && paused === undefined) startFlush();
      });
  };

  schedule(leaseMs / 4);

  return {
    hold(ids, claimedAt) {
      for (const id of ids) held.set(id, Math.max(held.get(id) ?? 0, claimedAt));
    },
    held: () => [...held.keys()],
    async admit(id) {
      for (;;) {
        if (stopped) return false;
        const claimedAt = held.get(id);
        if (claimedAt === undefined) return false;
        if (admitted.has(id)) return false;
        if (paused === undefined && now() - claimedAt < leaseMs / 2) {
          admitted.add(id);
          return true;
        }
        if (paused === undefined && !renewing && !flushing) void renew();
        await woken;
      }
    },
    finish(id, outcome) {
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { outcome, done: { resolve, reject } });
        if (paused === undefined) startFlush();
      });
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      signal();
      await flushing;
      await renewing;
      clearTimeout(timer);
      if (pending.size > 0) {
        try {
          await flush();
        } catch (error) {
          for (const [, p] of pending) p.done.reject(error);
          pending.clear();
        }
      }
    },
  };
}

/**
 * The `error` column of a processed delivery: why processing failed, and after it the
 * `--forward-to` targets that never took it (a column of their own would be a schema step,
 * which an older svc on the team would refuse). A delivery processed but not forwarded is
 * ok, with the targets alone.
 */
export const NOT_FORWARDED = 'not forwarded to ';
export function storedError(outcome: ProcessedOutcome): string | undefined {
  const failed = outcome.forwardFailed !== undefined && outcome.forwardFailed.length > 0 ? `${NOT_FORWARDED}${outcome.forwardFailed.join(', ')}` : undefined;
  return outcome.error === undefined ? failed : failed === undefined ? outcome.error : `${outcome.error}; ${failed}`;
}
