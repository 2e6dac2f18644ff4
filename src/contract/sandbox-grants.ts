// `POST /sandbox/grants/{grant_id}/revoke` (docs/interface-decisions.md#grant-revocation, #sandbox-endpoints), shared by the sandbox and
// `svc sandbox revoke`.
import * as z from './zod.js';
import { NonEmptyString } from './common.js';

export const GrantRevocation = z.looseObject({
  grant_id: NonEmptyString,
  grant_version: z.int(),
  issuer_company_id: NonEmptyString,
  status: z.literal('REVOKED'),
  revokedAt: z.iso.datetime(),
});
export type GrantRevocation = z.infer<typeof GrantRevocation>;
