// The listener's decryption thread, with stand-in worker files that speak the decryption
// pool's protocol (the real one is only built into dist/, which the e2e test drives).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encryptJson } from '../../src/crypto/hybrid.js';
import { createDecryptor, type Decryptor } from '../../src/webhook/decryptor.js';
import { CURRENT_KEY, returnRequest } from './setup.js';

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
  const d = await createDecryptor(keyring, file);
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
    }, await workerFile('throw new Error("never started");'));
    cleanup.push(() => d.close());
    expect(await d.decrypt({ ciphertext: 'x', wrappedKey: 'y' })).toEqual({ ok: false, error: 'the key index is damaged' });
  });
});
