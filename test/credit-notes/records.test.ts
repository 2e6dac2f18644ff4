import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryConfigStore } from '../../src/config/store.js';
import { creditNotesDir, loadCreditNotes, withCreditNoteLedger, type CreditNoteRecord } from '../../src/credit-notes/records.js';
import { SvcError } from '../../src/errors.js';
import { createFactory, type Factory } from '../../src/factory.js';
import { testStreams } from '../../src/io/test-streams.js';
import { memorySecretStore } from '../../src/secrets/store.js';

let stateDir: string;
let f: Factory;

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'svc-cn-records-'));
  f = createFactory({
    env: { SVC_STATE_DIR: stateDir },
    globals: { profile: 'shop', json: false, input: false, debug: false, color: false },
    io: testStreams().io,
    config: memoryConfigStore(),
    secrets: memorySecretStore(),
  });
});

afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

/** Records a credit note under the receipt's lock, with nothing else done while holding it. */
const record = (receipt: string, creditNote: CreditNoteRecord) => withCreditNoteLedger(f, receipt, (ledger) => ledger.record(creditNote));

function note(id: string, requestId: string): CreditNoteRecord {
  return {
    serviceReceiptId: id,
    requestId,
    documentNumber: `CN-${id}`,
    issuedAt: '2025-03-15T00:00:00.000Z',
    lines: [{ originalLine: 0, productId: 'P-1', quantity: 1 }],
    templateRequest: { documentNumber: `CN-${id}`, currency: 'EUR', invoiceSubtotal: 1, totalAmount: 1.19 },
    templateHash: 'a'.repeat(64),
    finalHash: 'b'.repeat(64),
    matchId: 'm-1',
    recipients: [{ recipientId: 'device-1', receiverType: 'DEVICE', keyId: 'k-1' }],
    submission: { serviceReceiptId: id, parentServiceReceiptId: 'sr-1', templateHash: 'a'.repeat(64), createdAt: '2025-03-15T00:00:00Z' },
  };
}

describe('credit note records', () => {
  it('are none before the first credit note', async () => {
    expect(await loadCreditNotes(f, 'sr-1')).toEqual([]);
  });

  it('append per original receipt, owner-only, even when written at once', async () => {
    await Promise.all([record('sr-1', note('cn-1', 'r-1')), record('sr-1', note('cn-2', 'r-2'))]);
    await record('sr-2', note('cn-3', 'r-3'));
    const dir = join(stateDir, 'shop', 'credit-notes');
    expect(creditNotesDir(f)).toBe(dir);
    expect((await loadCreditNotes(f, 'sr-1')).map((n) => n.serviceReceiptId).sort()).toEqual(['cn-1', 'cn-2']);
    expect((await loadCreditNotes(f, 'sr-2')).map((n) => n.serviceReceiptId)).toEqual(['cn-3']);
    expect((await readdir(dir)).sort()).toEqual(['sr-1.json', 'sr-2.json']);
    expect((await stat(join(dir, 'sr-1.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('refuse to go on from a damaged file, which would hide earlier credits', async () => {
    await record('sr-1', note('cn-1', 'r-1'));
    await writeFile(join(creditNotesDir(f), 'sr-1.json'), '{"version":1');
    const error = await loadCreditNotes(f, 'sr-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).message).toMatch(/is damaged, so earlier credits for receipt sr-1 are unknown/);
    await expect(record('sr-1', note('cn-2', 'r-2'))).rejects.toBeInstanceOf(SvcError);
  });
});

describe('the lock of a receipt', () => {
  it('runs one work at a time per receipt: the second sees what the first recorded, after waiting for it', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let firstIn!: () => void;
    const firstHolds = new Promise<void>((resolve) => (firstIn = resolve));
    const first = withCreditNoteLedger(f, 'sr-1', async (ledger) => {
      firstIn();
      await released;
      await ledger.record(note('cn-1', 'r-1'));
      return ledger.previous.length;
    });
    await firstHolds;
    const waits: number[] = [];
    const second = withCreditNoteLedger(f, 'sr-1', async (ledger) => ledger.previous.map((n) => n.serviceReceiptId), { onWait: (ms) => waits.push(ms) });
    // Another receipt's lock is another lock.
    expect(await withCreditNoteLedger(f, 'sr-2', async (ledger) => ledger.previous)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(waits).toEqual([30_000]);
    release();
    expect(await first).toBe(0);
    expect(await second).toEqual(['cn-1']);
  });

  it('takes over a lock left by a process that died', async () => {
    let lockFile = '';
    await withCreditNoteLedger(f, 'sr-1', async () => {
      const [name] = await readdir(join(stateDir, 'locks'));
      lockFile = join(stateDir, 'locks', name ?? '');
    });
    await writeFile(lockFile, '99999999\n');
    const old = new Date(Date.now() - 60_000);
    await utimes(lockFile, old, old);
    const waits: number[] = [];
    const started = Date.now();
    await withCreditNoteLedger(f, 'sr-1', (ledger) => ledger.record(note('cn-1', 'r-1')), { onWait: (ms) => waits.push(ms) });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(waits).toEqual([]);
    expect((await loadCreditNotes(f, 'sr-1')).map((n) => n.serviceReceiptId)).toEqual(['cn-1']);
    expect(await readdir(join(stateDir, 'locks'))).toEqual([]);
  });
});
