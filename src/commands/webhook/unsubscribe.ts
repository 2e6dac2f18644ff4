// `svc webhook unsubscribe ID`: removes a subscription on the service (DELETE, a sandbox
// extension, docs/interface-decisions.md#subscription-secrets) and forgets it here with its signing secret. ID: the whole ID or a
// unique prefix of 6+ characters (with or without `whsub_`), among the subscriptions this
// machine and the service know. stdout: the ID removed; --json: `{ id, onService }`.
import { NotFoundError, UsageError } from '../../errors.js';
import { fansOut, type FanOutFlags } from '../../grants/fan-out.js';
import { missingArgumentText } from '../../help/arguments.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note, println } from '../../io/streams.js';
import { matchSubscriptionId, readLocalSubscriptions, serviceSubscriptions, unsubscribe } from '../../webhook/subscriptions.js';

export interface UnsubscribeOptions extends FanOutFlags {
  /** Required but with --all-grants or --grants, where --url names the subscriptions. */
  id?: string | undefined;
  url?: string | undefined;
}

export async function run(opts: UnsubscribeOptions, f: Factory): Promise<void> {
  if (fansOut(opts)) {
    if (opts.id !== undefined) throw new UsageError('over several companies, name the subscriptions by --url, not by ID');
    return (await import('./fan-out.js')).unsubscribeAll(opts.url, opts, f);
  }
  if (opts.id === undefined) throw new UsageError(missingArgumentText('id'), { hint: 'see `svc webhook list`; with --all-grants, give --url' });
  if (opts.url !== undefined) throw new UsageError('--url goes with --all-grants or --grants; give one subscription by its ID');
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
