// Group commit: callers hand in one item each and wait for it to be written; while a write
// is under way the items arriving queue up, and the next write takes all of them at once.
// A fan-out's 16 workers then share one write (one lock, one rename, one fsync) instead of
// each rewriting a file that grows with every item; one caller alone waits no longer than
// before. A failed write rejects the items of that write only.

/** `write` gets the queued items in arrival order and returns one result per item. */
export function groupCommit<I, O>(write: (items: readonly I[]) => Promise<readonly O[]>): (item: I) => Promise<O> {
  let queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  let running = false;
  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const out = await write(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(out[i] as O));
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    running = false;
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (running) return;
      running = true;
      // The items handed in during this turn of the event loop go together.
      setImmediate(() => void drain());
    });
}
