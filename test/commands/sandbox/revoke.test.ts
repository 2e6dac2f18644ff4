import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/api/client.js';
import { fixedClock } from '../../../src/clock.js';
import { run } from '../../../src/commands/sandbox/revoke.js';
import { NotFoundError } from '../../../src/errors.js';
import { createFactory } from '../../../src/factory.js';
import { testStreams } from '../../../src/io/test-streams.js';
import { grantAndTokenForTests, isLiveToken } from '../../../src/sandbox/guard.js';
import { RETAIL, START, startOAuthSandbox, type OAuthHarness } from '../../sandbox/oauth-helpers.js';

describe('svc sandbox revoke GRANT_ID', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthSandbox();
  });
  afterAll(() => h.close());

  function harness(json = false) {
    const streams = testStreams({ json });
    const api = createApiClient({ baseUrl: h.running.url, io: streams.io, debug: false, clock: fixedClock(START) });
    const f = createFactory({ env: {}, globals: { json, input: false, debug: false, color: false }, io: streams.io, api });
    return { streams, f, close: () => api.close() };
  }

  it('revokes the Grant: its tokens stop working, and says so', async () => {
    const { grantId, token } = grantAndTokenForTests(h.sandbox, { companyId: RETAIL, scopes: ['write_receipts'] });
    const t = harness();
    await run({ grantId }, t.f);
    await t.close();
    expect(t.streams.stderr()).toContain(`Grant ${grantId} of company ${RETAIL} is revoked (version 2)`);
    expect(isLiveToken(h.sandbox, token)).toBe(false);
  });

  it('prints the revocation with --json', async () => {
    const { grantId } = grantAndTokenForTests(h.sandbox, { companyId: RETAIL, scopes: ['write_receipts'] });
    const t = harness(true);
    await run({ grantId }, t.f);
    await t.close();
    expect(JSON.parse(t.streams.stdout())).toMatchObject({ grant_id: grantId, status: 'REVOKED', issuer_company_id: RETAIL });
  });

  it('names an unknown Grant as not found', async () => {
    const t = harness();
    await expect(run({ grantId: 'no-such-grant' }, t.f)).rejects.toThrow(NotFoundError);
    await t.close();
  });
});
