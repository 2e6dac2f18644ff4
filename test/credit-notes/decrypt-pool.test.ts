// The worker pool runs the real worker, bundled from the sources with esbuild for this test
// (no dist/ needed), so what runs on the threads is the code under test.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueItem } from '../../src/contract/returns.js';
import { readQueue } from '../../src/credit-notes/queue.js';
import { bundledWorkerFile, decryptAll } from '../../src/crypto/decrypt-pool.js';
import { encryptJson, type KeyringEntry } from '../../src/crypto/hybrid.js';
import { generateKeyPair, keyFingerprint } from '../../src/crypto/keys.js';
import { groceries, returnOf } from './fixtures.js';

let dir: string;
let workerFile: string;
let keys: KeyringEntry[];
let publicKeys: string[];
let stranger: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-pool-'));
  workerFile = join(dir, 'decrypt-worker.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, '../../src/crypto/decrypt-worker.ts')],
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

/** `count` items, alternating between the two keys; every 7th is for a key nobody here holds. */
function queue(count: number): QueueItem[] {
  return Array.from({ length: count }, (_, i) => {
    const publicKey = i % 7 === 6 ? stranger : publicKeys[i % 2]!;
    const sealed = encryptJson(returnOf(groceries(), [['4001234567890', 1]], { customerNote: `item ${i}` }), publicKey);
    return {
      requestId: `req-${i}`,
      serviceReceiptId: 'sr-1',
      encryptedSymmetricKey: sealed.wrappedKey,
      publicKey,
      status: 'PENDING',
      createdAt: '2025-03-14T16:00:00Z',
      encryptedCreditNoteInitiationRequest: sealed.ciphertext,
    };
  });
}

describe('decryptAll on worker threads', () => {
  it('decrypts a queue across workers, results in order, failures in place', async () => {
    const items = queue(150);
    const read = await readQueue(items, keys, { workerFile, threads: 2 });
    expect(read.map((r) => r.requestId)).toEqual(items.map((i) => i.requestId));
    read.forEach((r, i) => {
      if (i % 7 === 6) {
        expect(r.returnRequest).toBeUndefined();
        expect(r.decryptError).toMatch(/^cannot decrypt: no private key matches the item's public key /);
      } else {
        expect(r.decryptError).toBeUndefined();
        expect(r.returnRequest?.customerNote).toBe(`item ${i}`);
      }
    });
  });

  it('shares the batches between this thread and the workers, and puts every answer in its place', async () => {
    // A stand-in worker that answers each batch with its own marker: which items went where is visible.
    const marking = join(dir, 'marking-worker.mjs');
    await writeFile(
      marking,
      "import { parentPort } from 'node:worker_threads';\n" +
        "parentPort.on('message', ({ batch, items }) => parentPort.postMessage({ batch, outcomes: items.map((_, i) => ({ ok: false, error: `worker ${batch}.${i}` })) }));\n",
    );
    const tasks = queue(200).map((i) => ({ ciphertext: i.encryptedCreditNoteInitiationRequest, wrappedKey: i.encryptedSymmetricKey, publicKey: i.publicKey }));
    const outcomes = await decryptAll(tasks, keys, { workerFile: marking, threads: 3 });
    expect(outcomes).toHaveLength(200);
    const byWorker = outcomes.flatMap((o, index) => (!o.ok && o.error.startsWith('worker ') ? [index] : []));
    expect(byWorker.length).toBeGreaterThan(0);
    expect(byWorker.length).toBeLessThan(200);
    // 200 items over 3 threads: batches of 16, answered in place whichever thread took them.
    for (const index of byWorker) expect(outcomes[index]).toEqual({ ok: false, error: `worker ${Math.floor(index / 16)}.${index % 16}` });
    outcomes.forEach((o, index) => {
      if (!byWorker.includes(index) && index % 7 !== 6) expect(o.ok).toBe(true);
    });
  });

  it('gives the same outcomes as in-process decryption', async () => {
    const tasks = queue(70).map((i) => ({ ciphertext: i.encryptedCreditNoteInitiationRequest, wrappedKey: i.encryptedSymmetricKey, publicKey: i.publicKey }));
    const threaded = await decryptAll(tasks, keys, { workerFile, threads: 3 });
    const local = await decryptAll(tasks, keys, { workerFile: join(dir, 'missing.mjs') });
    expect(threaded).toEqual(local);
  });

  it('finishes in-process when a worker cannot start', async () => {
    const broken = join(dir, 'broken-worker.mjs');
    await writeFile(broken, "throw new Error('no');\n");
    const items = queue(80);
    const read = await readQueue(items, keys, { workerFile: broken, threads: 2 });
    expect(read.filter((r) => r.returnRequest !== undefined)).toHaveLength(items.length - Math.floor(items.length / 7));
  });

  it('stays in-process below the threshold or without a worker file', async () => {
    const items = queue(3);
    const read = await readQueue(items, keys, { workerFile: join(dir, 'missing.mjs'), threshold: 1, threads: 2 });
    expect(read.map((r) => r.returnRequest?.customerNote)).toEqual(['item 0', 'item 1', 'item 2']);
  });
});

describe('bundledWorkerFile', () => {
  it('finds dist/crypto/decrypt-worker.js from a chunk of the bundle, not from sources', async () => {
    const root = join(dir, 'package');
    await mkdir(join(root, 'dist', 'crypto'), { recursive: true });
    await mkdir(join(root, 'dist', 'chunks'), { recursive: true });
    await mkdir(join(root, 'src', 'crypto'), { recursive: true });
    await writeFile(join(root, 'package.json'), '{}');
    await writeFile(join(root, 'dist', 'crypto', 'decrypt-worker.js'), '');
    const worker = join(root, 'dist', 'crypto', 'decrypt-worker.js');
    expect(bundledWorkerFile(pathToFileURL(join(root, 'dist', 'chunks', 'chunk-X.js')))).toBe(worker);
    expect(bundledWorkerFile(pathToFileURL(join(root, 'dist', 'main.js')))).toBe(worker);
    expect(bundledWorkerFile(pathToFileURL(join(root, 'src', 'crypto', 'decrypt-pool.ts')))).toBeUndefined();
  });
});
