// GET /openapi.json: the interface as OpenAPI 3.1, generated from the shared zod schemas
// (src/contract/openapi.ts), with this sandbox as its server.
import { openApiDocument } from '../../contract/openapi.js';
import type { Sandbox } from '../context.js';
import { json, type Router } from '../router.js';

export function register(router: Router, sandbox: Sandbox): void {
  let document: unknown;
  router.get('/openapi.json', (req) => {
    const host = typeof req.headers.host === 'string' ? req.headers.host : undefined;
    document ??= openApiDocument(sandbox.version, host ? `http://${host}` : undefined);
    return json(200, document);
  });
}
