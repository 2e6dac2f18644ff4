// The sandbox-only endpoints (docs/interface-decisions.md#sandbox-endpoints) through the profile's API client, with a
// plain answer when the base URL is a service without them.
import type { RequestOptions } from '../../api/client.js';
import { ApiError, SvcError } from '../../errors.js';
import type { Factory } from '../../factory.js';

/**
 * `missing`: what a 404 means when the request names something that may not exist (a
 * receipt), said instead of "not a sandbox", which a 404 otherwise is.
 */
export async function sandboxRequest<T>(f: Factory, opts: RequestOptions<T>, missing?: (baseUrl: string, cause: ApiError) => SvcError): Promise<T> {
  const api = await f.api();
  try {
    return await api.request(opts);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && error.code === 'not_found') {
      if (missing) throw missing(api.baseUrl, error);
      throw new SvcError(`${api.baseUrl} is not a sandbox: it has no ${opts.method} ${opts.path}`, {
        hint: 'start one with `svc sandbox start` and point --base-url (or SVC_BASE_URL) at it',
        cause: error,
      });
    }
    throw error;
  }
}
