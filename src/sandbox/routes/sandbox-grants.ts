// The sandbox's stand-in for a company administrator withdrawing consent (docs/interface-decisions.md#grant-revocation, #sandbox-endpoints):
// only that company's Grant is affected; its tokens then answer 401 `invalid_token` and its
// `client_credentials` requests 400 `invalid_grant`, through the checks in guard.ts.
import type { GrantRevocation } from '../../contract/sandbox-grants.js';
import type { Sandbox } from '../context.js';
import { revokeGrant } from '../grants.js';
import { HttpError, json, type Router } from '../router.js';

export function register(router: Router, sandbox: Sandbox): void {
  router.post('/sandbox/grants/{grant_id}/revoke', (req) => {
    const grant = revokeGrant(sandbox, req.params.grant_id);
    if (!grant?.revokedAt) throw new HttpError('not_found', `no Grant ${req.params.grant_id}`);
    sandbox.log(`Grant ${grant.grantId} (company ${grant.companyId}) revoked`);
    const answer: GrantRevocation = {
      grant_id: grant.grantId,
      grant_version: grant.version,
      issuer_company_id: grant.companyId,
      status: 'REVOKED',
      revokedAt: grant.revokedAt,
    };
    return json(200, answer);
  });
}
