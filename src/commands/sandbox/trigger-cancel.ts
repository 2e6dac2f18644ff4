// `svc sandbox trigger cancel REQUEST_ID`: the customer withdraws a return request nobody has
// decided on yet (docs/interface-decisions.md#return-request-moves: CANCELLED is the customer's move, never the issuer's).
import { StatusUpdateResponse } from '../../contract/returns.js';
import { ApiError, NotFoundError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';

export interface TriggerCancelOptions {
  requestId: string;
}

export async function run(opts: TriggerCancelOptions, f: Factory): Promise<void> {
  const api = await f.api();
  let result: StatusUpdateResponse;
  try {
    // Cancelling twice is the same as once, so a lost answer may be retried.
    result = await api.request({
      method: 'POST',
      path: `/sandbox/return-requests/${encodeURIComponent(opts.requestId)}/cancel`,
      schema: StatusUpdateResponse,
      retry: true,
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new NotFoundError(`${api.baseUrl} has no return request ${opts.requestId}`, {
        hint: 'check the ID with `svc credit-note poll`, and that the base URL is a sandbox (`svc sandbox start`)',
        cause: error,
      });
    }
    throw error;
  }
  if (f.io.json) writeJson(f.io, result);
  else println(f.io, `return request ${result.requestId} is ${result.status}`);
}
