// Where worker entries are found: beside the bundle only, never from sources.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledWorker } from '../../src/workers/bundled.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-bundled-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bundledWorker', () => {
  it('finds a worker entry in dist/ from a chunk of the bundle, not from sources', async () => {
    const root = join(dir, 'package');
    await mkdir(join(root, 'dist', 'crypto'), { recursive: true });
    await mkdir(join(root, 'dist', 'chunks'), { recursive: true });
    await mkdir(join(root, 'src', 'crypto'), { recursive: true });
    await writeFile(join(root, 'package.json'), '{}');
    await writeFile(join(root, 'dist', 'crypto', 'decrypt-worker.cjs'), '');
    const worker = join(root, 'dist', 'crypto', 'decrypt-worker.cjs');
    const entry = 'crypto/decrypt-worker.cjs';
    expect(bundledWorker(entry, pathToFileURL(join(root, 'dist', 'chunks', 'chunk-X.cjs')))).toBe(worker);
    expect(bundledWorker(entry, pathToFileURL(join(root, 'dist', 'main.cjs')))).toBe(worker);
    expect(bundledWorker(entry, pathToFileURL(join(root, 'src', 'credit-notes', 'queue.ts')))).toBeUndefined();
    expect(bundledWorker('crypto/missing-worker.cjs', pathToFileURL(join(root, 'dist', 'main.cjs')))).toBeUndefined();
  });
});
