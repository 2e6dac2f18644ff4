import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretStoreError, UsageError } from '../../src/errors.js';
import { testStreams } from '../../src/io/test-streams.js';
import { chooseSecretBackend, openSecretStore } from '../../src/secrets/open.js';
import { fakeKeyring } from './fake-keyring.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-open-secrets-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function options(env: Record<string, string>, profile = 'local') {
  const t = testStreams();
  const paths = { configDir: join(root, 'config'), stateDir: join(root, 'state') };
  return { t, paths, opts: { env, paths, io: t.io, profile } };
}

describe('chooseSecretBackend', () => {
  it('defaults to the keychain and accepts the two documented values', () => {
    expect(chooseSecretBackend({})).toBe('keychain');
    expect(chooseSecretBackend({ SVC_SECRET_STORE: '' })).toBe('keychain');
    expect(chooseSecretBackend({ SVC_SECRET_STORE: 'keychain' })).toBe('keychain');
    expect(chooseSecretBackend({ SVC_SECRET_STORE: 'file' })).toBe('file');
  });

  it('refuses anything else with a usage error naming the variable and both values', () => {
    for (const value of ['File', 'plain', 'memory']) {
      let error: unknown;
      try {
        chooseSecretBackend({ SVC_SECRET_STORE: value });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UsageError);
      const { message, hint } = error as UsageError;
      expect(message).toContain('SVC_SECRET_STORE');
      expect(message).toContain(value);
      expect(hint).toContain('SVC_SECRET_STORE=keychain');
      expect(hint).toContain('SVC_SECRET_STORE=file');
    }
  });
});

describe('openSecretStore', () => {
  it('refuses an unknown SVC_SECRET_STORE before touching any backend', async () => {
    const fake = fakeKeyring();
    const { opts } = options({ SVC_SECRET_STORE: 'plaintext' });
    await expect(openSecretStore({ ...opts, loadKeyring: async () => fake.module })).rejects.toBeInstanceOf(UsageError);
    expect(fake.entries).toEqual([]);
  });

  it('uses the probed keychain by default, with keys scoped to the profile', async () => {
    const fake = fakeKeyring();
    const { opts } = options({}, 'sandbox');
    const store = await openSecretStore({ ...opts, loadKeyring: async () => fake.module });
    expect(store.backend).toBe('keychain');
    await store.set('client-secret', 's3cret');
    expect([...fake.items.keys()]).toEqual(['svc/sandbox/client-secret']);
    expect(await store.get('client-secret')).toBe('s3cret');
  });

  it('fails without a usable keychain, naming SVC_SECRET_STORE=file, and writes no file', async () => {
    const fake = fakeKeyring({
      construct: () => {
        throw new Error('Platform failure: DBus error: Failed to connect to socket /nonexistent');
      },
    });
    const { opts, paths, t } = options({});
    const error = await openSecretStore({ ...opts, loadKeyring: async () => fake.module }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretStoreError);
    expect((error as SecretStoreError).hint).toContain(`SVC_SECRET_STORE=file`);
    expect((error as SecretStoreError).hint).toContain(join(paths.configDir, 'secrets.json'));
    await expect(stat(paths.configDir)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(t.stderr()).toBe('');
  });

  it('uses the file with SVC_SECRET_STORE=file, scoped to the profile, and never loads the keychain', async () => {
    const { opts, paths } = options({ SVC_SECRET_STORE: 'file' }, 'production');
    const store = await openSecretStore({
      ...opts,
      loadKeyring: () => Promise.reject(new Error('the keychain must not be loaded')),
    });
    expect(store.backend).toBe('file');
    expect(store.describe()).toContain(join(paths.configDir, 'secrets.json'));
    await store.set('api-key', 'k');
    expect(JSON.parse(await readFile(join(paths.configDir, 'secrets.json'), 'utf8'))).toEqual({ 'production/api-key': 'k' });
  });

  it('keeps profiles apart', async () => {
    const a = await openSecretStore(options({ SVC_SECRET_STORE: 'file' }, 'a').opts);
    const b = await openSecretStore(options({ SVC_SECRET_STORE: 'file' }, 'b').opts);
    await a.set('client-secret', 'secret-of-a');
    expect(await b.get('client-secret')).toBeNull();
  });

  it('lays the environment over the store', async () => {
    const { opts } = options({ SVC_SECRET_STORE: 'file', SVC_CLIENT_SECRET: 'from-env' });
    const store = await openSecretStore(opts);
    await store.set('client-secret', 'stored');
    expect(await store.get('client-secret')).toBe('from-env');
  });
});
