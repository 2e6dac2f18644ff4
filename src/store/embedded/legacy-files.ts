// Records an older svc kept as JSON files (<profile>/receipts/<id>.json, and one ledger file
// per receipt in <profile>/credit-notes/) move into the ledger on first use: imported in one
// transaction, then the directories are renamed `<name>.imported`, so nothing is read twice
// and nothing is lost. A file that cannot be read stops the import with its name.
import { readdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from '../../contract/zod.js';
import { CreditNoteRecord, ReceiptRecord } from '../../contract/records.js';
import { fsErrorCode } from '../private-file.js';
import { StoreError } from '../errors.js';
import type { ImportedRecords, LedgerStore } from '../ledger.js';

const LegacyLedger = z.looseObject({
  parentServiceReceiptId: z.string().min(1),
  creditNotes: z.array(CreditNoteRecord),
});

/** Imports the profile directory's JSON records, if any; returns how many were new. */
export async function importLegacyFiles(store: LedgerStore, profileDir: string): Promise<number> {
  const receiptsDir = join(profileDir, 'receipts');
  const creditNotesDir = join(profileDir, 'credit-notes');
  const records: ImportedRecords = {
    receipts: await readRecords(receiptsDir, (value) => [ReceiptRecord.parse(value)]),
    creditNotes: (
      await readRecords(creditNotesDir, (value) => {
        const ledger = LegacyLedger.parse(value);
        return ledger.creditNotes.map((record) => ({ parent: ledger.parentServiceReceiptId, record }));
      })
    ).flat(),
  };
  if (records.receipts.length === 0 && records.creditNotes.length === 0) return 0;
  const result = await store.importRecords(records);
  if (result.conflicts.length > 0) {
    const names = result.conflicts.map((c) => `${c.kind} ${c.serviceReceiptId}`).join(', ');
    throw new StoreError(`the JSON records of ${profileDir} disagree with the ledger about ${names}`, {
      hint: `nothing was changed; compare the files with \`svc receipt list --json\` and move the stale ones away`,
    });
  }
  for (const dir of [receiptsDir, creditNotesDir]) await rename(dir, `${dir}.imported`).catch(() => undefined);
  return result.inserted;
}

async function readRecords<T>(dir: string, parse: (value: unknown) => T[]): Promise<T[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT' || fsErrorCode(error) === 'ENOTDIR') return [];
    throw new StoreError(`cannot read ${dir} (${fsErrorCode(error)})`, { cause: error });
  }
  const out: T[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    try {
      out.push(...parse(JSON.parse(await readFile(path, 'utf8'))));
    } catch (error) {
      const issue = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues?.[0];
      const why = issue ? `${issue.path.join('.')}: ${issue.message}` : error instanceof Error ? error.message : String(error);
      throw new StoreError(`cannot move ${path} into the ledger: it is not a readable record (${why})`, {
        hint: 'restore it from a backup or move it out of the directory; nothing was imported',
      });
    }
  }
  return out;
}
