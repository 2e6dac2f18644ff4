// `svc config list|get` read a profile as it is, including one without a base URL yet.
import { describe, expect, it } from 'vitest';
import { run as get } from '../../src/commands/config/get.js';
import { run as list } from '../../src/commands/config/list.js';
import { run as set } from '../../src/commands/config/set.js';
import { validateConfigValue } from '../../src/config/keys.js';
import { memoryConfigStore, type ProfileConfig } from '../../src/config/store.js';
import { NotFoundError } from '../../src/errors.js';
import { createFactory } from '../../src/factory.js';
import { testStreams } from '../../src/io/test-streams.js';

function setup(opts: { profile?: string; json?: boolean; env?: Record<string, string>; profiles?: Record<string, ProfileConfig> } = {}) {
  const t = testStreams({ json: Boolean(opts.json) });
  const f = createFactory({
    env: opts.env ?? {},
    globals: { profile: opts.profile, json: Boolean(opts.json), input: false, debug: false, color: false },
    io: t.io,
    config: memoryConfigStore(opts.profiles ?? {}),
  });
  return { t, f };
}

describe('svc config on a profile without a base URL', () => {
  it('list shows base-url as unset instead of failing', async () => {
    const { t, f } = setup({ profile: 'production', json: true, profiles: { production: { clientId: 'app_prod' } } });
    await list({}, f);
    expect(JSON.parse(t.stdout())).toEqual({
      profile: 'production',
      settings: [
        { key: 'base-url', value: null, source: null },
        { key: 'client-id', value: 'app_prod', source: 'profile' },
        { key: 'redirect-uri', value: 'http://127.0.0.1:8765/callback', source: 'default' },
        { key: 'grant', value: null, source: null },
        { key: 'scopes', value: 'write_receipts read_stores manage_client_applications', source: 'default' },
        { key: 'database-url', value: null, source: null },
      ],
    });
  });

  it('get prints the keys that are set, and base-url is "not set" (exit 6) rather than a usage error', async () => {
    const { t, f } = setup({ profile: 'production', profiles: { production: { clientId: 'app_prod' } } });
    await get({ key: 'client-id' }, f);
    expect(t.stdout()).toBe('app_prod\n');
    const error = await get({ key: 'base-url' }, f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    // The hint must set it for this profile, not for the default one.
    expect((error as NotFoundError).hint).toBe('run `svc config set base-url VALUE --profile production`');
  });

  it('still refuses an invalid base URL, naming where it came from', async () => {
    const { f } = setup({ env: { SVC_BASE_URL: 'http://api.example.com' } });
    await expect(list({}, f)).rejects.toThrow(/^SVC_BASE_URL: http:\/\/ is refused/);
  });
});

describe('svc config set', () => {
  it('stores the value, and says when an environment variable overrides it', async () => {
    const { t, f } = setup({ env: { SVC_BASE_URL: 'http://127.0.0.1:9999' } });
    await set({ key: 'base-url', value: 'https://api.example.com' }, f);
    expect((await f.config()).profile('local').baseUrl).toBe('https://api.example.com');
    expect(t.stderr()).toBe(
      'set base-url for profile "local"\nnote: SVC_BASE_URL is set, and takes precedence over the base-url of profile "local" for as long as it is set\n',
    );

    const quiet = setup();
    await set({ key: 'client-id', value: 'app_x' }, quiet.f);
    expect(quiet.t.stderr()).toBe('set client-id for profile "local"\n');
  });
});

describe('svc config set: the note on what overrides the stored value names what does, in a whole sentence', () => {
  function setupWith(env: Record<string, string>, flags: { baseUrl?: string; grant?: string } = {}) {
    const t = testStreams({ json: false });
    const f = createFactory({ env, globals: { profile: 'production', json: false, input: false, debug: false, color: false, ...flags }, io: t.io, config: memoryConfigStore({}) });
    return { t, f };
  }

  it.each([
    ['base-url', 'https://api.example.com', { SVC_BASE_URL: 'https://other.example.com' }, {}, 'SVC_BASE_URL is set, and takes precedence over the base-url of profile "production" for as long as it is set'],
    ['base-url', 'https://api.example.com', {}, { baseUrl: 'https://other.example.com' }, '--base-url is given, and takes precedence over the base-url of profile "production" in any command it is given to'],
    ['client-id', 'app_x', { SVC_CLIENT_ID: 'app_y' }, {}, 'SVC_CLIENT_ID is set, and takes precedence over the client-id of profile "production" for as long as it is set'],
    ['grant', 'gr_1', { SVC_GRANT_ID: 'gr_2' }, {}, 'SVC_GRANT_ID is set, and takes precedence over the grant of profile "production" for as long as it is set'],
    ['grant', 'gr_1', {}, { grant: 'gr_2' }, '--grant is given, and takes precedence over the grant of profile "production" in any command it is given to'],
    ['database-url', 'postgres://svc@db.internal/svc', { SVC_DATABASE_URL: 'postgres://svc@other/svc' }, {}, 'SVC_DATABASE_URL is set, and takes precedence over the database-url of profile "production" for as long as it is set'],
  ])('%s with %j %j', async (key, value, env, flags, said) => {
    const { t, f } = setupWith(env, flags);
    await set({ key, value }, f);
    expect(t.stderr()).toBe(`set ${key} for profile "production"\nnote: ${said}\n`);
  });
});

describe('database-url', () => {
  it('is shown without its password, from the environment, and a stored one with a password is refused (exit 2)', async () => {
    const { t } = setup({ profile: 'local', json: true });
    const withEnv = createFactory({
      env: { SVC_DATABASE_URL: 'postgres://svc:s3cret@db.internal:5432/svc' },
      globals: { profile: 'local', json: true, input: false, debug: false, color: false },
      io: t.io,
      config: memoryConfigStore({}),
    });
    await list({}, withEnv);
    const rows = (JSON.parse(t.stdout()) as { settings: { key: string; value: string | null; source: string | null }[] }).settings;
    expect(rows.find((r) => r.key === 'database-url')).toEqual({ key: 'database-url', value: 'postgres://svc:***@db.internal:5432/svc', source: 'env' });
    expect(t.stdout()).not.toContain('s3cret');
    expect(() => validateConfigValue('database-url', 'postgres://svc:s3cret@db/svc')).toThrow(/must not hold a password/);
    expect(() => validateConfigValue('database-url', 'mysql://db/svc')).toThrow(/must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(validateConfigValue('database-url', 'postgresql://svc@db:5432/svc')).toBe('postgresql://svc@db:5432/svc');
  });
});

describe('config list on a terminal of 60 columns', () => {
  it('keeps every value whole (a long one wrapped in its column, never cut) and the source, not only the keys', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    t.io.columns = 60;
    const f = createFactory({
      env: {},
      globals: { profile: 'production', json: false, input: false, debug: false, color: false },
      io: t.io,
      config: memoryConfigStore({ production: { clientId: 'app_prod' } }),
    });
    await list({}, f);
    const lines = t.stdout().split('\n');
    expect(lines[0]).toMatch(/^KEY +VALUE +SOURCE$/);
    const scopes = lines.findIndex((l) => l.startsWith('scopes'));
    expect(lines[scopes]).toMatch(/^scopes +write_receipts read_stores +default$/);
    expect(lines[scopes + 1]).toMatch(/^ {14}manage_client_applications$/);
    expect(t.stdout()).not.toContain('…');
    expect(t.stdout()).not.toContain('not shown');
  });
});
