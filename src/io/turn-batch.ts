// Lines written many to a turn of the event loop (a listener's event lines during a burst of
// deliveries) cost a system call each on a pipe or a terminal, where Node writes at once:
// about 13 µs a delivery in `svc webhook listen`, two lines each. Held (corked) until the
// turn ends, they go out together, one writev a stream. Every write to a held stream is
// held, so the order on each stream stays that of the writes.
import type { Writable } from 'node:stream';

export interface TurnBatch {
  /** Holds what is written to the streams from now until the end of this turn (or flush()). */
  hold(): void;
  /** Writes what is held now: before an exit that would not wait for the turn to end. */
  flush(): void;
}

export function turnBatch(streams: readonly Writable[]): TurnBatch {
  let held = false;
  const flush = () => {
    if (!held) return;
    held = false;
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
  };
}
