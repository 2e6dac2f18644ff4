// `svc sandbox trigger outage [--requests N] [--retry-after SECONDS]`: the sandbox answers
// the next N requests to its API 503 with a Retry-After, as a service restarting does, to
// watch an integration's retries (svc's own: docs/networks.md) on this machine.
import { MAX_OUTAGE_REQUESTS, OutageResponse } from '../../contract/sandbox.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';
import { sandboxRequest } from './request.js';

export interface TriggerOutageOptions {
  requests: string;
  retryAfter: string;
}

function wholeNumber(value: string, flag: string, max: number): number {
  const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 0 && n <= max)) throw new UsageError(`${flag}: "${value}" is not a whole number from 0 to ${max}`);
  return n;
}

export async function run(opts: TriggerOutageOptions, f: Factory): Promise<void> {
  const requests = wholeNumber(opts.requests, '--requests', MAX_OUTAGE_REQUESTS);
  const retryAfterSeconds = wholeNumber(opts.retryAfter, '--retry-after', 3600);
  // Setting a count (not adding to it): asking again after a lost answer changes nothing.
  const result = await sandboxRequest(f, { method: 'POST', path: '/sandbox/outage', body: { requests, retryAfterSeconds }, schema: OutageResponse, retry: true });
  if (f.io.json) return writeJson(f.io, result);
  println(
    f.io,
    result.requests === 0
      ? 'the outage is over: every request is answered'
      : `the next ${result.requests} requests to the API are answered 503, Retry-After ${result.retryAfterSeconds} s (the sandbox's own endpoints keep answering)`,
  );
}
