import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/auth/status.js';
import { fixedClock } from '../../../src/clock.js';
import { memoryConfigStore, type ProfileConfig } from '../../../src/config/store.js';
import { SecretStoreError, UsageError } from '../../../src/errors.js';
import { generateAndStore } from '../../../src/keys/keystore.js';
import { createFactory, type Factory } from '../../../src/factory.js';
import { testStreams } from '../../../src/io/test-streams.js';
import { memorySecretStore, type SecretStore } from '../../../src/secrets/store.js';

const globals = { json: false, input: false, debug: false, color: false };

function setup(opts: { env?: Record<string, string>; json?: boolean; secrets?: SecretStore; profile?: ProfileConfig } = {}) {
  const t = testStreams({ json: Boolean(opts.json) });
  const f = createFactory({
    env: opts.env ?? {},
    globals: { ...globals, json: Boolean(opts.json) },
    io: t.io,
    clock: fixedClock(Date.parse('2026-11-21T10:00:00Z')),
    config: memoryConfigStore({ local: { clientId: 'client-123', ...opts.profile } }),
    ...(opts.secrets ? { secrets: opts.secrets } : {}),
  });
  return { t, f };
}

const SECRET = 'very-secret-value';

describe('auth status', () => {
  it('says which backend holds which key, and where env variables override, never the values', async () => {
    const { t, f } = setup({
      env: { SVC_WEBHOOK_SECRET: 'whsec_from_env' },
      secrets: memorySecretStore({ 'client-secret': SECRET }),
    });
    await run({}, f);
    expect(t.stdout()).toBe(
      [
        'profile         local (default)',
        'base URL        http://127.0.0.1:8787 (default)',
        'client ID       client-123 (profile)',
        'secret store    in memory (tests)',
        'client-secret   set (memory)',
        'api-key         not set',
        'webhook-secret  set (env SVC_WEBHOOK_SECRET)',
        'private-key     not set',
        '',
      ].join('\n'),
    );
    expect(t.stdout()).not.toContain(SECRET);
    expect(t.stdout()).not.toContain('whsec_from_env');
  });

  it('--json gives the same report as one object', async () => {
    const { t, f } = setup({ json: true, env: { SVC_API_KEY: 'k' }, secrets: memorySecretStore({ 'client-secret': SECRET }) });
    await run({}, f);
    expect(JSON.parse(t.stdout())).toEqual({
      profile: { value: 'local', source: 'default' },
      baseUrl: { value: 'http://127.0.0.1:8787', source: 'default' },
      clientId: { value: 'client-123', source: 'profile' },
      secretStore: { backend: 'memory', description: 'in memory (tests)' },
      secrets: {
        'client-secret': { set: true, source: 'memory' },
        'api-key': { set: true, source: 'env', variable: 'SVC_API_KEY' },
        'webhook-secret': { set: false, source: null, subscriptions: 0 },
        'private-key': { set: false, source: null, keyPairs: 0, currentKeyId: null },
      },
      authorizations: [],
    });
    expect(t.stdout()).not.toContain(SECRET);
    expect(t.stderr()).toBe('');
  });

  it('counts the key pairs and subscription secrets, and names the built-in sandbox client secret', async () => {
    const state = await mkdtemp(join(tmpdir(), 'svc-status-'));
    try {
      const subscriptions = join(state, 'local', 'webhooks');
      await mkdir(subscriptions, { recursive: true });
      const subscription = (id: string) => ({ id, name: id, notificationUrl: 'https://example.com/hook', events: ['RETURN_REQUESTED'], createdAt: '2026-11-21T09:00:00Z' });
      await writeFile(join(subscriptions, 'subscriptions.json'), JSON.stringify({ version: 1, subscriptions: [subscription('s-1'), subscription('s-2')] }));
      const { t, f } = setup({ env: { SVC_STATE_DIR: state }, profile: { clientId: 'app_sandbox_pos' }, secrets: memorySecretStore() });
      await generateAndStore(f);
      const current = await generateAndStore(f);
      await run({}, f);
      expect(t.stdout()).toMatch(/^client-secret {3}set \(built-in sandbox client secret\)$/m);
      expect(t.stdout()).toMatch(new RegExp(`^private-key {5}2 key pairs of \`svc keys\`, current ${current.keyId}$`, 'm'));
      expect(t.stdout()).toMatch(/^webhook-secret {2}2 subscription secrets$/m);
      expect(t.stdout()).not.toContain('PRIVATE KEY');
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });

  it('reports what it can when the store cannot be opened, with the hint on stderr, and exits 0 (README)', async () => {
    const { t, f: base } = setup({ json: true, env: { SVC_CLIENT_SECRET: SECRET } });
    const broken = new SecretStoreError('no usable OS keychain (DBus error)', { hint: 'set SVC_SECRET_STORE=file ...' });
    const f: Factory = { ...base, io: base.io, secrets: () => Promise.reject(broken) };
    await run({}, f);
    expect(t.stderr()).toBe('warning: no usable OS keychain (DBus error)\nhint: set SVC_SECRET_STORE=file ...\n');
    const report = JSON.parse(t.stdout());
    expect(report.secretStore).toEqual({ backend: 'keychain', description: null, error: 'no usable OS keychain (DBus error)' });
    expect(report.secrets['client-secret']).toEqual({ set: true, source: 'env', variable: 'SVC_CLIENT_SECRET' });
    expect(report.secrets['api-key']).toEqual({ set: null, source: null });
    expect(t.stdout()).not.toContain(SECRET);
  });

  it('reports an invalid SVC_SECRET_STORE in the human report and fails with the usage error', async () => {
    const { t, f } = setup({ env: { SVC_SECRET_STORE: 'plain' } });
    await expect(run({}, f)).rejects.toBeInstanceOf(UsageError);
    expect(t.stdout()).toMatch(/^secret store {4}unavailable: SVC_SECRET_STORE: "plain" is not a secret store$/m);
    expect(t.stdout()).toMatch(/^api-key {9}unknown \(secret store unavailable\)$/m);
  });

  it('marks a key the store failed to read, and says so on stderr', async () => {
    const store = memorySecretStore();
    const broken = new SecretStoreError('OS keychain: cannot read local/api-key (no answer within 30 s)');
    const flaky: SecretStore = { ...store, get: async (key) => (key === 'api-key' ? Promise.reject(broken) : store.get(key)) };
    const { t, f } = setup({ secrets: flaky });
    await run({}, f);
    expect(t.stderr()).toContain('warning: OS keychain: cannot read local/api-key');
    expect(t.stdout()).toMatch(/^api-key {9}unknown: OS keychain: cannot read local\/api-key/m);
    expect(t.stdout()).toMatch(/^client-secret {3}not set$/m);
  });

  it('lists the Grants with their cached tokens\' expiry, never the tokens', async () => {
    const grant = {
      grant_id: 'g-1',
      grant_version: 1,
      issuer_company_id: 'c-1',
      company_legal_name: 'Example Retail Ltd',
      tax_id: 'EU1',
      scopes: ['write_receipts'],
      store_ids: [],
      store_access_mode: 'ALL_STORES',
    };
    const token = { access_token: 'tok-very-secret', token_type: 'bearer', expires_at: '2026-11-21T10:10:00.000Z', scope: 'write_receipts' };
    const { t, f } = setup({
      json: true,
      profile: { grants: [grant], grant: 'g-1' },
      secrets: memorySecretStore({ 'token/g-1': JSON.stringify({ write_receipts: token }) }),
    });
    await run({}, f);
    expect(JSON.parse(t.stdout()).authorizations).toEqual([
      { kind: 'grant', id: 'g-1', name: 'Example Retail Ltd', isDefault: true, tokens: [{ scope: 'write_receipts', expiresAt: token.expires_at }] },
    ]);
    const human = setup({ profile: { grants: [grant], grant: 'g-1' }, secrets: memorySecretStore({ 'token/g-1': JSON.stringify({ write_receipts: token }) }) });
    await run({}, human.f);
    expect(human.t.stdout()).toContain('grant           g-1 Example Retail Ltd (default); write_receipts token expires in 10m');
    expect(t.stdout() + human.t.stdout()).not.toContain('tok-very-secret');
  });

  it('reports a profile that has no base URL yet instead of failing', async () => {
    const t = testStreams({ json: true });
    const f = createFactory({
      env: {},
      globals: { ...globals, profile: 'production', json: true },
      io: t.io,
      config: memoryConfigStore({ production: { clientId: 'app_prod' } }),
      secrets: memorySecretStore(),
    });
    await run({}, f);
    expect(JSON.parse(t.stdout())).toMatchObject({
      profile: { value: 'production', source: 'flag' },
      baseUrl: null,
      clientId: { value: 'app_prod', source: 'profile' },
    });
  });
});
