// The listener's keyring: read again from the secret store for a key added since it was
// loaded (`svc keys rotate` in another terminal), and rationed reads for keys not there.
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { memoryConfigStore } from '../../src/config/store.js';
import { createFactory } from '../../src/factory.js';
import { testStreams } from '../../src/io/test-streams.js';
import { memorySecretStore, type SecretStore } from '../../src/secrets/store.js';
import { watchKeyring } from '../../src/webhook/keyring.js';
import { CURRENT_KEY, FOREIGN_KEY, installKeys, OLD_KEY } from './setup.js';

const NOW = Date.UTC(2025, 0, 1);

/** A factory over an in-memory store that counts reads of the key index. */
function setup() {
  const memory = memorySecretStore();
  let indexReads = 0;
  const store: SecretStore = {
    ...memory,
    get: async (key) => {
      if (key === 'keys-index') indexReads += 1;
      return memory.get(key);
    },
  };
  const clock = fixedClock(NOW);
  const streams = testStreams();
  const f = createFactory({
    env: {},
    globals: { json: false, input: false, debug: false, color: false },
    io: streams.io,
    clock,
    config: memoryConfigStore(),
    secrets: store,
  });
  return { f, store, clock, streams, reads: () => indexReads };
}

describe('watchKeyring', () => {
  it('finds a key stored after the keys were loaded, and keeps the ring while nothing changed', async () => {
    const { f, store, reads } = setup();
    await installKeys(store, [OLD_KEY]);
    const keyring = watchKeyring(f);
    const loaded = await keyring.current();
    expect(loaded.map((k) => k.keyId)).toEqual([OLD_KEY.keyId]);
    expect(await keyring.current()).toBe(loaded);

    await installKeys(store, [OLD_KEY, CURRENT_KEY]);
    await keyring.reloadFor(CURRENT_KEY.keyId);
    expect((await keyring.current()).map((k) => k.keyId)).toEqual([CURRENT_KEY.keyId, OLD_KEY.keyId]);
    expect(reads()).toBe(2);
    // A key the ring holds needs no read.
    await keyring.reloadFor(CURRENT_KEY.keyId);
    expect(reads()).toBe(2);
  });

  it('reads once for a key that is not there, however many events name it', async () => {
    const { f, store, reads } = setup();
    await installKeys(store, [CURRENT_KEY]);
    const keyring = watchKeyring(f);
    const loaded = await keyring.current();
    await Promise.all(Array.from({ length: 20 }, () => keyring.reloadFor(FOREIGN_KEY.keyId)));
    for (let i = 0; i < 20; i++) await keyring.reloadFor(FOREIGN_KEY.keyId);
    expect(reads()).toBe(2);
    expect(await keyring.current()).toBe(loaded);
  });

  it('keeps reads at least the interval apart: a read asked for sooner waits', async () => {
    const { f, store, clock, reads } = setup();
    await installKeys(store, [CURRENT_KEY]);
    const keyring = watchKeyring(f, 150);
    await keyring.current();
    await keyring.reloadFor(FOREIGN_KEY.keyId);
    expect(reads()).toBe(2);

    await installKeys(store, [OLD_KEY, CURRENT_KEY]);
    const started = performance.now();
    const second = keyring.reloadFor(OLD_KEY.keyId);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reads()).toBe(2);
    await second;
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(reads()).toBe(3);
    expect((await keyring.current()).map((k) => k.keyId)).toContain(OLD_KEY.keyId);

    // Once the interval has passed on the clock, a read is not held back.
    clock.advance(150);
    const third = performance.now();
    await keyring.reloadFor('another-key');
    expect(performance.now() - third).toBeLessThan(100);
    expect(reads()).toBe(4);
  });

  it('keeps the keys it has when the store cannot be read again, and says so', async () => {
    const { f, store, streams } = setup();
    await installKeys(store, [CURRENT_KEY]);
    const keyring = watchKeyring(f);
    const loaded = await keyring.current();
    await store.set('keys-index', 'damaged');
    await keyring.reloadFor(FOREIGN_KEY.keyId);
    expect(await keyring.current()).toBe(loaded);
    expect(streams.stderr()).toMatch(/^warning: could not read the private keys again \(the key index of profile "local" .* is damaged\); the keys loaded before stay in use\n$/);
  });
});
