import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { memoryConfigStore } from '../../src/config/store.js';
import { decryptWithKeyring, encryptJson } from '../../src/crypto/hybrid.js';
import { generateKeyPair, keyFingerprint, type GeneratedKeyPair } from '../../src/crypto/keys.js';
import {
  currentKey,
  generateAndStore,
  importedKey,
  listKeys,
  loadKeyring,
  markUploaded,
} from '../../src/keys/keystore.js';
import { NotFoundError, SvcError } from '../../src/errors.js';
import { createFactory, type Env } from '../../src/factory.js';
import { testStreams } from '../../src/io/test-streams.js';
import { withEnvSecrets } from '../../src/secrets/env.js';
import { memorySecretStore, type SecretStore } from '../../src/secrets/store.js';

function factory(opts: { env?: Env; secrets?: SecretStore } = {}) {
  const streams = testStreams();
  const secrets = opts.secrets ?? memorySecretStore();
  const f = createFactory({
    env: opts.env ?? {},
    globals: { json: false, input: false, debug: false, color: false },
    io: streams.io,
    clock: fixedClock(Date.UTC(2025, 0, 2, 3, 4, 5)),
    config: memoryConfigStore(),
    secrets,
  });
  return { f, streams, secrets };
}

describe('generateAndStore', () => {
  it('works on a profile without a base URL: keys are local', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-keys-'));
    try {
      const f = createFactory({
        env: { SVC_STATE_DIR: dir },
        globals: { profile: 'production', json: false, input: false, debug: false, color: false },
        io: testStreams().io,
        config: memoryConfigStore(),
        secrets: memorySecretStore(),
      });
      const key = await generateAndStore(f);
      expect((await listKeys(f)).map((k) => k.keyId)).toEqual([key.keyId]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps every key; the newest is current and leads the keyring', async () => {
    const store = memorySecretStore();
    const { f } = factory({ secrets: store });
    const first = await generateAndStore(f);
    const second = await generateAndStore(f);

    expect(first.keyId).toBe(keyFingerprint(first.publicKey));
    expect(first.createdAt).toBe('2025-01-02T03:04:05.000Z');
    expect(await listKeys(f)).toEqual([
      { ...second, current: true },
      { ...first, current: false },
    ]);
    expect((await currentKey(f))?.keyId).toBe(second.keyId);

    const ring = await loadKeyring(f);
    expect(ring.map((e) => e.keyId)).toEqual([second.keyId, first.keyId]);
    expect(ring[0]?.privateKeyPem).toContain('BEGIN PRIVATE KEY');

    // Storage layout: the private keys by keyId, and a non-secret index beside them.
    const dump = store.dump();
    expect(Object.keys(dump).sort()).toEqual(['keys-index', `private-key/${first.keyId}`, `private-key/${second.keyId}`].sort());
    expect(dump['keys-index']).not.toContain('PRIVATE KEY');

    // A value for the older key still opens, with and without the item naming its key.
    const sealed = encryptJson({ n: 1 }, first.publicKey);
    const item = { ciphertext: sealed.ciphertext, wrappedKey: sealed.wrappedKey };
    expect(decryptWithKeyring({ ...item, publicKey: first.publicKey }, ring)).toEqual({ value: { n: 1 }, keyId: first.keyId });
    expect(decryptWithKeyring(item, ring).keyId).toBe(first.keyId);

    // A later process (a fresh factory over the same store) sees the same keyring.
    expect((await loadKeyring(factory({ secrets: store }).f)).map((e) => e.keyId)).toEqual([second.keyId, first.keyId]);
  });

  it('markUploaded records the timestamp; an unknown key is not found', async () => {
    const store = memorySecretStore();
    const { f } = factory({ secrets: store });
    const key = await generateAndStore(f);
    expect(await markUploaded(f, key.keyId, '2025-01-03T00:00:00Z')).toMatchObject({ uploadedAt: '2025-01-03T00:00:00Z' });
    expect((await listKeys(f))[0]?.uploadedAt).toBe('2025-01-03T00:00:00Z');
    await expect(markUploaded(f, 'nope', 'x')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('loadKeyring', () => {
  let dir: string;
  let ci: GeneratedKeyPair;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-keystore-'));
    ci = await generateKeyPair();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('adds the key of SVC_PRIVATE_KEY_FILE first, once, and caches within the factory', async () => {
    const pemFile = join(dir, 'ci.pem');
    await writeFile(pemFile, ci.privateKeyPem);
    const env = { SVC_PRIVATE_KEY_FILE: pemFile };
    const ciKeyId = keyFingerprint(ci.publicKey);
    const store = memorySecretStore();
    const { f } = factory({ env, secrets: withEnvSecrets(store, env) });

    expect(await importedKey(f)).toEqual({ keyId: ciKeyId, publicKey: ci.publicKey, origin: 'SVC_PRIVATE_KEY_FILE' });
    expect(await listKeys(f)).toEqual([]);
    const ring = await loadKeyring(f);
    expect(ring).toEqual([{ keyId: ciKeyId, privateKeyPem: ci.privateKeyPem }]);
    expect(await loadKeyring(f)).toBe(ring);

    // The same key stored in the index as well is listed once.
    await store.set(`private-key/${ciKeyId}`, ci.privateKeyPem);
    await store.set(
      'keys-index',
      JSON.stringify({ version: 1, keys: [{ keyId: ciKeyId, publicKey: ci.publicKey, createdAt: 'x', current: true }] }),
    );
    expect((await loadKeyring(factory({ env, secrets: withEnvSecrets(store, env) }).f)).map((e) => e.keyId)).toEqual([ciKeyId]);
  });

  it('names SVC_PRIVATE_KEY_FILE when its content is not a private key', async () => {
    const pemFile = join(dir, 'bad.pem');
    await writeFile(pemFile, 'not a key');
    const env = { SVC_PRIVATE_KEY_FILE: pemFile };
    const { f } = factory({ env, secrets: withEnvSecrets(memorySecretStore(), env) });
    await expect(loadKeyring(f)).rejects.toThrow(/^SVC_PRIVATE_KEY_FILE: /);
  });

  it('warns about a listed key whose private half is gone, and fails on a damaged index', async () => {
    const index = { version: 1, keys: [{ keyId: 'gone', publicKey: ci.publicKey, createdAt: 'x', current: true }] };
    const { f, streams } = factory({ secrets: memorySecretStore({ 'keys-index': JSON.stringify(index) }) });
    expect(await loadKeyring(f)).toEqual([]);
    expect(streams.stderr()).toMatch(/private key of gone is missing/);

    const damaged = factory({ secrets: memorySecretStore({ 'keys-index': '{"version":1}' }) });
    await expect(listKeys(damaged.f)).rejects.toThrow(SvcError);
    await expect(listKeys(damaged.f)).rejects.toThrow(/key index of profile "local" .* is damaged/);
  });
});
