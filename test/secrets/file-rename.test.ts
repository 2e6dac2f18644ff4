// A failed rename must not leave the temporary file (which holds every secret) behind.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { SecretStoreError } from '../../src/errors.js';
import { testStreams } from '../../src/io/test-streams.js';
import { fileSecretStore } from '../../src/secrets/file.js';

vi.mock('node:fs/promises', async (original) => ({
  ...(await original<typeof import('node:fs/promises')>()),
  rename: vi.fn(async () => {
    throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
  }),
}));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-file-rename-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('removes its temporary file and warns about nothing when the rename fails', async () => {
  const t = testStreams();
  const error = await fileSecretStore(dir, t.io)
    .set('local/client-secret', 's3cret')
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SecretStoreError);
  expect((error as SecretStoreError).message).toBe(`cannot write ${join(dir, 'secrets.json')} (EXDEV)`);
  // No temporary file left; the lock's file is not the lock, the OS's lock on it is (released).
  expect(await readdir(dir)).toEqual(['secrets.json.lock']);
  expect(t.stderr()).toBe('');
});
