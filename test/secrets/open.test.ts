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

  const noDbus = () =>
    fakeKeyring({
      construct: () => {
        throw new Error('Platform failure: DBus error: Failed to connect to socket /nonexistent');
      },
    });

  it('fails without a usable keychain on any profile but local, naming SVC_SECRET_STORE=file, and writes no file', async () => {
    const fake = noDbus();
    const { opts, paths, t } = options({}, 'sandbox');
    const error = await openSecretStore({ ...opts, loadKeyring: async () => fake.module }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretStoreError);
    expect((error as SecretStoreError).hint).toContain(`SVC_SECRET_STORE=file`);
    expect((error as SecretStoreError).hint).toContain(join(paths.configDir, 'secrets.json'));
    await expect(stat(paths.configDir)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(t.stderr()).toBe('');
  });

  it('keeps the local profile\'s sandbox secrets in the private file without a keychain, saying so once', async () => {
    const { opts, paths, t } = options({});
    const store = await openSecretStore({ ...opts, loadKeyring: async () => noDbus().module });
    expect(store.backend).toBe('file');
    expect(store.describe()).toContain(join(paths.configDir, 'secrets.json'));
    expect(t.stderr()).toBe('');
    await store.set('private-key/a', 'pem-a');
    await store.set('private-key/b', 'pem-b');
    const again = await openSecretStore({ ...options({}).opts, io: t.io, loadKeyring: async () => noDbus().module });
    await again.set('token/g', 'tok');
    expect(await again.get('private-key/a')).toBe('pem-a');
    const notes = t.stderr().split('\n').filter((l) => l !== '');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^note: no usable OS keychain here \(DBus error: Failed to connect to socket \/nonexistent\), so the local profile keeps its sandbox secrets in /);
    expect((await stat(join(paths.configDir, 'secrets.json'))).mode & 0o777).toBe(0o600);
    expect(t.stderr()).not.toContain('pem-a');
  });

  it('never falls back when SVC_SECRET_STORE=keychain asks for the keychain, even on local', async () => {
    const { opts } = options({ SVC_SECRET_STORE: 'keychain' });
    await expect(openSecretStore({ ...opts, loadKeyring: async () => noDbus().module })).rejects.toBeInstanceOf(SecretStoreError);
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
