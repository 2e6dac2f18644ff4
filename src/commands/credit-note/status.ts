// `svc credit-note accept|reject|complete REQUEST_ID` and `status REQUEST_ID STATUS`: one
// PATCH of the request's status. A refused move exits 7 with the service's account of
// the current state and the moves it allows.
import { writeReceiptsCaller } from '../../api/caller.js';
import { setReturnRequestStatus } from '../../api/credit-note.js';
import { SettableQueueItemStatus } from '../../contract/returns.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';
import type { Verb } from '../context.js';

export interface StatusOptions {
  requestId: string;
  status: string;
}

export async function run(opts: StatusOptions, f: Factory): Promise<void> {
  await setStatus(f, opts.requestId, settable(opts.status));
}

export const accept: Verb<{ requestId: string; partial: boolean }> = {
  run: (opts, f) => setStatus(f, opts.requestId, opts.partial ? 'PARTIALLY_ACCEPTED' : 'ACCEPTED'),
};

export const reject: Verb<{ requestId: string }> = {
  run: (opts, f) => setStatus(f, opts.requestId, 'REJECTED'),
};

export const complete: Verb<{ requestId: string }> = {
  run: (opts, f) => setStatus(f, opts.requestId, 'COMPLETED'),
};

/** STATUS of `svc credit-note status`, in any case; PENDING and CANCELLED are not the merchant's to set. */
function settable(value: string): SettableQueueItemStatus {
  const parsed = SettableQueueItemStatus.safeParse(value.trim().toUpperCase());
  if (parsed.success) return parsed.data;
  throw new UsageError(`${value} is not a status a merchant can set`, {
    hint: `use one of ${SettableQueueItemStatus.options.join(', ')}`,
  });
}

async function setStatus(f: Factory, requestId: string, status: SettableQueueItemStatus): Promise<void> {
  const result = await setReturnRequestStatus(await writeReceiptsCaller(f), requestId, status);
  if (f.io.json) writeJson(f.io, result);
  else println(f.io, `${result.requestId} ${result.status}`);
}
