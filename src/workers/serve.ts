// The worker side of pool.ts: answers each job with its result, tagged with the job's id.
import { parentPort } from 'node:worker_threads';
import type { JobMessage, ResultMessage } from './pool.js';

export function serveJobs<J, R>(handle: (job: J) => R): void {
  const port = parentPort;
  if (port === null) throw new Error('this module runs only as a worker thread');
  port.on('message', ({ id, job }: JobMessage<J>) => {
    const message: ResultMessage<R> = { id, result: handle(job) };
    port.postMessage(message);
  });
}
