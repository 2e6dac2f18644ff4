// `svc grants use`: makes one of the profile's Grants the default for every later command.
import { refuseEmptyCredentials } from '../../auth/credentials.js';
import { grantEntries, selectGrant } from '../../auth/grant-select.js';
import { knownIds, readAuthorizations, setDefault } from '../../auth/profile.js';
import { NotFoundError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note } from '../../io/streams.js';

export interface UseOptions {
  grantId: string;
}

export async function run(opts: UseOptions, f: Factory): Promise<void> {
  // The Grants are whom the credentials act for: an empty SVC_GRANT_ID or SVC_API_KEY must not
  // answer with the stored ones (docs/login-and-secrets.md#secrets), as no other command does.
  await refuseEmptyCredentials(f);
  const settings = await f.settings();
  const profile = settings.profile.value;
  const config = await f.config();
  const auth = readAuthorizations(config, profile);
  const ids = knownIds(auth);
  // A Grant ID or prefix, a tax ID, or part of a company's name.
  const entries = grantEntries(auth);
  const grantId = selectGrant(opts.grantId, entries);
  if (!ids.includes(grantId)) {
    throw new NotFoundError(`no Grant ${grantId} in profile "${profile}"`, { hint: 'see `svc grants list`, or run `svc auth login`' });
  }
  await setDefault(config, profile, grantId);
  if (f.io.json) writeJson(f.io, { profile, grant: grantId });
  else {
    // The company it acts for, read back from what is stored: an ID alone says nothing of which one.
    const company = entries.find((e) => e.id === grantId)?.company;
    note(f.io, `Grant ${grantId}${company === undefined ? '' : ` (${company})`} is now the default of profile "${profile}"`);
  }
  if (settings.grant?.source === 'env') note(f.io, 'note: SVC_GRANT_ID is set and takes precedence over the default');
}
