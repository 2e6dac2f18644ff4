// Lines written many to a turn of the event loop (a listener's event lines during a burst of
// deliveries) cost a system call each on a pipe or a terminal, where Node writes at once:
// about 13 µs a delivery in `svc webhook listen`, two lines each. Held (corked) until the
// turn ends, they go out together, one writev a stream. Every write to a held stream is
// held, so the order on each stream stays that of the writes.
//
// Held, a line is only in this process's memory: a SIGKILL loses it. What must not be
// recorded before its line is out (a delivery journalled as processed) waits for written().
import type { Writable } from 'node:stream';

export interface TurnBatch {
  /** Holds what is written to the streams from now until the end of this turn (or flush()). */
  hold(): void;
  /** Writes what is held now: before an exit that would not wait for the turn to end. */
  flush(): void;
  /**
   * Resolves once everything written to the streams so far was handed to the system (a
   * pipe's reader gets it even if this process dies then); rejects with a stream's write
   * error. A reader that stops reading keeps it pending.
   */
  written(): Promise<void>;
}

/**
 * Resolves once everything written to the streams so far was handed to the system; rejects
 * with a stream's write error. A stream calls write callbacks in order, so an empty write's
 * comes after those of the writes before it.
 */
export function handedOn(streams: readonly Writable[]): Promise<void> {
  return Promise.all([...new Set(streams)].map((stream) => new Promise<void>((resolve, reject) => stream.write('', (error) => (error ? reject(error) : resolve()))))).then(() => undefined);
}

export function turnBatch(streams: readonly Writable[]): TurnBatch {
  let held = false;
  const marker = () => handedOn(streams);
  // For a held turn, one promise for all of its lines: the marker goes after the last of them, at the flush.
  let turnWritten: { promise: Promise<void>; settle(outcome: Promise<void>): void } | undefined;
  const flush = () => {
    if (!held) return;
    held = false;
    const waiting = turnWritten;
    turnWritten = undefined;
    waiting?.settle(marker());
    for (const stream of streams) {
      // cork() counts: uncork as often as it was corked here (once), never another holder's.
      if (stream.writableCorked > 0) stream.uncork();
    }
  };
  return {
    hold() {
      if (held) return;
      held = true;
      for (const stream of streams) stream.cork();
      setImmediate(flush);
    },
    flush,
    written() {
      if (!held) return marker();
      if (!turnWritten) {
        let settle: (outcome: Promise<void>) => void = () => undefined;
        const promise = new Promise<void>((resolve) => (settle = resolve));
        turnWritten = { promise, settle };
      }
      return turnWritten.promise;
    },
  };
}
