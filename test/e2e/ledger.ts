// What the profiles of a state directory hold in their ledgers (<stateDir>/<profile>/ledger.db),
// read straight from SQLite, read-only: the local side of "the local records equal the service".
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/embedded/sqlite.js';

export interface LedgerContents {
  receipts: { serviceReceiptId: string; documentNumber: string }[];
  creditNotes: { serviceReceiptId: string; parent: string; requestId: string; documentNumber: string; lines: { productId: string; quantity: number }[] }[];
  /** Intents still reserved or prepared. */
  open: { kind: string; subject: string; state: string; documentNumber: string }[];
}

export async function readLedgers(stateDir: string): Promise<LedgerContents> {
  const out: LedgerContents = { receipts: [], creditNotes: [], open: [] };
  for (const profile of await readdir(stateDir).catch(() => [])) {
    const path = join(stateDir, profile, 'ledger.db');
    if (!existsSync(path)) continue;
    const db = openDatabase(path, 5_000);
    try {
      for (const row of db.prepare('SELECT service_receipt_id, document_number FROM receipts ORDER BY seq').all() as Record<string, string>[]) {
        out.receipts.push({ serviceReceiptId: row.service_receipt_id as string, documentNumber: row.document_number as string });
      }
      for (const row of db.prepare('SELECT parent, record FROM credit_notes ORDER BY seq').all() as Record<string, string>[]) {
        const record = JSON.parse(row.record as string) as LedgerContents['creditNotes'][number];
        out.creditNotes.push({ ...record, parent: row.parent as string });
      }
      for (const row of db.prepare("SELECT kind, subject, state, document_number FROM intents WHERE state IN ('reserved', 'prepared') ORDER BY seq").all() as Record<string, string>[]) {
        out.open.push({ kind: row.kind as string, subject: row.subject as string, state: row.state as string, documentNumber: row.document_number as string });
      }
    } finally {
      db.close();
    }
  }
  return out;
}
