// What an operation module needs to call a protected operation: the client and the
// integration's credentials, either a token source that can renew its token after a 401
// (OAuth) or a company API key (docs/interface-decisions.md#api-keys, SVC_API_KEY, docs/interface-decisions.md#credentials-from-the-environment).
import type { ApiClient, ApiKeyAuth, TokenSource } from './client.js';

export interface Caller {
  api: ApiClient;
  auth: TokenSource | ApiKeyAuth;
  /** The Grant acted for; undefined with an API key or a handed-in SVC_TOKEN. */
  grantId?: string | undefined;
  /** The company of that Grant, when the profile records it: receipts are numbered per company. */
  companyId?: string | undefined;
}

/** docs/interface-decisions.md#oauth-details: recipient resolution and every `/receipt/*` operation. */
export const WRITE_RECEIPTS = 'write_receipts';
