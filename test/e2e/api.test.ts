// `svc api METHOD PATH` on the built binary against the sandbox: the profile's base URL and
// credentials, fields as query or JSON body, --input, --include, a token renewed after a
// 401, and the exit codes of docs/interface-decisions.md#exit-codes for a refusal.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { useMerchant } from './merchant.js';
import { changeCachedTokens } from './token-file.js';

const { dirs, merchant } = useMerchant();
const api = (args: string[], input?: string) => runSvc(['api', ...args], { home: merchant().home, env: merchant().env, ...(input === undefined ? {} : { input }) });

describe('svc api', () => {
  it('GET with the Grant\'s token: the body on stdout', async () => {
    const r = await api(['GET', '/credit-note']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
  });

  it('POST with --raw-field as the JSON body; --include prints the status line and headers first', async () => {
    const r = await api(['POST', '/recipient/resolve', '--raw-field', 'email=alice@example.com', '--include']);
    expect(r.exitCode, r.stderr).toBe(0);
    const [head, body] = r.stdout.split('\n\n');
    expect(head).toMatch(/^HTTP 200\n/);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body ?? '')).toMatchObject({ matchId: expect.any(String) });
  });

  it('--input - sends standard input as the body', async () => {
    const template = await readFile(merchant().receiptFile, 'utf8');
    const r = await api(['POST', '/receipt/template', '--input', '-'], template);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('accountingSupplierParty');
  });

  it('a refused request exits with the exit code of docs/interface-decisions.md#exit-codes: 400 → 2, 404 → 6; no credentials needed under /sandbox/', async () => {
    const file = join(await dirs.make('svc-api-'), 'bad.json');
    await writeFile(file, JSON.stringify({ documentNumber: 'X' }));
    const bad = await api(['POST', '/receipt/template', '--input', file]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('validation_failed');
    const missing = await api(['PATCH', '/credit-note/requests/no-such/status', '--raw-field', 'status=ACCEPTED']);
    expect(missing.exitCode).toBe(6);
    // The request is named once: the service's message already says it ("no route matches GET /nope").
    const nope = await api(['GET', '/nope']);
    expect(nope.exitCode).toBe(6);
    expect(nope.stderr.split('GET /nope').length - 1, nope.stderr).toBe(1);
    const health = await runSvc(['api', 'GET', '/sandbox/health'], { env: merchant().env });
    expect(health.exitCode, health.stderr).toBe(0);
  });

  it('a cached token the service refuses (401) is renewed and the request sent again', async () => {
    await changeCachedTokens(merchant().home, ({ token }) => ({ ...token, access_token: 'not-a-token-the-service-issued' }));
    const r = await api(['GET', '/credit-note']);
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it('-H "Authorization: …" of the caller\'s own, refused (401): sent once, svc\'s token neither added nor renewed; the error names the -H header, never its value (exit 4)', async () => {
    const r = await api(['GET', '/credit-note', '-H', 'Authorization: Bearer bogus-token-7f3a', '--debug']);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr.match(/^> GET \S+\/credit-note$/gm)).toHaveLength(1);
    expect(r.stderr).not.toContain('renewing the token');
    expect(r.stderr).not.toContain('POST /oauth2/token');
    expect(r.stderr).not.toContain('POST http');
    expect(r.stderr).toMatch(/^error: the service refused the Authorization header given with -H/m);
    expect(r.stderr).not.toContain('svc auth login');
    expect(r.stderr).not.toContain('bogus-token-7f3a');
    const json = await api(['GET', '/credit-note', '-H', 'Authorization: Bearer bogus-token-7f3a', '--json']);
    expect(json.exitCode).toBe(4);
    expect(JSON.parse(json.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { exitCode: 4, message: expect.stringContaining('Authorization header given with -H') } });
    expect(json.stderr).not.toContain('bogus-token-7f3a');
    // A good one of the caller's own works as given.
    const token = (await runSvc(['token', 'get'], { home: merchant().home, env: merchant().env })).stdout.trim();
    const good = await api(['GET', '/credit-note', '-H', `Authorization: Bearer ${token}`]);
    expect(good.exitCode, good.stderr).toBe(0);
  });

  it('a method it does not send, or a path that is not below the base URL, is a usage error (2)', async () => {
    expect((await api(['TRACE', '/credit-note'])).exitCode).toBe(2);
    expect((await api(['GET', 'https://elsewhere.example/x'])).exitCode).toBe(2);
  });
});

describe('the OpenAPI document', () => {
  it('GET /openapi.json of a running sandbox and `svc sandbox openapi` give the same operations', async () => {
    const served = await runSvc(['api', 'GET', '/openapi.json'], { env: merchant().env });
    expect(served.exitCode, served.stderr).toBe(0);
    const doc = JSON.parse(served.stdout) as { openapi: string; servers: { url: string }[]; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0]?.url).toBe(merchant().sandbox.url);
    const printed = JSON.parse((await runSvc(['sandbox', 'openapi'])).stdout) as { paths: Record<string, unknown> };
    expect(Object.keys(printed.paths).sort()).toEqual(Object.keys(doc.paths).sort());
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/receipt/encrypted', '/credit-note/requests/{requestId}/status', '/oauth2/token']));
  });
});
