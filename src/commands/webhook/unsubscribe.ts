// `svc webhook unsubscribe ID`: removes a subscription on the service (DELETE, a sandbox
// extension, CONTRACT §8) and forgets it here with its signing secret. ID: the whole ID or a
// unique prefix of 6+ characters (with or without `whsub_`), among the subscriptions this
// machine and the service know. stdout: the ID removed; --json: `{ id, onService }`.
import { NotFoundError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note, println } from '../../io/streams.js';
import { matchSubscriptionId, readLocalSubscriptions, serviceSubscriptions, unsubscribe } from '../../webhook/subscriptions.js';

export interface UnsubscribeOptions {
  id: string;
}

export async function run(opts: UnsubscribeOptions, f: Factory): Promise<void> {
  const known = [...(await readLocalSubscriptions(f)).map((s) => s.id), ...((await serviceSubscriptions(f)) ?? []).map((s) => s.id)];
  const id = matchSubscriptionId(opts.id.trim(), known);
  if (!known.includes(id)) {
    throw new NotFoundError(`no webhook subscription ${id} on the service or on this machine`, { hint: 'see `svc webhook list`' });
  }
  const { onService } = await unsubscribe(f, id);
  if (f.io.json) return writeJson(f.io, { id, onService });
  println(f.io, id);
  note(
    f.io,
    onService === 'deleted'
      ? `unsubscribed ${id}: the service sends it nothing more, and its secret is gone from this machine`
      : `the service no longer had ${id}; forgot it and its secret here`,
  );
}
