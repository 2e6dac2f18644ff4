// `svc sandbox revoke GRANT`: what a company administrator withdrawing consent does
// (docs/interface-decisions.md#grant-revocation, #sandbox-endpoints), so integrations can rehearse a revoked Grant.
import { GrantRevocation } from '../../contract/sandbox-grants.js';
import { ApiError, NotFoundError } from '../../errors.js';
import { grantEntries, selectGrant } from '../../auth/grant-select.js';
import { readAuthorizations } from '../../auth/profile.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note } from '../../io/streams.js';

export interface RevokeOptions {
  grantId: string;
}

export async function run(opts: RevokeOptions, f: Factory): Promise<void> {
  // A Grant of this profile as --grant takes one (an ID or prefix, a tax ID, part of a company
  // name); any other Grant of the sandbox by its whole ID.
  const settings = await f.settings();
  const entries = grantEntries(readAuthorizations(await f.config(), settings.profile.value));
  const grantId = selectGrant(opts.grantId, entries);
  const api = await f.api();
  let result: GrantRevocation;
  try {
    // Revoking twice is the same as once, so a lost answer may be retried.
    result = await api.request({
      method: 'POST',
      path: `/sandbox/grants/${encodeURIComponent(grantId)}/revoke`,
      schema: GrantRevocation,
      retry: true,
    });
  } catch (error) {
    // Not sandboxRequest: its 404 means "not a sandbox", but here it is usually an unknown Grant.
    if (error instanceof ApiError && error.status === 404) {
      throw new NotFoundError(`${api.baseUrl} has no Grant ${grantId}`, {
        hint: 'check the Grant ID with `svc grants list`, and that the base URL is a sandbox (`svc sandbox start`)',
        cause: error,
      });
    }
    throw error;
  }
  if (f.io.json) writeJson(f.io, result);
  else {
    const company = entries.find((e) => e.id === result.grant_id)?.company;
    note(f.io, `Grant ${result.grant_id} of ${company === undefined ? `company ${result.issuer_company_id}` : `${company} (${result.issuer_company_id})`} is revoked (version ${result.grant_version}); its tokens now answer 401`);
  }
}
