// Jobs run on worker threads as they come, answered in whatever order they finish: the
// caller keeps its own order. Each worker holds at most two jobs, so that it never waits for
// its next one and the rest wait here, for whichever worker frees up first. A worker that
// cannot start or dies hands its jobs back: another worker takes them, or, with none left,
// this thread runs them (a turn of the event loop each), so a job is always answered.
import { Worker } from 'node:worker_threads';

/** What a pool's worker receives for a job, and answers with (see serve.ts). */
export interface JobMessage<J> {
  id: number;
  job: J;
}
export interface ResultMessage<R> {
  id: number;
  result: R;
}

export interface WorkerPool<J, R> {
  /** Worker threads started (0: every job runs on this thread). */
  readonly size: number;
  run(job: J): Promise<R>;
  /** Ends the workers; jobs still running are not answered. */
  close(): Promise<void>;
}

export interface WorkerPoolOptions<J, R> {
  /** The worker's entry file (built JS); undefined runs every job on this thread. */
  workerFile: string | URL | undefined;
  workerData?: unknown;
  /** Worker threads to start; 0 runs every job on this thread. */
  size: number;
  /** The same work on this thread: the fallback, and the whole pool when it has no workers. */
  local: (job: J) => R;
  /**
   * This thread takes jobs too, one per turn of its event loop, whenever all workers have
   * theirs: one isolate fewer for the same number of busy cores.
   */
  shareThisThread?: boolean;
}

const JOBS_PER_WORKER = 2;

interface Pending<J, R> {
  id: number;
  job: J;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

interface Thread<J, R> {
  worker: Worker;
  jobs: Map<number, Pending<J, R>>;
  alive: boolean;
}

export function createWorkerPool<J, R>(opts: WorkerPoolOptions<J, R>): WorkerPool<J, R> {
  const waiting: Pending<J, R>[] = [];
  const threads: Thread<J, R>[] = [];
  let nextId = 0;
  let localScheduled = false;
  let closed = false;

  const runLocally = () => {
    localScheduled = false;
    const pending = waiting.shift();
    if (pending === undefined) return;
    try {
      pending.resolve(opts.local(pending.job));
    } catch (error) {
      pending.reject(error);
    }
    dispatch();
  };
  const scheduleLocal = () => {
    if (localScheduled || closed) return;
    localScheduled = true;
    setImmediate(runLocally);
  };
  const dispatch = () => {
    for (;;) {
      const free = threads.filter((t) => t.alive && t.jobs.size < JOBS_PER_WORKER).sort((a, b) => a.jobs.size - b.jobs.size)[0];
      const pending = free === undefined ? undefined : waiting.shift();
      if (free === undefined || pending === undefined) break;
      free.jobs.set(pending.id, pending);
      const message: JobMessage<J> = { id: pending.id, job: pending.job };
      free.worker.postMessage(message);
    }
    if (waiting.length > 0 && (opts.shareThisThread || !threads.some((t) => t.alive))) scheduleLocal();
  };
  const lose = (thread: Thread<J, R>) => {
    if (!thread.alive) return;
    thread.alive = false;
    void thread.worker.terminate();
    // Its jobs go first, in their order, so that the oldest ones are answered first.
    waiting.unshift(...[...thread.jobs.values()].sort((a, b) => a.id - b.id));
    thread.jobs.clear();
    dispatch();
  };

  if (opts.workerFile !== undefined) {
    for (let i = 0; i < opts.size; i++) {
      const thread: Thread<J, R> = { worker: new Worker(opts.workerFile, { workerData: opts.workerData }), jobs: new Map(), alive: true };
      threads.push(thread);
      thread.worker.on('message', (message: ResultMessage<R>) => {
        const pending = thread.jobs.get(message.id);
        if (pending === undefined) return;
        thread.jobs.delete(message.id);
        pending.resolve(message.result);
        dispatch();
      });
      thread.worker.on('error', () => lose(thread));
      thread.worker.on('exit', () => lose(thread));
    }
  }

  return {
    size: threads.length,
    run(job) {
      return new Promise<R>((resolve, reject) => {
        waiting.push({ id: nextId++, job, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const thread of threads) thread.alive = false;
      await Promise.allSettled(threads.map((t) => t.worker.terminate()));
    },
  };
}
