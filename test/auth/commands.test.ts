// The verbs around the flows: grants list/show/use, auth logout and auth refresh.
import { afterEach, describe, expect, it } from 'vitest';
import { run as logout } from '../../src/commands/auth/logout.js';
import { run as refresh } from '../../src/commands/auth/refresh.js';
import { run as list } from '../../src/commands/grants/list.js';
import { run as show } from '../../src/commands/grants/show.js';
import { run as use } from '../../src/commands/grants/use.js';
import { ExitCode, NotFoundError, PartialFailureError } from '../../src/errors.js';
import { CLIENT_SECRET, GRANT, JSON_HEADERS, NOW, errorResponse, rejection, setup, tokenResponse, type SetupOptions } from './setup.js';

let current: ReturnType<typeof setup> | undefined;
function make(opts: SetupOptions = {}) {
  current = setup({ profiles: { local: { grants: [GRANT, OTHER], grant: GRANT.grant_id } }, secrets: { 'client-secret': CLIENT_SECRET }, ...opts });
  return current;
}
afterEach(async () => {
  await current?.done();
  current = undefined;
});

const OTHER = { ...GRANT, grant_id: 'g-2', company_legal_name: 'Sample Foods GmbH', store_ids: ['s-21'], store_access_mode: 'SELECTED_STORES' };

const DETAILS = {
  grant_id: GRANT.grant_id,
  grant_version: 1,
  company: { id: GRANT.issuer_company_id, companyLegalName: GRANT.company_legal_name },
  stores: [{ id: 's-11', storeName: 'Market Street', storeCode: 'ER-001', isActive: true }],
  scopes: GRANT.scopes,
  store_access_mode: 'ALL_STORES',
};

describe('svc grants', () => {
  it('list prints one row per Grant from the profile, marking the default', async () => {
    const { f, t } = make();
    await list({ details: false }, f);
    expect(t.stdout()).toBe(
      `${GRANT.grant_id}\tExample Retail Ltd\tEU000000001\twrite_receipts read_stores\tall\t*\n` +
        'g-2\tSample Foods GmbH\tEU000000001\twrite_receipts read_stores\t1\t\n',
    );
  });

  it('list --json gives the Grants as the service returned them', async () => {
    const { f, t } = make({ json: true });
    await list({ details: false }, f);
    expect(JSON.parse(t.stdout())).toEqual([GRANT, OTHER]);
  });

  it('list names the Grant SVC_GRANT_ID gives when no login recorded it, and --details asks about it', async () => {
    const { f, t, pool } = make({ profiles: {}, env: { SVC_GRANT_ID: GRANT.grant_id } });
    await list({ details: false }, f);
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toBe(`SVC_GRANT_ID names Grant ${GRANT.grant_id}, which no login of this profile recorded; see it with \`svc grants show ${GRANT.grant_id}\`\n`);

    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse('tok-stores', 'read_stores'));
    pool.intercept({ path: `/oauth2/grants/${GRANT.grant_id}`, method: 'GET' }).reply(200, DETAILS, { headers: JSON_HEADERS });
    await list({ details: true }, f);
    expect(t.stdout()).toContain('s-11');
  });

  it('list --details fetches each Grant with a read_stores token', async () => {
    const { f, t, pool } = make({ json: true, profiles: { local: { grants: [GRANT] } } });
    let scope = '';
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply((req) => {
      scope = (JSON.parse(String(req.body)) as { scope: string }).scope;
      return tokenResponse('tok-stores', 'read_stores');
    });
    pool
      .intercept({ path: `/oauth2/grants/${GRANT.grant_id}`, method: 'GET', headers: { authorization: 'Bearer tok-stores' } })
      .reply(200, DETAILS, { headers: JSON_HEADERS });
    await list({ details: true }, f);
    expect(scope).toBe('read_stores');
    expect(JSON.parse(t.stdout())).toEqual([{ ...DETAILS, grantId: GRANT.grant_id, companyId: GRANT.issuer_company_id }]);
  });

  it('list --details still lists the other Grants when one was revoked: an error element for it, exit 9 (partly failed)', async () => {
    const { f, t, pool } = make({ json: true });
    const tokenFor = (grantId: string) => (body: string) => (JSON.parse(body) as { grant_id: string }).grant_id === grantId;
    pool.intercept({ path: '/oauth2/token', method: 'POST', body: tokenFor(GRANT.grant_id) }).reply(() => tokenResponse('tok-stores', 'read_stores'));
    pool.intercept({ path: '/oauth2/token', method: 'POST', body: tokenFor('g-2') }).reply(() => errorResponse(400, 'invalid_grant'));
    pool.intercept({ path: `/oauth2/grants/${GRANT.grant_id}`, method: 'GET' }).reply(200, DETAILS, { headers: JSON_HEADERS });
    const error = await rejection(list({ details: true }, f));
    expect(error).toBeInstanceOf(PartialFailureError);
    expect((error as PartialFailureError).exitCode).toBe(ExitCode.partial);
    expect(JSON.parse(t.stdout())).toEqual([
      { ...DETAILS, grantId: GRANT.grant_id, companyId: GRANT.issuer_company_id },
      { grantId: 'g-2', companyId: OTHER.issuer_company_id, company: OTHER.company_legal_name, error: expect.objectContaining({ code: 'authentication_required', exitCode: ExitCode.auth, message: expect.stringContaining('g-2') }) },
    ]);
    expect(t.stderr()).toBe('');
  });

  it('show prints the Grant with its stores', async () => {
    const { f, t, pool } = make();
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse('tok-stores', 'read_stores'));
    pool.intercept({ path: `/oauth2/grants/${GRANT.grant_id}`, method: 'GET' }).reply(200, DETAILS, { headers: JSON_HEADERS });
    await show({ grantId: GRANT.grant_id }, f);
    expect(t.stdout()).toContain('Example Retail Ltd');
    expect(t.stdout()).toContain('ER-001  Market Street  s-11');
  });

  it('show and use refuse a Grant the profile does not know', async () => {
    const { f, config } = make();
    expect(await rejection(show({ grantId: 'nope' }, f))).toBeInstanceOf(NotFoundError);
    expect(await rejection(use({ grantId: 'nope' }, f))).toBeInstanceOf(NotFoundError);
    expect(config.profile('local').grant).toBe(GRANT.grant_id);
  });

  it('use makes a known Grant the default', async () => {
    const { f, config } = make();
    await use({ grantId: 'g-2' }, f);
    expect(config.profile('local').grant).toBe('g-2');
  });
});

