// `svc auth logout [--all]` over the file secret store, the one every profile's store is
// opened from: what a login left behind (access tokens, refresh tokens, the client secret,
// the Grants in the profile) goes; keys, webhook secrets, the API key and settings stay.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, type LogoutResult } from '../../../src/commands/auth/logout.js';
import { memoryConfigStore, type ProfileConfig } from '../../../src/config/store.js';
import { createFactory } from '../../../src/factory.js';
import { testStreams } from '../../../src/io/test-streams.js';
import { secretsFilePath } from '../../../src/secrets/file.js';
import { GRANT } from '../../auth/setup.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const COMPANY = {
  merchant_id: 'm-1',
  company_legal_name: 'Sample Foods GmbH',
  tax_id: 'EU000000002',
  customer_id: null,
  expires_at: '2025-01-01T00:15:00.000Z',
  refresh_expires_at: '2025-01-31T00:00:00.000Z',
  scope: 'write_receipts',
};

/** Two logged-in profiles in the config file (grant flow, code flow), and the built-in `sandbox` with only a client secret. */
const PROFILES: Record<string, ProfileConfig> = {
  local: { clientId: 'app_local', redirectUri: 'http://127.0.0.1:9999/callback', grants: [GRANT], grant: GRANT.grant_id },
  shop: { baseUrl: 'https://shop.example', clientId: 'app_shop', companies: [COMPANY], grant: COMPANY.merchant_id },
};

const LOGIN_SECRETS = {
  'local/client-secret': 'cs_local_0123456789abcdef',
  [`local/token/${GRANT.grant_id}`]: '{"write_receipts":{}}',
  'shop/client-secret': 'cs_shop_0123456789abcdef',
  'shop/token/m-1': '{"*":{}}',
  'shop/refresh-token/m-1': 'rt_shop_0123456789abcdef',
  'sandbox/client-secret': 'cs_sandbox_0123456789abcdef',
};

/** What logout never touches. */
const KEPT = {
  'local/keys-index': '{"version":1,"keys":[]}',
  'local/private-key/k-1': '-----BEGIN PRIVATE KEY-----\nlocal\n-----END PRIVATE KEY-----\n',
  'local/webhook-secret/whsub_1': 'whsec_local',
  'local/api-key': 'ak_local',
  'shop/private-key/k-2': '-----BEGIN PRIVATE KEY-----\nshop\n-----END PRIVATE KEY-----\n',
  'shop/webhook-secret': 'whsec_shop',
};

async function setup(opts: { profile?: string; json?: boolean; env?: Record<string, string>; secrets?: Record<string, string> } = {}) {
  const configDir = await mkdtemp(join(tmpdir(), 'svc-logout-'));
  dirs.push(configDir);
  await writeFile(secretsFilePath(configDir), JSON.stringify(opts.secrets ?? { ...LOGIN_SECRETS, ...KEPT }));
  const t = testStreams({ json: Boolean(opts.json) });
  const config = memoryConfigStore(PROFILES);
  const f = createFactory({
    env: { SVC_SECRET_STORE: 'file', SVC_CONFIG_DIR: configDir, SVC_STATE_DIR: configDir, ...opts.env },
    globals: { profile: opts.profile, json: Boolean(opts.json), input: false, debug: false, color: false },
    io: t.io,
    config,
  });
  const stored = async () => JSON.parse(await readFile(secretsFilePath(configDir), 'utf8')) as Record<string, string>;
  return { f, t, config, stored };
}

/** The file backend's own warning on every write. */
const withoutFileWarnings = (stderr: string) => stderr.replace(/^warning: secrets are stored in plain text .*\n/gm, '');

describe('auth logout --all', () => {
  it("removes every profile's tokens, refresh tokens and client secret, and keeps keys, webhook secrets and the API key", async () => {
    const { f, t, config, stored } = await setup();
    await run({ all: true }, f);
    expect(await stored()).toEqual(KEPT);
    expect(t.stdout()).toBe('');
    expect(withoutFileWarnings(t.stderr())).toBe(
      [
        'logged out of profile "local": removed 1 Grant, cached tokens of 1 Grant, the client secret',
        'logged out of profile "shop": removed 1 Grant, cached tokens of 1 Grant, 1 refresh token, the client secret',
        'logged out of profile "sandbox": removed 0 Grants, cached tokens of 0 Grants, the client secret',
        '',
      ].join('\n'),
    );
    // The Grants go from the profiles; their other settings stay, and no profile is added.
    expect(config.profileNames()).toEqual(['local', 'shop']);
    expect(config.profile('local')).toEqual({ clientId: 'app_local', redirectUri: 'http://127.0.0.1:9999/callback' });
    expect(config.profile('shop')).toEqual({ baseUrl: 'https://shop.example', clientId: 'app_shop' });
  });

  it('--json gives one result per profile', async () => {
    const { f, t } = await setup({ json: true });
    await run({ all: true }, f);
    expect(JSON.parse(t.stdout())).toEqual<LogoutResult[]>([
      { profile: 'local', grants: 1, tokens: 1, refreshTokens: 0, clientSecret: true },
      { profile: 'shop', grants: 1, tokens: 1, refreshTokens: 1, clientSecret: true },
      { profile: 'sandbox', grants: 0, tokens: 0, refreshTokens: 0, clientSecret: true },
    ]);
  });

  it('also removes the tokens cached for the Grant SVC_GRANT_ID names, in every profile', async () => {
    const { f, stored } = await setup({
      env: { SVC_GRANT_ID: 'g-env' },
      secrets: { ...LOGIN_SECRETS, ...KEPT, 'local/token/g-env': '{}', 'shop/token/g-env': '{}' },
    });
    await run({ all: true }, f);
    expect(await stored()).toEqual(KEPT);
  });

  it('works from a profile without a base URL, and notes that SVC_CLIENT_SECRET still supplies a secret', async () => {
    const { f, t, stored } = await setup({ profile: 'production', env: { SVC_CLIENT_SECRET: 'cs_env' } });
    await run({ all: true }, f);
    expect(await stored()).toEqual(KEPT);
    expect(withoutFileWarnings(t.stderr())).toMatch(
      /^logged out of profile "production": removed 0 Grants, cached tokens of 0 Grants, no stored client secret\n(.*\n){3}note: SVC_CLIENT_SECRET is still set and still supplies a client secret\n$/,
    );
    expect(t.stderr()).not.toContain('cs_');
  });
});

describe('auth logout', () => {
  it("removes only the current profile's login, from a profile without a base URL too", async () => {
    const { f, config, stored } = await setup({ profile: 'sandbox' });
    await run({ all: false }, f);
    const { 'sandbox/client-secret': removed, ...rest } = { ...LOGIN_SECRETS, ...KEPT };
    expect(removed).toBeDefined();
    expect(await stored()).toEqual(rest);
    expect(config.profileNames()).toEqual(['local', 'shop']);
    expect(config.profile('local')).toEqual(PROFILES.local);
  });
});
