// The OpenAPI 3.1 document generated from the shared zod schemas is a valid OpenAPI 3.1
// document (checked by a well-kept validator, @seriousme/openapi-schema-validator), covers
// every route the sandbox serves, and its schemas accept what the contract's schemas accept.
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/contract/openapi.js';
import { OPERATIONS } from '../../src/contract/operations.js';

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiDocument('0.0.0', 'http://127.0.0.1:8787') as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // And the validator does refuse a broken one.
    const broken = { ...openApiDocument('0.0.0'), paths: { '/x': { get: { responses: 'none' } } } };
    expect((await new Validator().validate(broken as Parameters<Validator['validate']>[0])).valid).toBe(false);
  });

  it('has every operation once, with its path parameters, security and answers', () => {
    const doc = openApiDocument('0.0.0') as { paths: Record<string, Record<string, { parameters?: { name: string }[]; responses: Record<string, unknown> }>> };
    let count = 0;
    for (const op of OPERATIONS) {
      const entry = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(entry, `${op.method} ${op.path}`).toBeDefined();
      expect((entry?.parameters ?? []).map((p) => p.name)).toEqual([...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
      expect(Object.keys(entry?.responses ?? {})).toContain('default');
      count++;
    }
    expect(count).toBe(OPERATIONS.length);
  });
});

describe('its security and servers, as docs/interface-decisions.md#authentication and docs/interface-decisions.md#oauth-details say', () => {
  type Entry = { security: Record<string, string[]>[]; description?: string };
  const doc = openApiDocument('0.0.0') as { servers?: { url: string }[]; paths: Record<string, Record<string, Entry>>; components: { securitySchemes: Record<string, { type: string; scheme?: string }> } };
  const op = (method: string, path: string) => doc.paths[path]![method]!;

  it('client credentials in the body for the token endpoints: no HTTP Basic anywhere', () => {
    for (const path of ['/oauth2/token', '/oauth2/refresh', '/oauth2/authorization-code/exchange']) {
      expect(op('post', path).security, path).toEqual([]);
      expect(op('post', path).description).toContain('client_id and client_secret in the JSON body');
    }
    expect(Object.values(doc.components.securitySchemes).filter((s) => s.scheme === 'basic')).toEqual([]);
  });

  it('a bearer for the Grant details and token validation; a bearer or X-API-Key for the public key', () => {
    expect(op('get', '/oauth2/grants/{grant_id}').security).toEqual([{ bearer: [] }]);
    expect(op('get', '/oauth2/token/validate').security).toEqual([{ bearer: [] }]);
    for (const method of ['get', 'post']) expect(op(method, '/client-application/{clientApplicationId}/public-key').security).toEqual([{ bearer: [] }, { apiKey: [] }]);
  });

  it('names a server even when no sandbox serves it (`svc sandbox openapi`)', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:8787' })]);
    expect((openApiDocument('0.0.0', 'http://127.0.0.1:4000') as { servers: { url: string }[] }).servers).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:4000' })]);
  });
});

describe('svc api path completion', () => {
  it('offers exactly the paths of the operations', async () => {
    const { OPERATION_PATHS } = await import('../../src/contract/operation-paths.js');
    expect([...OPERATION_PATHS].sort()).toEqual([...new Set(OPERATIONS.map((op) => op.path))].sort());
  });
});
