// What an operation module needs to call a protected operation: the client and a token
// source that can renew its token after a 401.
import type { Factory } from '../factory.js';
import type { ApiClient, TokenSource } from './client.js';

export interface Caller {
  api: ApiClient;
  auth: TokenSource;
}

/** CONTRACT.md §5: recipient resolution and every `/receipt/*` operation. */
export const WRITE_RECEIPTS = 'write_receipts';

/** The HTTP client and a `write_receipts` token source of the chosen Grant. */
export async function writeReceiptsCaller(f: Factory): Promise<Caller> {
  // Imported on use, like every verb's heavier dependencies.
  const { tokenSourceFor } = await import('../auth/session.js');
  const auth = await tokenSourceFor(f, { scope: WRITE_RECEIPTS });
  return { api: await f.api(), auth };
}
