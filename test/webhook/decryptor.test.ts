// The listener's decryption thread, with stand-in worker files that speak the decryption
// pool's protocol, and the real worker bundled from the sources with esbuild (dist/ is
// driven by the e2e tests).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { memoryConfigStore } from '../../src/config/store.js';
import { encryptJson, type EncryptedItem } from '../../src/crypto/hybrid.js';
import { createFactory } from '../../src/factory.js';
import { testStreams } from '../../src/io/test-streams.js';
import { memorySecretStore } from '../../src/secrets/store.js';
import { createDecryptor, inProcessDecryptor, type Decryptor } from '../../src/webhook/decryptor.js';
import { watchKeyring } from '../../src/webhook/keyring.js';
import { CURRENT_KEY, FOREIGN_KEY, installKeys, OLD_KEY, returnRequest, type TestKey } from './setup.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const done of cleanup.splice(0)) await done();
});

async function workerFile(source: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-decrypt-worker-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'worker.mjs');
  await writeFile(path, source);
  return path;
}

const keyring = async () => [{ keyId: CURRENT_KEY.keyId, privateKeyPem: CURRENT_KEY.privateKeyPem }];

async function decryptor(file: string): Promise<Decryptor> {
  const d = await createDecryptor(keyring, { workerFile: file });
  cleanup.push(() => d.close());
  return d;
}

describe('createDecryptor', () => {
  it('sends what waits as one batch and answers each item in order', async () => {
    const file = await workerFile(`
      import { parentPort, workerData } from 'node:worker_threads';
      parentPort.on('message', ({ batch, items }) =>
        parentPort.postMessage({ batch, outcomes: items.map((item) => ({ ok: true, value: [item.ciphertext, items.length, workerData.keys.length], keyId: 'k' })) }));
    `);
    const d = await decryptor(file);
    const items = ['a', 'b', 'c', 'd'].map((c) => ({ ciphertext: c, wrappedKey: 'w' }));
    const outcomes = await Promise.all(items.map((item) => d.decrypt(item)));
    // The first goes alone; the three that waited meanwhile share the next message.
    expect(outcomes).toEqual([
      { ok: true, value: ['a', 1, 1], keyId: 'k' },
      { ok: true, value: ['b', 3, 1], keyId: 'k' },
      { ok: true, value: ['c', 3, 1], keyId: 'k' },
      { ok: true, value: ['d', 3, 1], keyId: 'k' },
    ]);
  });

  it('decrypts in-process when the worker dies', async () => {
    const file = await workerFile(`process.exit(3);`);
    const d = await decryptor(file);
    const sealed = encryptJson(returnRequest('sr-1'), CURRENT_KEY.publicKey);
    const outcome = await d.decrypt({ ciphertext: sealed.ciphertext, wrappedKey: sealed.wrappedKey, publicKey: CURRENT_KEY.publicKey });
    expect(outcome).toEqual({ ok: true, value: returnRequest('sr-1'), keyId: CURRENT_KEY.keyId });
  });

  it('reports a keyring that cannot be loaded per item, in-process', async () => {
    const d = await createDecryptor(async () => {
      throw new Error('the key index is damaged');
    }, { workerFile: await workerFile('throw new Error("never started");') });
    cleanup.push(() => d.close());
    expect(await d.decrypt({ ciphertext: 'x', wrappedKey: 'y' })).toEqual({ ok: false, error: 'the key index is damaged' });
  });
});

async function realWorkerFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-decrypt-worker-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const outfile = join(dir, 'decrypt-worker.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, '../../src/crypto/decrypt-worker.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
  });
  return outfile;
}

function sealedFor(key: TestKey, serviceReceiptId: string): EncryptedItem {
  const sealed = encryptJson(returnRequest(serviceReceiptId), key.publicKey);
  return { ciphertext: sealed.ciphertext, wrappedKey: sealed.wrappedKey, publicKey: key.publicKey };
}

/** A profile with OLD_KEY in an in-memory store, and the listener's keyring over it. */
async function profileWithOldKey() {
  const store = memorySecretStore();
  await installKeys(store, [OLD_KEY]);
  const f = createFactory({
    env: {},
    globals: { json: false, input: false, debug: false, color: false },
    io: testStreams().io,
    clock: fixedClock(Date.UTC(2025, 0, 1)),
    config: memoryConfigStore(),
    secrets: store,
  });
  return { store, keyring: watchKeyring(f) };
}

describe('a key stored after the decryptor was made (`svc keys rotate` while listening)', () => {
  const makers: [string, (k: ReturnType<typeof watchKeyring>) => Promise<Decryptor>][] = [
    ['in-process', async (k) => inProcessDecryptor(k.current, { reloadFor: k.reloadFor })],
    ['on the worker thread', async (k) => createDecryptor(k.current, { reloadFor: k.reloadFor, workerFile: await realWorkerFile() })],
  ];
  for (const [where, make] of makers) {
    it(`decrypts the items for it once the keyring was read again, ${where}`, async () => {
      const { store, keyring } = await profileWithOldKey();
      const d = await make(keyring);
      cleanup.push(() => d.close());
      expect(await d.decrypt(sealedFor(OLD_KEY, 'sr-old'))).toMatchObject({ ok: true, keyId: OLD_KEY.keyId });

      await installKeys(store, [OLD_KEY, CURRENT_KEY]);
      const outcomes = await Promise.all([sealedFor(CURRENT_KEY, 'sr-new-1'), sealedFor(CURRENT_KEY, 'sr-new-2'), sealedFor(OLD_KEY, 'sr-old-2')].map((item) => d.decrypt(item)));
      expect(outcomes).toEqual([
        { ok: true, value: returnRequest('sr-new-1'), keyId: CURRENT_KEY.keyId },
        { ok: true, value: returnRequest('sr-new-2'), keyId: CURRENT_KEY.keyId },
        { ok: true, value: returnRequest('sr-old-2'), keyId: OLD_KEY.keyId },
      ]);
      // Later items for the new key need no further read.
      expect(await d.decrypt(sealedFor(CURRENT_KEY, 'sr-new-3'))).toMatchObject({ ok: true, keyId: CURRENT_KEY.keyId });
    });

    it(`still reports an item for a key the store does not hold, ${where}`, async () => {
      const { keyring } = await profileWithOldKey();
      const d = await make(keyring);
      cleanup.push(() => d.close());
      expect(await d.decrypt(sealedFor(FOREIGN_KEY, 'sr-foreign'))).toEqual({
        ok: false,
        error: `cannot decrypt: no private key matches the item's public key ${FOREIGN_KEY.keyId}`,
        missingKeyId: FOREIGN_KEY.keyId,
      });
      expect(await d.decrypt(sealedFor(OLD_KEY, 'sr-old'))).toMatchObject({ ok: true, keyId: OLD_KEY.keyId });
    });
  }
});
