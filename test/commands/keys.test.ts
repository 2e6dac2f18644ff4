import type { Command } from 'commander';
import { MockAgent } from 'undici';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { fixedClock } from '../../src/clock.js';
import type { CommandContext, VerbLoader } from '../../src/commands/context.js';
import { run as generate } from '../../src/commands/keys/generate.js';
import { run as list } from '../../src/commands/keys/list.js';
import { run as rotate } from '../../src/commands/keys/rotate.js';
import { run as showRemote } from '../../src/commands/keys/show-remote.js';
import { run as upload } from '../../src/commands/keys/upload.js';
import { run as exportKey } from '../../src/commands/keys/export.js';
import { run as importKey } from '../../src/commands/keys/import.js';
import { memoryConfigStore } from '../../src/config/store.js';
import { decryptWithKeyring, encryptJson } from '../../src/crypto/hybrid.js';
import { generateAndStore, listKeys, loadKeyring, type LocalKey } from '../../src/keys/keystore.js';
import { AuthError, NotFoundError, UsageError } from '../../src/errors.js';
import { createFactory } from '../../src/factory.js';
import { testStreams, type TestStreams } from '../../src/io/test-streams.js';
import { buildProgram } from '../../src/root.js';
import { memorySecretStore } from '../../src/secrets/store.js';

// The real token source needs a login; these tests only check which credential is sent.
const tokenSourceFor = vi.hoisted(() =>
  vi.fn(async (_f: unknown, _want?: { scope?: string }) => ({
    token: async () => 'tok-1',
    invalidate: async () => {},
  })),
);
vi.mock('../../src/auth/session.js', () => ({ tokenSourceFor }));

const BASE = 'https://svc.test';
const KEY_PATH = '/client-application/app-1/public-key';
const JSON_HEADERS = { 'content-type': 'application/json' };
const UPLOADED_AT = '2025-01-02T10:00:00Z';
const clock = fixedClock(Date.UTC(2025, 0, 2, 9));

let mock: MockAgent | undefined;
const opened: TestStreams[] = [];

afterEach(async () => {
  for (const streams of opened.splice(0)) expect(streams.stdout() + streams.stderr()).not.toContain('PRIVATE KEY');
  tokenSourceFor.mockClear();
  if (!mock) return;
  mock.assertNoPendingInterceptors();
  await mock.close();
  mock = undefined;
});

// Two keys generated once (older, then current) and copied into each test's store, because
// RSA key generation is the slow part of these tests.
let seed: Record<string, string>;
let older: LocalKey;
let current: LocalKey;
/** A key another machine holds: its private half is in no store of these tests. */
let foreign: LocalKey;
let foreignPem: string;

beforeAll(async () => {
  const secrets = memorySecretStore();
  const f = createFactory({
    env: {},
    globals: { json: false, input: false, debug: false, color: false },
    io: testStreams().io,
    clock,
    config: memoryConfigStore(),
    secrets,
  });
  older = await generateAndStore(f);
  current = await generateAndStore(f);
  seed = secrets.dump();
  foreign = await generateAndStore(f);
  foreignPem = secrets.dump()[`private-key/${foreign.keyId}`]!;
});

interface SetupOptions {
  json?: boolean;
  tty?: boolean;
  /** Start with the two seeded keys. */
  seeded?: boolean;
  apiKey?: boolean;
  clientId?: string | null;
}

function setup(opts: SetupOptions = {}) {
  const json = opts.json ?? false;
  mock = new MockAgent();
  mock.disableNetConnect();
  const streams = testStreams({ json, stdoutIsTTY: opts.tty ?? false });
  opened.push(streams);
  const secrets = memorySecretStore({
    ...(opts.seeded === false ? {} : seed),
    ...(opts.apiKey ? { 'api-key': 'company-key-1' } : {}),
  });
  const clientId = opts.clientId === undefined ? 'app-1' : opts.clientId;
  // A profile with no built-in client (unlike `local`), so "no client ID" can be tested.
  const f = createFactory({
    env: {},
    globals: { profile: 'production', json, input: false, debug: false, color: false },
    io: streams.io,
    clock,
    config: memoryConfigStore({ production: { baseUrl: BASE, ...(clientId === null ? {} : { clientId }) } }),
    secrets,
    api: createApiClient({ baseUrl: BASE, io: streams.io, debug: false, clock, dispatcher: mock, sleep: async () => {} }),
  });
  return { f, streams, secrets, pool: mock.get(BASE) };
}

