import { describe, expect, it } from 'vitest';
import { SecretStoreError } from '../../src/errors.js';
import { describeKeychain, openKeychainStore, PROBE_PREFIX, probeKeychain } from '../../src/secrets/keychain.js';
import { fakeKeyring, type FakeBehaviour } from './fake-keyring.js';

const filePath = '/home/me/.config/svc/secrets.json';

function open(behaviour: FakeBehaviour = {}, extra: { probeTimeoutMs?: number; timeoutMs?: number } = {}) {
  const fake = fakeKeyring(behaviour);
  const store = openKeychainStore({ filePath, load: async () => fake.module, platform: 'linux', ...extra });
  return { fake, store };
}

async function failure(promise: Promise<unknown>): Promise<SecretStoreError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SecretStoreError);
  return error as SecretStoreError;
}

function expectUnusable(error: SecretStoreError, reason: RegExp): void {
  expect(error.message).toMatch(/^no usable OS keychain \(/);
  expect(error.message).toMatch(reason);
  expect(error.hint).toContain('SVC_SECRET_STORE=file');
  expect(error.hint).toContain(filePath);
  expect(error.exitCode).toBe(2);
}

describe('openKeychainStore', () => {
  it('probes with a random value under the probe account, leaves nothing behind, and pins the Secret Service', async () => {
    const { fake, store } = open();
    const s = await store;
    expect(s.backend).toBe('keychain');
    expect(fake.entries[0]).toEqual({ service: 'svc', account: expect.stringMatching(new RegExp(`^${PROBE_PREFIX}${process.pid}-[0-9a-f]{12}$`)), options: { linux: { store: 'secret-service' } } });
    expect(fake.items.size).toBe(0);
    expect(fake.signals.length).toBe(3);
  });

  it('stores under service "svc" with the key as account, keytar-style get/set/delete', async () => {
    const { fake, store } = open();
    const s = await store;
    expect(await s.get('local/client-secret')).toBeNull();
    await s.set('local/client-secret', 's3cret');
    expect(fake.items.get('svc/local/client-secret')).toBe('s3cret');
    expect(await s.get('local/client-secret')).toBe('s3cret');
    expect(await s.delete('local/client-secret')).toBe(true);
    expect(await s.delete('local/client-secret')).toBe(false);
    expect(fake.entries.every((e) => JSON.stringify(e.options) === '{"linux":{"store":"secret-service"}}')).toBe(true);
  });

  it('refuses a keychain whose backend cannot be reached (the constructor throws)', async () => {
    const { store } = open({
      construct: () => {
        throw new Error('Platform failure: DBus error: Failed to connect to socket /nonexistent: No such file or directory');
      },
    });
    expectUnusable(await failure(store), /\(DBus error: Failed to connect to socket \/nonexistent/);
  });

  it('refuses a keychain that reports "not found" for what was just written', async () => {
    const { fake, store } = open({ get: () => null });
    expectUnusable(await failure(store), /could not be read back/);
    // Nothing was given back to the caller, so nothing may be written with it later.
    expect(fake.entries.every((e) => e.account.startsWith(PROBE_PREFIX))).toBe(true);
  });

  it('refuses a keychain that reads back another value (the silent fallback symptom)', async () => {
    const { store } = open({ get: () => 'stale value from elsewhere' });
    expectUnusable(await failure(store), /read back differently/);
  });

  it('gives up after the probe timeout even though the native call ignores its abort signal', async () => {
    const { fake, store } = open({ hang: true }, { probeTimeoutMs: 50 });
    const started = Date.now();
    expectUnusable(await failure(store), /no answer within 0\.05 s/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fake.signals[0]?.aborted).toBe(true);
  });

  it('says so when the native module cannot be loaded', async () => {
    const error = await failure(
      openKeychainStore({
        filePath,
        load: () => Promise.reject(new Error('Cannot find native binding')),
      }),
    );
    expectUnusable(error, /cannot load @napi-rs\/keyring: Cannot find native binding/);
  });

  it('probes once per process and keyring module', async () => {
    const fake = fakeKeyring();
    const load = async () => fake.module;
    await openKeychainStore({ filePath, load });
    await openKeychainStore({ filePath, load });
    expect(fake.entries.filter((e) => e.account.startsWith(PROBE_PREFIX))).toHaveLength(1);
  });

  it('turns a failing or hanging operation into a SecretStoreError naming the account, never the value', async () => {
    let hang = false;
    const fake = fakeKeyring({ get: (stored) => (hang ? new Promise(() => {}) : (stored ?? null)) });
    const s = await openKeychainStore({ filePath, load: async () => fake.module, timeoutMs: 50 });
    hang = true;
    const error = await failure(s.get('local/api-key'));
    expect(error.message).toMatch(/^OS keychain: cannot read local\/api-key \(no answer within 0\.05 s/);
  });
});

describe('probeKeychain', () => {
  it('fails when the probe item vanished before it was deleted', async () => {
    const fake = fakeKeyring();
    const { AsyncEntry } = fake.module;
    const module = {
      AsyncEntry: class extends AsyncEntry {
        override deletePassword() {
          return Promise.resolve(false);
        }
      },
    };
    await expect(probeKeychain(module, 1_000)).rejects.toThrow(/gone before it was deleted/);
  });
});

describe('describeKeychain', () => {
  it('names the platform keychain', () => {
    expect(describeKeychain('linux')).toBe('OS keychain (Secret Service)');
    expect(describeKeychain('darwin')).toBe('macOS Keychain');
    expect(describeKeychain('win32')).toBe('Windows Credential Manager');
  });
});
