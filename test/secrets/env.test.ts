import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { envVariableFor, SECRET_ENV_VARIABLES, withEnvSecrets } from '../../src/secrets/env.js';
import { memorySecretStore } from '../../src/secrets/store.js';

let dir: string;
let pemPath: string;
const PEM = '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-env-secrets-'));
  pemPath = join(dir, 'key.pem');
  await writeFile(pemPath, PEM);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('withEnvSecrets', () => {
  it('answers from the variables of docs/interface-decisions.md#credentials-from-the-environment before the store', async () => {
    const inner = memorySecretStore({ 'client-secret': 'stored', 'api-key': 'stored-key', 'webhook-secret': 'stored-wh' });
    const store = withEnvSecrets(inner, {
      SVC_CLIENT_SECRET: 'from-env',
      SVC_API_KEY: 'env-key',
      SVC_WEBHOOK_SECRET: 'whsec_env',
      SVC_PRIVATE_KEY_FILE: pemPath,
    });
    expect(await store.get('client-secret')).toBe('from-env');
    expect(await store.get('api-key')).toBe('env-key');
    expect(await store.get('webhook-secret')).toBe('whsec_env');
    expect(await store.get('private-key')).toBe(PEM);
  });

  it('falls through to the store when the variable is unset or empty', async () => {
    const store = withEnvSecrets(memorySecretStore({ 'client-secret': 'stored' }), { SVC_CLIENT_SECRET: '' });
    expect(await store.get('client-secret')).toBe('stored');
    expect(await store.get('api-key')).toBeNull();
  });

  it('sends writes and deletes to the store underneath, even for a key the environment overrides', async () => {
    const inner = memorySecretStore();
    const store = withEnvSecrets(inner, { SVC_CLIENT_SECRET: 'from-env' });
    await store.set('client-secret', 'new');
    expect(inner.dump()).toEqual({ 'client-secret': 'new' });
    expect(await store.get('client-secret')).toBe('from-env');
    expect(await store.delete('client-secret')).toBe(true);
    expect(inner.dump()).toEqual({});
  });

  it('keeps the backend and description of the store underneath', () => {
    const store = withEnvSecrets(memorySecretStore(), {});
    expect(store.backend).toBe('memory');
    expect(store.describe()).toBe('in memory (tests)');
  });

  it('names SVC_PRIVATE_KEY_FILE when the PEM file cannot be read', async () => {
    const missing = join(dir, 'missing.pem');
    const error = await withEnvSecrets(memorySecretStore(), { SVC_PRIVATE_KEY_FILE: missing })
      .get('private-key')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(`SVC_PRIVATE_KEY_FILE: cannot read "${missing}" (ENOENT)`);
    expect((error as UsageError).hint).toContain('SVC_PRIVATE_KEY_FILE');
  });
});

describe('envVariableFor', () => {
  it('names the overriding variable only when it is set', () => {
    const env = { SVC_CLIENT_SECRET: 'x', SVC_API_KEY: '' };
    expect(envVariableFor(env, 'client-secret')).toBe('SVC_CLIENT_SECRET');
    expect(envVariableFor(env, 'api-key')).toBeUndefined();
    expect(envVariableFor(env, 'webhook-secret')).toBeUndefined();
    expect(envVariableFor({ toString: 'x' }, 'toString')).toBeUndefined();
  });

  it('covers exactly the credential variables of docs/interface-decisions.md#credentials-from-the-environment', () => {
    expect(Object.values(SECRET_ENV_VARIABLES).sort()).toEqual([
      'SVC_API_KEY',
      'SVC_CLIENT_SECRET',
      'SVC_PRIVATE_KEY_FILE',
      'SVC_WEBHOOK_SECRET',
    ]);
  });
});