interface Seen {
  headers: Record<string, string>;
  body: unknown;
}

/** Answers one upload the way the service does, and records what was sent. */
function expectUpload(pool: ReturnType<MockAgent['get']>): Seen {
  const seen: Seen = { headers: {}, body: undefined };
  pool.intercept({ path: KEY_PATH, method: 'POST' }).reply((req) => {
    seen.headers = req.headers as Record<string, string>;
    seen.body = JSON.parse(String(req.body));
    const { keyData } = seen.body as { keyData: string };
    return { statusCode: 200, data: { keyData, algorithm: 'RSA_2048', uploadedAt: UPLOADED_AT }, responseOptions: { headers: JSON_HEADERS } };
  });
  return seen;
}

function replyNone(pool: ReturnType<MockAgent['get']>) {
  pool
    .intercept({ path: KEY_PATH, method: 'GET' })
    .reply(404, { error: 'not_found', error_description: 'no key', timestamp: UPLOADED_AT }, { headers: JSON_HEADERS });
}

function replyRemote(pool: ReturnType<MockAgent['get']>, keyData: string) {
  pool
    .intercept({ path: KEY_PATH, method: 'GET' })
    .reply(200, { keyData, algorithm: 'RSA_2048', uploadedAt: UPLOADED_AT }, { headers: JSON_HEADERS });
}

describe('argv → options', () => {
  async function parse(argv: string[]): Promise<unknown[]> {
    const calls: unknown[] = [];
    const ctx: CommandContext = {
      async run<O>(_cmd: Command, _load: VerbLoader<O>, opts: O) {
        calls.push(opts);
      },
    };
    await buildProgram(ctx, { writeOut: () => {}, writeErr: () => {} }).parseAsync(argv, { from: 'user' });
    return calls;
  }

  it('maps every verb', async () => {
    expect(await parse(['keys', 'generate'])).toEqual([{ upload: false, yes: false }]);
    expect(await parse(['keys', 'generate', '--upload', '--yes'])).toEqual([{ upload: true, yes: true }]);
    expect(await parse(['keys', 'list', '--json'])).toEqual([{}]);
    expect(await parse(['keys', 'upload'])).toEqual([{ keyId: undefined, yes: false }]);
    expect(await parse(['keys', 'upload', 'KID', '--yes'])).toEqual([{ keyId: 'KID', yes: true }]);
    expect(await parse(['keys', 'rotate'])).toEqual([{ yes: false }]);
    expect(await parse(['keys', 'show-remote'])).toEqual([{}]);
    expect(await parse(['keys', 'export', '--file', 'key.pem'])).toEqual([{ keyId: undefined, file: 'key.pem' }]);
    expect(await parse(['keys', 'export', 'KID', '--file', '-'])).toEqual([{ keyId: 'KID', file: '-' }]);
    expect(await parse(['keys', 'import', '--file', 'key.pem'])).toEqual([{ file: 'key.pem' }]);
  });
});

describe('keys generate', () => {
  it('prints the new fingerprint and public key, makes it current and keeps the older keys', async () => {
    const { f, streams } = setup();
    await generate({ upload: false, yes: false }, f);
    const keys = await listKeys(f);
    expect(keys.map((k) => k.current)).toEqual([true, false, false]);
    const [fresh] = keys;
    expect(streams.stdout()).toContain(`key ID      ${fresh?.keyId}\n`);
    expect(streams.stdout()).toContain(`public key  ${fresh?.publicKey}\n`);
    expect(streams.stderr()).toContain(`svc keys upload ${fresh?.keyId}`);
  });

  it('--upload registers it and prints the key with its upload time as JSON', async () => {
    const { f, streams, pool } = setup({ json: true, seeded: false, apiKey: true });
    replyNone(pool);
    const seen = expectUpload(pool);
    await generate({ upload: true, yes: false }, f);
    const printed = JSON.parse(streams.stdout()) as LocalKey;
    expect(printed).toMatchObject({ current: true, uploadedAt: UPLOADED_AT });
    expect(seen.body).toStrictEqual({ keyData: printed.publicKey, algorithm: 'RSA_2048' });
    expect(await listKeys(f)).toEqual([printed]);
  });
});

