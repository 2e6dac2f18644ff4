// The listener's decryptor: RSA on a thread of its own (crypto/unwrap-threads.ts), the rest
// here; the in-process one `replay` uses; a key stored after the decryptor was made.
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority as osPriority } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { memoryConfigStore } from '../../src/config/store.js';
import { encryptJson, type EncryptedItem } from '../../src/crypto/hybrid.js';
import { threadUnwrapper } from '../../src/crypto/unwrap-threads.js';
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

const keyring = async () => [{ keyId: CURRENT_KEY.keyId, privateKeyPem: CURRENT_KEY.privateKeyPem }];

describe('createDecryptor', () => {
  it('answers each item, whichever order the thread finishes them in', async () => {
    const d = await createDecryptor(keyring);
    cleanup.push(() => d.close());
    const outcomes = await Promise.all(['a', 'b', 'c', 'd'].map((id) => d.decrypt(sealedFor(CURRENT_KEY, `sr-${id}`))));
    expect(outcomes).toEqual(['a', 'b', 'c', 'd'].map((id) => ({ ok: true, value: returnRequest(`sr-${id}`), keyId: CURRENT_KEY.keyId })));
  });

  it('decrypts in-process when the thread dies', async () => {
    const unwrapper = threadUnwrapper({ threads: 1, shareThisThread: false, threadSource: 'process.exit(3);' });
    const d = await createDecryptor(keyring, { unwrapper });
    cleanup.push(() => d.close());
    const outcomes = await Promise.all([d.decrypt(sealedFor(CURRENT_KEY, 'sr-1')), d.decrypt(sealedFor(CURRENT_KEY, 'sr-2'))]);
    expect(outcomes).toEqual([1, 2].map((n) => ({ ok: true, value: returnRequest(`sr-${n}`), keyId: CURRENT_KEY.keyId })));
  });

  it('after close, an event still asked for is decrypted here, not reported failed', async () => {
    const d = await createDecryptor(keyring);
    const asked = d.decrypt(sealedFor(CURRENT_KEY, 'sr-1'));
    await d.close();
    expect(await asked).toEqual({ ok: true, value: returnRequest('sr-1'), keyId: CURRENT_KEY.keyId });
    expect(await d.decrypt(sealedFor(CURRENT_KEY, 'sr-2'))).toMatchObject({ ok: true });
  });

  // Processing can wait, acknowledging cannot: under a burst the RSA thread takes a core only where nothing else wants it.
  it.runIf(process.platform === 'linux')('unwraps on a thread at the lowest priority (nice 19); the thread answering deliveries keeps its own', async () => {
    const niceOf = () =>
      new Map(
        readdirSync('/proc/self/task').flatMap((task) => {
          try {
            return [[task, Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1]!.split(' ')[16])] as const];
          } catch {
            return [];
          }
        }),
      );
    const before = niceOf();
    const d = await createDecryptor(keyring);
    cleanup.push(() => d.close());
    expect(await d.decrypt(sealedFor(CURRENT_KEY, 'sr-1'))).toMatchObject({ ok: true });
    const after = niceOf();
    const started = [...after].filter(([task]) => !before.has(task));
    expect(started.filter(([, nice]) => nice === 19)).toHaveLength(1);
    expect(after.get(String(process.pid)) ?? before.get(String(process.pid))).toBe(before.get(String(process.pid)));
    expect(osPriority()).toBe(0);
  });

  it('reports a keyring that cannot be loaded per item, as its outcome', async () => {
    const d = await createDecryptor(async () => {
      throw new Error('the key index is damaged');
    });
    cleanup.push(() => d.close());
    expect(await d.decrypt({ ciphertext: 'x', wrappedKey: 'y' })).toEqual({ ok: false, error: 'the key index is damaged' });
  });
});

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
    ['with the unwraps on a thread', async (k) => createDecryptor(k.current, { reloadFor: k.reloadFor })],
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
