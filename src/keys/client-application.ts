// `/client-application/{id}/public-key` (docs/interface-decisions.md#client-application-keys): the
// key the service encrypts this integration's return requests and webhook envelopes for.
// docs/interface-decisions.md#api-keys: a company API key in X-API-Key when there is one, else a bearer token with
// `manage_client_applications`.
import {
  ClientApplicationPublicKey,
  type ClientApplicationPublicKeyRequest,
} from '../contract/oauth.js';
import { ApiError, AuthError, NotFoundError } from '../errors.js';
import type { Factory } from '../factory.js';
import { envVariableFor } from '../secrets/env.js';
import type { RequestOptions } from '../api/client.js';

export const MANAGE_SCOPE = 'manage_client_applications';
const API_KEY_SECRET = 'api-key';

export interface ClientApplicationApi {
  readonly clientId: string;
  getPublicKey(): Promise<ClientApplicationPublicKey>;
  uploadPublicKey(keyData: string): Promise<ClientApplicationPublicKey>;
}

/**
 * Resolves the client ID and the credentials up front, so a command fails on a missing
 * setting before it does any work (such as generating a key).
 */
export async function clientApplicationApi(f: Factory): Promise<ClientApplicationApi> {
  const settings = await f.settings();
  const profile = settings.profile.value;
  if (!settings.clientId) {
    throw new AuthError(`profile "${profile}" has no client ID`, {
      hint: `run \`svc config set client-id … --profile ${profile}\`, or set SVC_CLIENT_ID`,
    });
  }
  const clientId = settings.clientId.value;
  const apiKey = await (await f.secrets()).get(API_KEY_SECRET);
  let credentials: Pick<RequestOptions<unknown>, 'auth' | 'headers'>;
  if (apiKey) {
    credentials = { headers: { 'x-api-key': apiKey } };
  } else {
    const { tokenSourceFor } = await import('../auth/session.js');
    credentials = { auth: await tokenSourceFor(f, { scope: MANAGE_SCOPE }) };
  }
  const api = await f.api();
  const path = `/client-application/${encodeURIComponent(clientId)}/public-key`;

  async function call(request: Omit<RequestOptions<ClientApplicationPublicKey>, 'path' | 'schema'>) {
    try {
      return await api.request({ ...request, ...credentials, path, schema: ClientApplicationPublicKey });
    } catch (error) {
      // ApiError's own 401 hint is `svc auth login`, which does not help a rejected API key.
      if (apiKey && error instanceof ApiError && error.status === 401) {
        const source = envVariableFor(f.env, API_KEY_SECRET) ?? `the "${API_KEY_SECRET}" secret of profile "${profile}"`;
        throw new AuthError(`the service rejected the company API key (${source})`, {
          hint: 'check the API key, or unset it to use a bearer token from `svc auth login`',
          cause: error,
        });
      }
      throw error;
    }
  }

  return {
    clientId,
    async getPublicKey() {
      try {
        return await call({ method: 'GET' });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 404) throw error;
        throw new NotFoundError(`the service has no public key for client application ${clientId}`, {
          hint: 'upload one with `svc keys upload`, and check the client ID with `svc config get client-id`',
          cause: error,
        });
      }
    },
    uploadPublicKey(keyData) {
      const body: ClientApplicationPublicKeyRequest = { keyData, algorithm: 'RSA_2048' };
      // Uploading the same key again is harmless, so a 5xx or a dropped connection is retried.
      return call({ method: 'POST', body, retry: true });
    },
  };
}
