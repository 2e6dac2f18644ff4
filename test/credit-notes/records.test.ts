import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryConfigStore } from '../../src/config/store.js';
import { creditNotesDir, loadCreditNotes, recordCreditNote, type CreditNoteRecord } from '../../src/credit-notes/records.js';
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
    await Promise.all([recordCreditNote(f, 'sr-1', note('cn-1', 'r-1')), recordCreditNote(f, 'sr-1', note('cn-2', 'r-2'))]);
    await recordCreditNote(f, 'sr-2', note('cn-3', 'r-3'));
    const dir = join(stateDir, 'shop', 'credit-notes');
    expect(creditNotesDir(f)).toBe(dir);
    expect((await loadCreditNotes(f, 'sr-1')).map((n) => n.serviceReceiptId).sort()).toEqual(['cn-1', 'cn-2']);
    expect((await loadCreditNotes(f, 'sr-2')).map((n) => n.serviceReceiptId)).toEqual(['cn-3']);
    expect((await readdir(dir)).sort()).toEqual(['sr-1.json', 'sr-2.json']);
    expect((await stat(join(dir, 'sr-1.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('refuse to go on from a damaged file, which would hide earlier credits', async () => {
    await recordCreditNote(f, 'sr-1', note('cn-1', 'r-1'));
    await writeFile(join(creditNotesDir(f), 'sr-1.json'), '{"version":1');
    const error = await loadCreditNotes(f, 'sr-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).message).toMatch(/is damaged, so earlier credits for receipt sr-1 are unknown/);
    await expect(recordCreditNote(f, 'sr-1', note('cn-2', 'r-2'))).rejects.toBeInstanceOf(SvcError);
  });
});
