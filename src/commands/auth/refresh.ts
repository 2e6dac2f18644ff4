// `svc auth refresh`: renews every cached token of the profile now (and rotates the refresh
// token of every code-flow company), e.g. before a long batch. One failure does not stop the
// others; the first is reported at the end.
import { cachedSlots, issueToken } from '../../auth/session.js';
import { SvcError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeList } from '../../io/output.js';
import { note } from '../../io/streams.js';

export type RefreshOptions = Record<string, never>;

interface Renewed {
  grant_id: string;
  scope: string;
  expires_at: string;
}

export async function run(_opts: RefreshOptions, f: Factory): Promise<void> {
  const slots = await cachedSlots(f);
  if (slots.length === 0) note(f.io, 'no cached tokens to renew: `svc token get` caches one');
  const renewed: Renewed[] = [];
  let failure: unknown;
  for (const slot of slots) {
    try {
      const token = await issueToken(f, { ...slot, force: true });
      renewed.push({ grant_id: token.grant_id, scope: token.scope, expires_at: token.expires_at });
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      note(f.io, `could not renew the token of ${slot.grant} (${slot.scope}): ${error.message}`);
      failure ??= error;
    }
  }
  await writeList(f.io, renewed, [
    { header: 'GRANT', value: (r) => r.grant_id },
    { header: 'SCOPE', value: (r) => r.scope, flex: true },
    { header: 'EXPIRES', value: (r) => r.expires_at },
  ]);
  if (failure) throw failure;
}
