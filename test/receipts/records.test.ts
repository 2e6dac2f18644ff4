import { mkdtemp, readdir, readFile, rm, stat, writeFile, chmod, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryConfigStore } from '../../src/config/store.js';
import { NotFoundError, SvcError, UsageError } from '../../src/errors.js';
import { createFactory, type Factory } from '../../src/factory.js';
import { testStreams, type TestStreams } from '../../src/io/test-streams.js';
import {
  listReceiptRecords,
  loadReceiptRecord,
  receiptsDir,
  saveReceiptRecord,
  type ReceiptRecord,
} from '../../src/receipts/records.js';
import { memorySecretStore } from '../../src/secrets/store.js';

// The real rename, unless a test makes the next one fail.
const rename = vi.hoisted(() => ({ fail: false }));
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  return {
    ...fs,
    rename: vi.fn(async (from: string, to: string) => {
      if (rename.fail) throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
      return fs.rename(from, to);
    }),
  };
});

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

let stateDir: string;
let streams: TestStreams;
let f: Factory;

beforeEach(async () => {
  rename.fail = false;
  stateDir = await mkdtemp(join(tmpdir(), 'svc-records-'));
  streams = testStreams();
  f = createFactory({
    env: { SVC_STATE_DIR: stateDir },
    globals: { profile: 'shop', json: false, input: false, debug: false, color: false },
    io: streams.io,
    config: memoryConfigStore(),
    secrets: memorySecretStore(),
  });
});

afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

function record(id: string, issuedAt: string, total = 20.51): ReceiptRecord {
  return {
    version: 1,
    serviceReceiptId: id,
    issuedAt,
    templateRequest: { documentNumber: `R-${id}`, currency: 'EUR', totalAmount: total },
    template: { id: { value: `R-${id}` }, accountingCustomerParty: {} },
    templateHash: HASH_A,
    finalHash: HASH_B,
    matchId: 'match-1',
    lookup: { by: 'card', display: '•••• 1111' },
    recipients: [{ recipientId: 'device-1', receiverType: 'DEVICE', keyId: 'key-1' }],
    customer: { name: 'Alice Example' },
    submission: { serviceReceiptId: id, templateHash: HASH_A, createdAt: issuedAt },
  };
}

describe('saveReceiptRecord', () => {
  it('writes <stateDir>/<profile>/receipts/<id>.json, owner-only, with no temporary file left', async () => {
    const path = await saveReceiptRecord(f, record('sr-1', '2025-03-14T16:42:06.000Z'));
    const dir = join(stateDir, 'shop', 'receipts');
    expect(path).toBe(join(dir, 'sr-1.json'));
    expect(receiptsDir(f)).toBe(dir);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(stateDir, 'shop'))).mode & 0o777).toBe(0o700);
    expect(await readdir(dir)).toEqual(['sr-1.json']);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(record('sr-1', '2025-03-14T16:42:06.000Z'));
  });

  it('tightens a directory that exists with looser permissions', async () => {
    const dir = join(stateDir, 'shop', 'receipts');
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o755);
    await saveReceiptRecord(f, record('sr-1', '2025-03-14T16:42:06.000Z'));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('keeps the previous record whole and removes its temporary file when the rename fails', async () => {
    const path = await saveReceiptRecord(f, record('sr-1', '2025-03-14T16:42:06.000Z'));
    const before = await readFile(path, 'utf8');
    rename.fail = true;
    const error = await saveReceiptRecord(f, record('sr-1', '2025-03-15T00:00:00.000Z', 99)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).message).toContain('EXDEV');
    expect((error as SvcError).hint).toContain('sr-1');
    expect(await readFile(path, 'utf8')).toBe(before);
    expect(await readdir(join(stateDir, 'shop', 'receipts'))).toEqual(['sr-1.json']);
  });

  it('never lets an identifier name a file outside the records directory', async () => {
    const path = await saveReceiptRecord(f, record('../../escape', '2025-03-14T16:42:06.000Z'));
    expect(path).toBe(join(stateDir, 'shop', 'receipts', '..%2F..%2Fescape.json'));
    await expect(saveReceiptRecord(f, record('..', '2025-03-14T16:42:06.000Z'))).rejects.toBeInstanceOf(UsageError);
  });
});

describe('loadReceiptRecord', () => {
  it('reads a saved record back', async () => {
    await saveReceiptRecord(f, record('sr-1', '2025-03-14T16:42:06.000Z'));
    expect(await loadReceiptRecord(f, 'sr-1')).toEqual(record('sr-1', '2025-03-14T16:42:06.000Z'));
  });

  it('is NotFoundError for a receipt without a record', async () => {
    await expect(loadReceiptRecord(f, 'sr-404')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('names a damaged record', async () => {
    const path = await saveReceiptRecord(f, record('sr-1', '2025-03-14T16:42:06.000Z'));
    await writeFile(path, '{"version":1');
    await expect(loadReceiptRecord(f, 'sr-1')).rejects.toThrow(`the receipt record ${path} is damaged`);
  });
});

describe('listReceiptRecords', () => {
  it('is empty before the first receipt', async () => {
    expect(await listReceiptRecords(f)).toEqual([]);
  });

  it('lists newest first, skipping damaged files with a warning', async () => {
    await saveReceiptRecord(f, record('sr-old', '2025-01-01T00:00:00.000Z'));
    await saveReceiptRecord(f, record('sr-new', '2025-03-01T00:00:00.000Z'));
    const dir = join(stateDir, 'shop', 'receipts');
    await writeFile(join(dir, 'broken.json'), 'not json');
    await writeFile(join(dir, '.sr-x.json.1.tmp'), 'partial');
    const records = await listReceiptRecords(f);
    expect(records.map((r) => r.serviceReceiptId)).toEqual(['sr-new', 'sr-old']);
    expect(streams.stderr()).toBe(`warning: skipping ${join(dir, 'broken.json')}: it is not a readable receipt record\n`);
  });

  it('keeps the records of each profile apart', async () => {
    await saveReceiptRecord(f, record('sr-1', '2025-01-01T00:00:00.000Z'));
    const other = createFactory({
      env: { SVC_STATE_DIR: stateDir },
      globals: { profile: 'other', json: false, input: false, debug: false, color: false },
      io: streams.io,
      config: memoryConfigStore(),
      secrets: memorySecretStore(),
    });
    expect(await listReceiptRecords(other)).toEqual([]);
  });
});
