// `svc grants use`: makes one of the profile's Grants the default for every later command.
import { knownIds, readAuthorizations, setDefault } from '../../auth/profile.js';
import { NotFoundError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note } from '../../io/streams.js';

export interface UseOptions {
  grantId: string;
}

export async function run(opts: UseOptions, f: Factory): Promise<void> {
  const settings = await f.settings();
  const profile = settings.profile.value;
  const config = await f.config();
  if (!knownIds(readAuthorizations(config, profile)).includes(opts.grantId)) {
    throw new NotFoundError(`no Grant ${opts.grantId} in profile "${profile}"`, { hint: 'see `svc grants list`, or run `svc auth login`' });
  }
  await setDefault(config, profile, opts.grantId);
  if (f.io.json) writeJson(f.io, { profile, grant: opts.grantId });
  else note(f.io, `Grant ${opts.grantId} is now the default of profile "${profile}"`);
  if (settings.grant?.source === 'env') note(f.io, 'note: SVC_GRANT_ID is set and takes precedence over the default');
}
