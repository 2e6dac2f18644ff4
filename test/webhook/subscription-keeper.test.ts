// A fan-out's new subscriptions are written together (issue 25): the secrets of the
// subscriptions that arrive while one write is under way go to the secret store in one
// write, their records to the subscriptions file in one rewrite, and their Idempotency-Keys
// are dropped together, only once both are kept.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Factory } from '../../src/factory.js';
import { memorySecretStore, type SecretStore } from '../../src/secrets/store.js';
import { groupCommit } from '../../src/store/group-commit.js';
import { readLocalSubscriptions, subscriptionKeeper } from '../../src/webhook/subscriptions.js';
import { closeHarnesses, harness } from '../commands/receipts-setup.js';

afterEach(closeHarnesses);

const request = (i: number) => ({ name: `s${i}`, notificationUrl: `http://127.0.0.1:9/h/${i}`, events: ['RETURN_REQUESTED'] });
const created = (i: number) => ({ id: `whsub_${i}`, secret: `secret-${i}`, createdAt: '2026-11-26T08:00:00Z', ...request(i) });

/** The harness's factory over a memory store that counts its writes. */
function counting(f: Factory) {
  const memory = memorySecretStore();
  const writes: number[] = [];
  const store: SecretStore = {
    ...memory,
    set: async (key, value) => (writes.push(1), memory.set(key, value)),
    setMany: async (entries) => {
      writes.push(entries.length);
      for (const [key, value] of entries) await memory.set(key, value);
    },
  };
  return { f: Object.create(f, { secrets: { value: async () => store } }) as Factory, writes, memory };
}

describe('subscriptionKeeper', () => {
  it('keeps 40 subscriptions arriving at once in one write of the secrets, and drops their keys', async () => {
    const h = await harness();
    const { f, writes, memory } = counting(h.f);
    const keeper = subscriptionKeeper(f);
    const n = 40;
    const keyOf = async (i: number) => {
      const intent = await keeper.intentKey(`grant-${i}`, request(i));
      if (!('key' in intent)) throw new Error('a key was expected');
      return intent.key;
    };
    const keys = await Promise.all(Array.from({ length: n }, (_, i) => keyOf(i)));
    expect(new Set(keys).size).toBe(n);
    const intents = join(h.stateDir, 'shop', 'webhooks', 'subscribe-intents.json');
    expect(Object.keys(JSON.parse(await readFile(intents, 'utf8')) as object)).toHaveLength(n);
    // The same Grant and request again: the recorded key.
    expect(await keyOf(3)).toBe(keys[3]);
    await Promise.all(Array.from({ length: n }, (_, i) => keeper.keep(created(i), `grant-${i}`, request(i))));
    expect(writes).toEqual([n]);
    expect(memory.dump()[`webhook-secret/whsub_7`]).toBe('secret-7');
    const kept = await readLocalSubscriptions(f);
    expect(kept.map((s) => s.id)).toEqual(Array.from({ length: n }, (_, i) => `whsub_${i}`));
    expect(kept[5]!.grantId).toBe('grant-5');
    expect(JSON.parse(await readFile(intents, 'utf8'))).toEqual({});
  });

  it('a secret store that refuses fails each subscription of the write, naming it, and keeps its key', async () => {
    const h = await harness();
    const { f } = counting(h.f);
    const refusing = Object.create(f, { secrets: { value: async () => ({ ...(await f.secrets()), setMany: async () => Promise.reject(new Error('locked')) }) } }) as Factory;
    const keeper = subscriptionKeeper(refusing);
    await keeper.intentKey('grant-1', request(1));
    const outcomes = await Promise.allSettled([1, 2].map((i) => keeper.keep(created(i), `grant-${i}`, request(i))));
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : 'kept'))).toEqual([
      expect.stringMatching(/^subscription whsub_1 was created, but its secret could not be stored in .*locked/),
      expect.stringMatching(/^subscription whsub_2 was created/),
    ]);
    expect(await readLocalSubscriptions(f)).toEqual([]);
    const intents = JSON.parse(await readFile(join(h.stateDir, 'shop', 'webhooks', 'subscribe-intents.json'), 'utf8')) as object;
    expect(Object.keys(intents)).toHaveLength(1);
  });
});

describe('subscriptionKeeper across processes', () => {
  it('hands back a subscription another process kept for the same Grant, URL and events since the caller looked, instead of a new key', async () => {
    const h = await harness();
    const { f } = counting(h.f);
    const other = subscriptionKeeper(f);
    const mine = subscriptionKeeper(f);
    // Both looked and found nothing; the other one creates and keeps its subscription (and drops its key).
    const theirs = await other.intentKey('grant-1', request(1), new Set());
    expect('key' in theirs).toBe(true);
    await other.keep(created(1), 'grant-1', request(1));
    expect(await mine.intentKey('grant-1', request(1), new Set())).toMatchObject({ kept: { id: 'whsub_1', grantId: 'grant-1' } });
    // One the caller saw and passed over (its secret gone, not listed) is not handed back.
    expect('key' in (await mine.intentKey('grant-1', request(1), new Set(['whsub_1'])))).toBe(true);
    // Another Grant's is not this one's.
    expect('key' in (await mine.intentKey('grant-2', { ...request(1) }, new Set()))).toBe(true);
  });
});

describe('groupCommit', () => {
  it('writes what arrives during a write in the next one, and a failed write fails only its own items', async () => {
    const batches: number[][] = [];
    let release: () => void = () => {};
    const write = groupCommit(async (items: readonly number[]) => {
      batches.push([...items]);
      if (items.includes(13)) throw new Error('bad batch');
      if (batches.length === 1) await new Promise<void>((r) => (release = r));
      return items.map((i) => i * 2);
    });
    const first = write(1);
    await new Promise((r) => setImmediate(r));
    const during = [2, 3, 13].map((i) => write(i));
    release();
    expect(await first).toBe(2);
    const settled = await Promise.allSettled(during);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await write(4)).toBe(8);
    expect(batches).toEqual([[1], [2, 3, 13], [4]]);
  });
});
