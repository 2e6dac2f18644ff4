// Grant details (`GET /oauth2/grants/{id}`): the stores and scopes behind a Grant, which the
// consent response only names by ID. The operation wants a token with `read_stores`.
import { GrantDetails } from '../contract/oauth.js';
import type { Factory } from '../factory.js';
import { tokenSourceFor } from './session.js';

export const DETAILS_SCOPE = 'read_stores';

export async function fetchGrantDetails(f: Factory, grantId: string): Promise<GrantDetails> {
  const auth = await tokenSourceFor(f, { grant: grantId, scope: DETAILS_SCOPE });
  const api = await f.api();
  return api.request({ method: 'GET', path: `/oauth2/grants/${encodeURIComponent(grantId)}`, auth, schema: GrantDetails });
}
