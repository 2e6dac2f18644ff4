import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretStoreError } from '../../src/errors.js';
import { testStreams } from '../../src/io/test-streams.js';
import { fileSecretStore } from '../../src/secrets/file.js';

const posix = process.platform !== 'win32';
let root: string;
let dir: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-file-store-'));
  dir = join(root, 'config', 'svc');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const mode = async (path: string) => (await stat(path)).mode & 0o777;
const WARNING = /^warning: secrets are stored in plain text in .*secrets\.json \(SVC_SECRET_STORE=file\)$/;

describe('fileSecretStore', () => {
  it.runIf(posix)('creates the directory 0700 and the file 0600', async () => {
    const store = fileSecretStore(dir, testStreams().io);
    await store.set('local/client-secret', 's3cret');
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(join(dir, 'secrets.json'))).toBe(0o600);
    expect(JSON.parse(await readFile(join(dir, 'secrets.json'), 'utf8'))).toEqual({ 'local/client-secret': 's3cret' });
  });

  it.runIf(posix)('tightens an existing directory that others can read', async () => {
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o755);
    await fileSecretStore(dir, testStreams().io).set('k', 'v');
    expect(await mode(dir)).toBe(0o700);
  });

  it.runIf(posix)('replaces a looser existing file with a 0600 one', async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'secrets.json'), '{"old":"x"}', { mode: 0o644 });
    await fileSecretStore(dir, testStreams().io).set('k', 'v');
    expect(await mode(join(dir, 'secrets.json'))).toBe(0o600);
    expect(JSON.parse(await readFile(join(dir, 'secrets.json'), 'utf8'))).toEqual({ old: 'x', k: 'v' });
  });

  it("keeps the file's parse while it is unchanged, and reads another store's write (or the user's edit, same size) afresh", async () => {
    const store = fileSecretStore(dir, testStreams().io);
    const other = fileSecretStore(dir, testStreams().io);
    await store.set('a', '1');
    expect(await store.get('a')).toBe('1');
    await other.set('a', '2');
    expect(await store.get('a')).toBe('2');
    await writeFile(join(dir, 'secrets.json'), '{"a":"3"}');
    expect(await store.get('a')).toBe('3');
    await rm(join(dir, 'secrets.json'));
    expect(await store.get('a')).toBeNull();
  });

  it('reads, overwrites and deletes values; a missing file is an empty store', async () => {
    const store = fileSecretStore(dir, testStreams().io);
    expect(await store.get('a')).toBeNull();
    await store.set('a', '1');
    await store.set('b', '2');
    await store.set('a', '3');
    expect(await store.get('a')).toBe('3');
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);
    expect(await store.get('a')).toBeNull();
    expect(await store.get('b')).toBe('2');
  });

  it('writes atomically: only secrets.json (and the file its lock is taken on) remains after many writes', async () => {
    const store = fileSecretStore(dir, testStreams().io);
    for (let i = 0; i < 5; i++) await store.set(`key-${i}`, `value-${i}`);
    await store.delete('key-0');
    expect(await readdir(dir)).toEqual(['secrets.json', 'secrets.json.lock']);
  });

  it('warns on stderr once, at the first write of a command, never on reads, never with the value', async () => {
    const t = testStreams();
    const store = fileSecretStore(dir, t.io);
    await store.get('k');
    expect(t.stderr()).toBe('');
    await store.set('k', 'the-value');
    await store.get('k');
    await store.set('k', 'the-value-2');
    await store.delete('missing');
    await store.delete('k');
    const lines = t.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(WARNING);
    expect(t.stderr()).not.toContain('the-value');
    expect(t.stdout()).toBe('');
  });

  it('describes itself by its path', () => {
    expect(fileSecretStore(dir, testStreams().io).describe()).toBe(`plain-text file ${join(dir, 'secrets.json')}`);
  });

  it('refuses a file that is not a JSON object of strings', async () => {
    await mkdir(dir, { recursive: true });
    for (const text of ['not json', '[]', '{"a":1}']) {
      await writeFile(join(dir, 'secrets.json'), text);
      const error = await fileSecretStore(dir, testStreams().io)
        .get('a')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SecretStoreError);
      expect((error as SecretStoreError).message).toContain('is not a JSON object of strings');
    }
  });
});

describe('fileSecretStore, two processes on one file', () => {
  it('reads what another store wrote after its own write, and keeps what it wrote itself', async () => {
    const a = fileSecretStore(dir, testStreams().io);
    const b = fileSecretStore(dir, testStreams().io);
    await a.set('local/webhook-secret/1', 'one');
    expect(await b.get('local/webhook-secret/1')).toBe('one');
    await b.set('local/webhook-secret/2', 'two');
    expect(await a.get('local/webhook-secret/2')).toBe('two');
    await a.set('local/webhook-secret/3', 'three');
    expect(await a.get('local/webhook-secret/3')).toBe('three');
    expect(await b.get('local/webhook-secret/3')).toBe('three');
    await b.delete('local/webhook-secret/1');
    expect(await a.get('local/webhook-secret/1')).toBeNull();
    expect(JSON.parse(await readFile(join(dir, 'secrets.json'), 'utf8'))).toEqual({ 'local/webhook-secret/2': 'two', 'local/webhook-secret/3': 'three' });
  });
});
