// `svc sandbox revoke GRANT_ID`: what a company administrator withdrawing consent does
// (docs/interface-decisions.md#grant-revocation, #sandbox-endpoints), so integrations can rehearse a revoked Grant.
import { GrantRevocation } from '../../contract/sandbox-grants.js';
import { ApiError, NotFoundError } from '../../errors.js';
import { knownIds, readAuthorizations } from '../../auth/profile.js';
import type { Factory } from '../../factory.js';
import { GRANT_IDS } from '../../ids/kinds.js';
import { matchPrefix } from '../../ids/prefix.js';
import { writeJson } from '../../io/output.js';
import { note } from '../../io/streams.js';

export interface RevokeOptions {
  grantId: string;
}

export async function run(opts: RevokeOptions, f: Factory): Promise<void> {
  // A Grant of this profile may be named by a prefix; any other Grant of the sandbox by its whole ID.
  const settings = await f.settings();
  const grantId = matchPrefix(opts.grantId, knownIds(readAuthorizations(await f.config(), settings.profile.value)), GRANT_IDS);
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
  else note(f.io, `Grant ${result.grant_id} of company ${result.issuer_company_id} is revoked (version ${result.grant_version}); its tokens now answer 401`);
}