describe('keys list', () => {
  it('--json is the index, newest first, without private key material', async () => {
    const { f, streams } = setup({ json: true });
    await list({}, f);
    const printed = JSON.parse(streams.stdout()) as Record<string, unknown>[];
    expect(printed).toEqual([
      { keyId: current.keyId, publicKey: current.publicKey, createdAt: current.createdAt, current: true },
      { keyId: older.keyId, publicKey: older.publicKey, createdAt: older.createdAt, current: false },
    ]);
  });

  it('piped: tab-separated rows; on a TTY: a table with headers', async () => {
    const piped = setup();
    await list({}, piped.f);
    expect(piped.streams.stdout()).toBe(
      `${current.keyId}\t${current.createdAt}\t-\tyes\n${older.keyId}\t${older.createdAt}\t-\tno\n`,
    );

    const tty = setup({ tty: true });
    await list({}, tty.f);
    expect(tty.streams.stdout()).toMatch(/KEY ID.*CREATED.*UPLOADED.*CURRENT/);
    expect(tty.streams.stdout()).toContain(older.keyId);
  });

  it('says how to start when there is no key', async () => {
    const { f, streams } = setup({ seeded: false });
    await list({}, f);
    expect(streams.stdout()).toBe('');
    expect(streams.stderr()).toContain('svc keys generate');
  });
});

