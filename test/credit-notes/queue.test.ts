// Reading the return request queue: on this thread and with the RSA unwraps on threads of
// their own (crypto/unwrap-threads.ts, the real threads), from fetched items and from the
// answer as it streams in.
import { beforeAll, describe, expect, it } from 'vitest';
import type { StreamedResponse } from '../../src/api/client.js';
import type { QueueItem } from '../../src/contract/returns.js';
import { readQueue, readQueueStream } from '../../src/credit-notes/queue.js';
import { encryptJson, type KeyringEntry } from '../../src/crypto/hybrid.js';
import { threadUnwrapper } from '../../src/crypto/unwrap-threads.js';
import { DecryptError } from '../../src/errors.js';
import { generateKeyPair, keyFingerprint } from '../../src/crypto/keys.js';
import { writeJsonArray, writeJsonArrayText } from '../../src/io/output.js';
import { testStreams } from '../../src/io/test-streams.js';
import { groceries, returnOf } from './fixtures.js';

let keys: KeyringEntry[];
let publicKeys: string[];
let stranger: string;

beforeAll(async () => {
  const pairs = await Promise.all([generateKeyPair(), generateKeyPair(), generateKeyPair()]);
  keys = pairs.slice(0, 2).map((p) => ({ keyId: keyFingerprint(p.publicKey), privateKeyPem: p.privateKeyPem }));
  publicKeys = pairs.slice(0, 2).map((p) => p.publicKey);
  stranger = pairs[2]!.publicKey;
});

/** `count` items, alternating between the two keys; every 7th is for a key nobody here holds; every 5th is ACCEPTED. */
function queue(count: number): QueueItem[] {
  return Array.from({ length: count }, (_, i) => {
    const publicKey = i % 7 === 6 ? stranger : publicKeys[i % 2]!;
    const sealed = encryptJson(returnOf(groceries(), [['4001234567890', 1]], { customerNote: `item ${i}` }), publicKey);
    return {
      requestId: `req-${i}`,
      serviceReceiptId: 'sr-1',
      encryptedSymmetricKey: sealed.wrappedKey,
      publicKey,
      status: i % 5 === 4 ? 'ACCEPTED' : 'PENDING',
      createdAt: '2025-03-14T16:00:00Z',
      encryptedCreditNoteInitiationRequest: sealed.ciphertext,
    };
  });
}

/** The answer's text, handed over in pieces of `size` characters, as the network might. */
function answer(text: string, size = 4000): StreamedResponse {
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    text: (async function* () {
      for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
    })(),
  };
}

function expectRead(read: { requestId: string; returnRequest?: { customerNote?: string | undefined }; decryptError?: string }[], items: QueueItem[]) {
  expect(read.map((r) => r.requestId)).toEqual(items.map((i) => i.requestId));
  for (const r of read) {
    const i = Number(r.requestId.slice(4));
    if (i % 7 === 6) {
      expect(r.returnRequest).toBeUndefined();
      expect(r.decryptError).toMatch(/^cannot decrypt: no private key matches the item's public key /);
    } else {
      expect(r.decryptError).toBeUndefined();
      expect(r.returnRequest?.customerNote).toBe(`item ${i}`);
    }
  }
}

describe('readQueue', () => {
  it('reads fetched items with the unwraps on threads, in order, failures in place', async () => {
    const items = queue(150);
    expectRead(await readQueue(items, keys), items);
  });

  it('gives the same items on this thread alone', async () => {
    const items = queue(70);
    const threaded = await readQueue(items, keys);
    const local = await readQueue(items, keys, { threshold: Number.POSITIVE_INFINITY });
    expect(threaded).toEqual(local);
    expect(await readQueue(items.slice(0, 3), keys)).toEqual(local.slice(0, 3));
  });

  it("an unwrap that fails is that item's outcome, never the others'", async () => {
    const items = queue(80);
    const failing = { unwrap: (wrapped: string, pem: string) => (wrapped === items[3]!.encryptedSymmetricKey ? Promise.reject(new DecryptError('cannot decrypt: the unwrapping thread stopped')) : real.unwrap(wrapped, pem)) };
    const real = threadUnwrapper({ threads: 2 });
    try {
      const read = await readQueue(items, keys, { unwrapper: failing });
      expect(read[3]).toMatchObject({ requestId: 'req-3', decryptError: 'cannot decrypt: the unwrapping thread stopped' });
      expectRead(read.filter((_, i) => i !== 3), items.filter((_, i) => i !== 3));
    } finally {
      await real.close();
    }
  });
});

describe('readQueueStream', () => {
  it('renders, with the unwraps on threads, exactly the --json text of the items read here', async () => {
    const items = queue(210);
    const read = await readQueueStream(answer(JSON.stringify(items)), keys, { asJson: true });
    expect(read.items).toEqual([]);
    expect(read.shown).toBe(210);
    expect(read.unreadable).toBe(30);
    const streamed = testStreams({ json: true });
    await writeJsonArrayText(streamed.io, read.json);
    const direct = testStreams({ json: true });
    await writeJsonArray(direct.io, await readQueue(items, keys, { threshold: Number.POSITIVE_INFINITY }));
    expect(streamed.stdout()).toBe(direct.stdout());
  });

  it('reads only the items of the status asked for, wherever the pieces are cut', async () => {
    const items = queue(130);
    for (const size of [1, 997, 1 << 20]) {
      const read = await readQueueStream(answer(JSON.stringify(items, null, 1), size), keys, { filter: { statuses: ['ACCEPTED'] } });
      const accepted = items.filter((i) => i.status === 'ACCEPTED');
      expect(read.shown).toBe(accepted.length);
      expectRead(read.items, accepted);
    }
  });

  it('reads a short queue, and an empty one', async () => {
    const items = queue(5);
    const read = await readQueueStream(answer(JSON.stringify(items)), keys);
    expectRead(read.items, items);
    expect(read.requestIds).toEqual(items.map((i) => i.requestId));
    expect(await readQueueStream(answer('[]'), keys)).toEqual({ items: [], json: [], requestIds: [], shown: 0, unreadable: 0 });
  });

  it('refuses the whole answer when one element breaks the contract, naming it', async () => {
    const items: unknown[] = queue(100);
    items[73] = { ...(items[73] as QueueItem), requestId: '' };
    for (const size of [4000, 1 << 20]) {
      await expect(readQueueStream(answer(JSON.stringify(items), size), keys)).rejects.toThrow(
        /^unexpected response from the service for GET \/credit-note: 73\.requestId: /,
      );
    }
  });

  it.each([
    ['not an array', () => '{"items":[]}'],
    ['cut short', () => JSON.stringify(queue(3)).slice(0, -40)],
    ['a broken element', () => `[${JSON.stringify(queue(1)[0]).replace(':', '')}]`],
  ])('refuses an answer that is not JSON (%s)', async (_, text) => {
    await expect(readQueueStream(answer(text()), keys)).rejects.toThrow(
      'unexpected response from the service for GET /credit-note: not JSON (content-type application/json)',
    );
  });
});
