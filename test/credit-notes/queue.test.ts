// Reading the return request queue: on this thread and on worker threads, from fetched items
// and from the answer as it streams in. The pool runs the real worker, bundled from the
// sources with esbuild for this test (no dist/ needed), so what runs on the threads is the
// code under test.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamedResponse } from '../../src/api/client.js';
import type { QueueItem } from '../../src/contract/returns.js';
import { readQueue, readQueueStream } from '../../src/credit-notes/queue.js';
import { encryptJson, type KeyringEntry } from '../../src/crypto/hybrid.js';
import { generateKeyPair, keyFingerprint } from '../../src/crypto/keys.js';
import { writeJsonArray, writeJsonArrayText } from '../../src/io/output.js';
import { testStreams } from '../../src/io/test-streams.js';
import { groceries, returnOf } from './fixtures.js';

let dir: string;
let workerFile: string;
let keys: KeyringEntry[];
let publicKeys: string[];
let stranger: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-pool-'));
  workerFile = join(dir, 'queue-worker.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, '../../src/credit-notes/queue-worker.ts')],
    outfile: workerFile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
  });
  const pairs = await Promise.all([generateKeyPair(), generateKeyPair(), generateKeyPair()]);
  keys = pairs.slice(0, 2).map((p) => ({ keyId: keyFingerprint(p.publicKey), privateKeyPem: p.privateKeyPem }));
  publicKeys = pairs.slice(0, 2).map((p) => p.publicKey);
  stranger = pairs[2]!.publicKey;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
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
  it('reads fetched items on worker threads, in order, failures in place', async () => {
    const items = queue(150);
    expectRead(await readQueue(items, keys, { workerFile, threads: 2 }), items);
  });

  it('gives the same items on this thread', async () => {
    const items = queue(70);
    const threaded = await readQueue(items, keys, { workerFile, threads: 2 });
    const local = await readQueue(items, keys, { workerFile: join(dir, 'missing.mjs'), threads: 1 });
    expect(threaded).toEqual(local);
    expect(await readQueue(items.slice(0, 3), keys, { workerFile })).toEqual(local.slice(0, 3));
  });

  it('finishes on this thread when no worker can start', async () => {
    const broken = join(dir, 'broken-worker.mjs');
    await writeFile(broken, "throw new Error('no');\n");
    const items = queue(80);
    expectRead(await readQueue(items, keys, { workerFile: broken, threads: 2 }), items);
  });
});

describe('readQueueStream', () => {
  it('renders on worker threads exactly the --json text of the items read here', async () => {
    const items = queue(210);
    const read = await readQueueStream(answer(JSON.stringify(items)), keys, { workerFile, threads: 2, asJson: true });
    expect(read.items).toEqual([]);
    expect(read.shown).toBe(210);
    expect(read.unreadable).toBe(30);
    const streamed = testStreams({ json: true });
    await writeJsonArrayText(streamed.io, read.json);
    const direct = testStreams({ json: true });
    await writeJsonArray(direct.io, await readQueue(items, keys, { threads: 1 }));
    expect(streamed.stdout()).toBe(direct.stdout());
  });

  it('reads only the items of the status asked for, wherever the pieces are cut', async () => {
    const items = queue(130);
    for (const size of [1, 997, 1 << 20]) {
      const read = await readQueueStream(answer(JSON.stringify(items, null, 1), size), keys, { workerFile, threads: 2, filter: { statuses: ['ACCEPTED'] } });
      const accepted = items.filter((i) => i.status === 'ACCEPTED');
      expect(read.shown).toBe(accepted.length);
      expectRead(read.items, accepted);
    }
  });

  it('stays on this thread for a short queue, and for an empty one', async () => {
    const items = queue(5);
    const read = await readQueueStream(answer(JSON.stringify(items)), keys, { workerFile: join(dir, 'missing.mjs') });
    expectRead(read.items, items);
    expect(await readQueueStream(answer('[]'), keys)).toEqual({ items: [], json: [], shown: 0, unreadable: 0 });
  });

  it('refuses the whole answer when one element breaks the contract, naming it', async () => {
    const items: unknown[] = queue(100);
    items[73] = { ...(items[73] as QueueItem), requestId: '' };
    for (const opts of [{ workerFile, threads: 2 }, { threads: 1 }]) {
      await expect(readQueueStream(answer(JSON.stringify(items)), keys, opts)).rejects.toThrow(
        /^unexpected response from the service for GET \/credit-note: 73\.requestId: /,
      );
    }
  });

  it.each([
    ['not an array', () => '{"items":[]}'],
    ['cut short', () => JSON.stringify(queue(3)).slice(0, -40)],
    ['a broken element', () => `[${JSON.stringify(queue(1)[0]).replace(':', '')}]`],
  ])('refuses an answer that is not JSON (%s)', async (_, text) => {
    await expect(readQueueStream(answer(text()), keys, { threads: 1 })).rejects.toThrow(
      'unexpected response from the service for GET /credit-note: not JSON (content-type application/json)',
    );
  });
});