describe('keys upload', () => {
  it('sends the current key with X-API-Key when an API key is stored, and marks it uploaded', async () => {
    const { f, streams, pool } = setup({ apiKey: true, json: true });
    replyRemote(pool, current.publicKey);
    const seen = expectUpload(pool);
    await upload({ keyId: undefined, yes: false }, f);
    expect(seen.body).toStrictEqual({ keyData: current.publicKey, algorithm: 'RSA_2048' });
    expect(seen.headers['x-api-key']).toBe('company-key-1');
    expect(seen.headers['authorization']).toBeUndefined();
    expect(tokenSourceFor).not.toHaveBeenCalled();
    // The service's answer, and the key under the name every keys command gives it (publicKey).
    expect(JSON.parse(streams.stdout())).toEqual({ keyData: current.publicKey, algorithm: 'RSA_2048', uploadedAt: UPLOADED_AT, publicKey: current.publicKey });
    expect((await listKeys(f)).map((k) => k.uploadedAt)).toEqual([UPLOADED_AT, undefined]);
  });

  it('sends a named older key with a bearer token for manage_client_applications otherwise', async () => {
    const { f, pool } = setup();
    replyRemote(pool, current.publicKey);
    const seen = expectUpload(pool);
    await upload({ keyId: older.keyId, yes: false }, f);
    expect(seen.body).toStrictEqual({ keyData: older.publicKey, algorithm: 'RSA_2048' });
    expect(seen.headers['authorization']).toBe('Bearer tok-1');
    expect(seen.headers['x-api-key']).toBeUndefined();
    expect(tokenSourceFor).toHaveBeenCalledWith(f, { scope: 'manage_client_applications' });
    const keys = await listKeys(f);
    expect(keys.map((k) => [k.current, k.uploadedAt])).toEqual([
      [true, undefined],
      [false, UPLOADED_AT],
    ]);
  });

  it('needs a client ID, and a key that exists', async () => {
    const noClient = setup({ clientId: null });
    const error = await upload({ keyId: undefined, yes: false }, noClient.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).hint).toContain('svc config set client-id');

    const { f } = setup();
    await expect(upload({ keyId: 'no-such-key', yes: false }, f)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('keys rotate', () => {
  it('uploads a new current key; values for the previous keys still decrypt', async () => {
    const { f, streams, secrets, pool } = setup({ json: true, apiKey: true });
    const forOlder = encryptJson({ n: 'older' }, older.publicKey);
    const forPrevious = encryptJson({ n: 'previous' }, current.publicKey);
    replyRemote(pool, current.publicKey);
    const seen = expectUpload(pool);
    await rotate({ yes: false }, f);

    const printed = JSON.parse(streams.stdout()) as LocalKey & { previousKeyId: string };
    expect(printed).toMatchObject({ previousKeyId: current.keyId, current: true, uploadedAt: UPLOADED_AT });
    expect(printed.keyId).not.toBe(current.keyId);
    expect(seen.body).toStrictEqual({ keyData: printed.publicKey, algorithm: 'RSA_2048' });

    // A later command (a fresh factory over the same store) decrypts with every key.
    const later = createFactory({
      env: {},
      globals: { json: false, input: false, debug: false, color: false },
      io: testStreams().io,
      config: memoryConfigStore(),
      secrets,
    });
    const ring = await loadKeyring(later);
    expect(ring.map((e) => e.keyId)).toEqual([printed.keyId, current.keyId, older.keyId]);
    expect(decryptWithKeyring({ ...forOlder, publicKey: older.publicKey }, ring)).toEqual({
      value: { n: 'older' },
      keyId: older.keyId,
    });
    expect(decryptWithKeyring(forPrevious, ring).value).toEqual({ n: 'previous' });
  });
});

describe('replacing a registered key this machine does not hold (a colleague\'s)', () => {
  it.each([
    ['keys upload', (f: Parameters<typeof upload>[1]) => upload({ keyId: undefined, yes: false }, f)],
    ['keys rotate', (f: Parameters<typeof upload>[1]) => rotate({ yes: false }, f)],
    ['keys generate --upload', (f: Parameters<typeof upload>[1]) => generate({ upload: true, yes: false }, f)],
  ])('svc %s without a terminal: refused naming --yes, its fingerprint and how to copy it instead; nothing is uploaded or made', async (command, runIt) => {
    const { f, pool } = setup({ apiKey: true });
    replyRemote(pool, foreign.publicKey);
    const error = await runIt(f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain(`key ${foreign.keyId} (uploaded ${UPLOADED_AT})`);
    expect((error as UsageError).message).toContain('needs --yes');
    expect((error as UsageError).hint).toContain('svc keys import --file key.pem');
    expect((error as UsageError).hint).toContain(`add --yes to \`svc ${command}\``);
    expect(await listKeys(f)).toHaveLength(2);
  });

  it('with --yes: uploaded, with a warning saying what it does', async () => {
    const { f, streams, pool } = setup({ apiKey: true });
    replyRemote(pool, foreign.publicKey);
    const seen = expectUpload(pool);
    await upload({ keyId: undefined, yes: true }, f);
    expect(seen.body).toStrictEqual({ keyData: current.publicKey, algorithm: 'RSA_2048' });
    expect(streams.stderr()).toContain(`warning: the service encrypts this integration's return requests and webhook events for key ${foreign.keyId}`);
  });

  it('the same key registered again is no replacement', async () => {
    const { f, pool } = setup({ apiKey: true });
    // The import asks which key is registered, and so does the upload.
    replyRemote(pool, foreign.publicKey);
    replyRemote(pool, foreign.publicKey);
    expectUpload(pool);
    await importKey({ file: await pemFile(foreignPem) }, f);
    await upload({ keyId: undefined, yes: false }, f);
  });
});

async function pemFile(pem: string): Promise<string> {
  const { mkdtemp, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const file = join(await mkdtemp(join(tmpdir(), 'svc-keys-test-')), 'key.pem');
  await writeFile(file, pem, { mode: 0o600 });
  return file;
}

describe('keys export and import', () => {
  it('export writes the current key 0600 and never over a file; import makes it current elsewhere, once', async () => {
    const { stat, readFile } = await import('node:fs/promises');
    const { join, dirname } = await import('node:path');
    const { f, streams } = setup();
    const file = join(dirname(await pemFile('')), 'exported.pem');
    await exportKey({ keyId: undefined, file }, f);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(streams.stdout()).toContain(current.keyId);
    await expect(exportKey({ keyId: undefined, file }, f)).rejects.toBeInstanceOf(UsageError);
    await expect(exportKey({ keyId: undefined, file: undefined }, f)).rejects.toBeInstanceOf(UsageError);

    const other = setup({ seeded: false, apiKey: true });
    // The service is asked which key it encrypts for: here, another one.
    replyRemote(other.pool, older.publicKey);
    await importKey({ file }, other.f);
    expect((await listKeys(other.f)).map((k) => [k.keyId, k.current, k.uploadedAt])).toEqual([[current.keyId, true, undefined]]);
    expect(other.streams.stdout()).toContain(`\nregistered  no: the service encrypts for key ${older.keyId} (uploaded ${UPLOADED_AT})\n`);
    expect(other.streams.stdout()).not.toContain('not yet');
    // It was made on another machine, when is not known here: it says when it was imported.
    expect(other.streams.stdout()).toContain(`\nimported    ${new Date(clock.now()).toISOString()}\n`);
    expect(other.streams.stdout()).not.toContain('created');
    expect(other.streams.stderr()).toContain('copy it with `svc keys export --file key.pem`');
    // The registered one: the import says so, and keeps the service's upload time.
    replyRemote(other.pool, current.publicKey);
    await importKey({ file }, other.f);
    expect(other.streams.stderr()).toContain('held here already; nothing changed');
    expect(other.streams.stdout()).toContain(`\nregistered  yes (uploaded ${UPLOADED_AT})\n`);
    expect((await listKeys(other.f)).map((k) => k.uploadedAt)).toEqual([UPLOADED_AT]);
    expect((await loadKeyring(other.f)).map((k) => k.privateKeyPem)).toEqual([await readFile(file, 'utf8')]);
  });

  it('--file - goes to a pipe only: a terminal or --json refuses it', async () => {
    const piped = setup();
    await exportKey({ keyId: undefined, file: '-' }, piped.f);
    expect(piped.streams.stdout()).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    // Asked for on a pipe, the key is on stdout: this test's streams are left out of the check after each test.
    opened.splice(opened.indexOf(piped.streams), 1);
    for (const opts of [{ tty: true }, { json: true }]) {
      const { f } = setup(opts);
      await expect(exportKey({ keyId: undefined, file: '-' }, f)).rejects.toBeInstanceOf(UsageError);
    }
  });

  it('import refuses what is not an RSA private key, naming the file', async () => {
    const { f } = setup({ seeded: false });
    const file = await pemFile('-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n');
    const error = await importKey({ file }, f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain(`--file ${file}`);
    expect(await listKeys(f)).toEqual([]);
  });
});

describe('keys show-remote', () => {
  it('--json adds the fingerprint and the matching local key', async () => {
    const { f, streams, pool } = setup({ json: true, apiKey: true });
    replyRemote(pool, older.publicKey);
    await showRemote({}, f);
    expect(JSON.parse(streams.stdout())).toEqual({
      keyData: older.publicKey,
      algorithm: 'RSA_2048',
      uploadedAt: UPLOADED_AT,
      publicKey: older.publicKey,
      keyId: older.keyId,
      local: { keyId: older.keyId, current: false, origin: 'keys' },
    });
    expect(streams.stderr()).toContain(`current local key ${current.keyId} is not the registered one`);
  });

  it('--json names the key publicKey, as `keys list --json` does (keyData, the service\'s name, kept): a script joins the two on it', async () => {
    const listed = setup({ json: true });
    await list({}, listed.f);
    const local = JSON.parse(listed.streams.stdout()) as { keyId: string; publicKey: string }[];
    const { f, streams, pool } = setup({ json: true, apiKey: true });
    replyRemote(pool, current.publicKey);
    await showRemote({}, f);
    const remote = JSON.parse(streams.stdout()) as { keyId: string; publicKey: string; keyData: string };
    expect(local.filter((k) => k.publicKey === remote.publicKey).map((k) => k.keyId)).toEqual([remote.keyId]);
    expect(remote.keyData).toBe(remote.publicKey);
  });

  it('tells people whether the registered key is the current local one', async () => {
    const { f, streams, pool } = setup({ apiKey: true });
    replyRemote(pool, current.publicKey);
    await showRemote({}, f);
    expect(streams.stdout()).toContain(`key ID     ${current.keyId}\n`);
    expect(streams.stdout()).toContain('local      matches the current local key\n');
    expect(streams.stderr()).toBe('');
  });

  it('a 404 says that no key is registered and how to upload one', async () => {
    const { f, pool } = setup({ apiKey: true });
    pool
      .intercept({ path: KEY_PATH, method: 'GET' })
      .reply(404, { error: 'not_found', error_description: 'no key', timestamp: UPLOADED_AT }, { headers: JSON_HEADERS });
    const error = await showRemote({}, f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).hint).toContain('svc keys upload');
  });
});
