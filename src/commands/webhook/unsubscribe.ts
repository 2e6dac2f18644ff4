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
  if (opts.url !== undefined) {
    if (opts.id !== undefined) throw new UsageError('give a subscription ID or --url, not both');
    return unsubscribeUrl(f, opts.url);
  }
  if (opts.id === undefined) throw new UsageError(missingArgumentText('id'), { hint: 'see `svc webhook list`; or give --url to remove every subscription of this company to a URL' });
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

/**
 * `--url URL` for the company the command acts for: every subscription the service lists for
 * it to that URL (the old ones a listener on `--port 0` left behind), each as by its ID.
 */
async function unsubscribeUrl(f: Factory, url: string): Promise<void> {
  const listed = await serviceSubscriptions(f);
  if (listed === undefined) throw new NotFoundError('the service does not list subscriptions, so none can be found by URL', { hint: 'give each by its ID (`svc webhook list`)' });
  const ids = listed.filter((s) => s.notificationUrl === url).map((s) => s.id);
  if (ids.length === 0) throw new NotFoundError(`no webhook subscription to ${url} on the service`, { hint: 'see `svc webhook list` for the URLs subscribed' });
  const removed: { id: string; onService: string }[] = [];
  for (const id of ids) removed.push({ id, ...(await unsubscribe(f, id)) });
  if (f.io.json) return writeJson(f.io, removed);
  for (const r of removed) println(f.io, r.id);
  note(f.io, `unsubscribed ${removed.length === 1 ? removed[0]!.id : `${removed.length} subscriptions`} to ${url}: the service sends ${removed.length === 1 ? 'it' : 'them'} nothing more, and ${removed.length === 1 ? 'its secret is' : 'their secrets are'} gone from this machine`);
}
