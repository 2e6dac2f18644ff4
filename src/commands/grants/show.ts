// `svc grants show`: one Grant with its stores, fetched from the service (the profile only
// keeps store IDs). A code-flow company has no Grant details: its stored record is shown.
import { refuseEmptyCredentials } from '../../auth/credentials.js';
import { fetchGrantDetails } from '../../auth/grant-details.js';
import { grantEntries, selectGrant } from '../../auth/grant-select.js';
import { readAuthorizations } from '../../auth/profile.js';
import { NotFoundError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { shownTime } from '../../io/time.js';

export interface ShowOptions {
  grantId: string;
}

export async function run(opts: ShowOptions, f: Factory): Promise<void> {
  // The Grants are whom the credentials act for: an empty SVC_GRANT_ID or SVC_API_KEY must not
  // answer with the stored ones (docs/login-and-secrets.md#secrets), as no other command does.
  await refuseEmptyCredentials(f);
  const settings = await f.settings();
  const profile = settings.profile.value;
  const auth = readAuthorizations(await f.config(), profile);
  const fromEnv = settings.grant?.source === 'env' ? [{ id: settings.grant.value, companyId: '', company: '', taxId: '' }] : [];
  const grantId = selectGrant(opts.grantId, [...grantEntries(auth), ...fromEnv], { passUnknown: true });
  const company = auth.companies.find((c) => c.merchant_id === grantId);
  if (company) {
    return writeRecord(
      f.io,
      [
        ['company', `${company.company_legal_name} (${company.merchant_id})`],
        ['tax ID', company.tax_id],
        ['flow', 'code (refresh token)'],
        ['scopes', company.scope],
        ['access until', shownTime(f.io, f.env, company.expires_at)],
        ['refresh until', shownTime(f.io, f.env, company.refresh_expires_at)],
      ],
      company,
    );
  }
  const known = auth.grants.some((g) => g.grant_id === grantId) || settings.grant?.value === grantId;
  if (!known) {
    throw new NotFoundError(`no Grant ${grantId} in profile "${profile}"`, { hint: 'see `svc grants list`, or run `svc auth login`' });
  }
  const details = await fetchGrantDetails(f, grantId);
  writeRecord(
    f.io,
    [
      ['grant', `${details.grant_id} (version ${details.grant_version})`],
      ['company', `${details.company.companyLegalName} (${details.company.id})`],
      ['scopes', details.scopes.join(' ')],
      ['store access', details.store_access_mode],
      ...details.stores.map((s): [string, string] => ['store', `${s.storeCode}  ${s.storeName}  ${s.id}${s.isActive ? '' : '  (inactive)'}`]),
    ],
    details,
  );
}
