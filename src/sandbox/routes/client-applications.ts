// `/client-application/{clientApplicationId}/public-key` (docs/interface-decisions.md#client-application-keys;
// docs/interface-decisions.md#oauth-details, #client-application-key-shape): the key the sandbox encrypts this integration's return
// requests and webhook envelopes for. The key lives on the application's record in the
// state, so `reset` goes back to the fixture's.
import { createPublicKey } from 'node:crypto';
import { ClientApplicationPublicKeyRequest } from '../../contract/oauth.js';
import { decodeBase64Strict, InvalidBase64Error } from '../../crypto/base64.js';
import type { Sandbox } from '../context.js';
import { authorize } from '../guard.js';
import { HttpError, json, type RouteRequest, type Router } from '../router.js';
import type { ClientApplication } from '../state.js';

const MANAGE_SCOPE = 'manage_client_applications';

export function register(router: Router, sandbox: Sandbox): void {
  router.get('/client-application/{clientApplicationId}/public-key', (req) => {
    const app = authorizedApplication(sandbox, req, req.params.clientApplicationId);
    if (!app.publicKey) throw new HttpError('not_found', `client application ${app.id} has no public key yet`);
    return json(200, app.publicKey);
  });

  router.post('/client-application/{clientApplicationId}/public-key', { body: ClientApplicationPublicKeyRequest }, (req) => {
    const app = authorizedApplication(sandbox, req, req.params.clientApplicationId);
    const keyData = req.body.keyData;
    checkRsa2048Spki(keyData);
    const previous = app.publicKey;
    // The same key again is a retried upload: it keeps its original upload time.
    if (previous?.keyData === keyData) return json(200, previous);
    app.publicKey = { keyData, algorithm: req.body.algorithm, uploadedAt: sandbox.clock.iso() };
    sandbox.log(`client application ${app.id}: public key ${previous ? 'replaced' : 'uploaded'}`);
    return json(previous ? 200 : 201, app.publicKey);
  });
}

/**
 * The owner company's API key, or a token of a Grant given to this application with
 * `manage_client_applications`. Anyone else learns nothing, not even that it exists.
 */
function authorizedApplication(sandbox: Sandbox, req: RouteRequest, clientApplicationId: string): ClientApplication {
  const caller = authorize(sandbox, req, { scope: MANAGE_SCOPE, apiKey: true });
  const app = sandbox.state.clientApplications.get(clientApplicationId);
  const allowed = caller.via === 'api-key' ? app?.ownerCompanyId === caller.companyId : caller.clientId === app?.id;
  if (!app || !allowed) throw new HttpError('not_found', `no client application ${clientApplicationId}`);
  return app;
}

function checkRsa2048Spki(keyData: string): void {
  const invalid = (message: string) =>
    new HttpError('validation_failed', 'the request body is invalid', { details: [{ path: 'keyData', message }] });
  let der: Buffer;
  try {
    der = decodeBase64Strict(keyData);
  } catch (error) {
    if (error instanceof InvalidBase64Error) throw invalid('must be standard padded Base64');
    throw error;
  }
  let key;
  try {
    key = createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    throw invalid('must be a DER SubjectPublicKeyInfo');
  }
  if (key.asymmetricKeyType !== 'rsa' || key.asymmetricKeyDetails?.modulusLength !== 2048)
    throw invalid('must be an RSA public key of 2048 bits');
}