describe('svc auth logout and refresh', () => {
  it('logout deletes tokens, refresh tokens, the client secret and the Grants; other settings stay', async () => {
    const company = {
      merchant_id: 'm-1',
      company_legal_name: 'Example Retail Ltd',
      tax_id: 'EU000000001',
      customer_id: null,
      expires_at: new Date(NOW).toISOString(),
      refresh_expires_at: new Date(NOW).toISOString(),
      scope: 'write_receipts',
    };
    const { f, secrets, config } = make({
      profiles: { local: { grants: [GRANT], companies: [company], grant: GRANT.grant_id, clientId: 'app_kept' } },
      secrets: {
        'client-secret': CLIENT_SECRET,
        [`token/${GRANT.grant_id}`]: '{}',
        'token/m-1': '{}',
        'refresh-token/m-1': 'rt',
        'api-key': 'kept',
      },
    });
    await logout({ all: false }, f);
    expect(secrets.dump()).toEqual({ 'api-key': 'kept' });
    expect(config.profile('local')).toEqual({ clientId: 'app_kept' });
  });

  it('refresh renews every cached token of the profile', async () => {
    const { f, t, pool, secrets } = make({ profiles: { local: { grants: [GRANT] } } });
    const cached = { access_token: 'old', token_type: 'bearer', expires_at: new Date(NOW + 600_000).toISOString(), scope: 'read_stores' };
    await secrets.set(`token/${GRANT.grant_id}`, JSON.stringify({ read_stores: cached }));
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse('new', 'read_stores'));
    await refresh({}, f);
    expect(JSON.parse(secrets.dump()[`token/${GRANT.grant_id}`] ?? '{}').read_stores.access_token).toBe('new');
    expect(t.stdout()).toBe(`${GRANT.grant_id}\tread_stores\t${new Date(NOW + 900_000).toISOString()}\n`);
    expect(t.stdout()).not.toContain('new\t');
  });
});
