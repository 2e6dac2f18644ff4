// `svc sandbox clock reset`: the sandbox's clock back to real time, undoing every
// `clock advance` (a sandbox extension, docs/interface-decisions.md#sandbox-endpoints), without forgetting anything else.
import { ClockAdvanceResponse } from '../../contract/sandbox.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';
import { sandboxRequest } from './request.js';

export async function run(_opts: Record<string, never>, f: Factory): Promise<void> {
  // Setting real time again is the same however often it is done: a lost answer may be retried.
  const result = await sandboxRequest(f, { method: 'POST', path: '/sandbox/clock/reset', schema: ClockAdvanceResponse, retry: true });
  if (f.io.json) writeJson(f.io, result);
  else println(f.io, result.now);
}
