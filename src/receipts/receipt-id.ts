// Receipt IDs as people type them: the whole serviceReceiptId, or a unique prefix of 6+
// characters among the receipts in this profile's records (the ledger: the embedded one, or
// the team's database). A profile that has issued nothing has no ledger to open, and an ID
// that matches nothing is passed on for the service to answer.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Factory } from '../factory.js';
import { RECEIPT_IDS } from '../ids/kinds.js';
import { matchPrefix } from '../ids/prefix.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function resolveReceiptId(f: Factory, given: string): Promise<string> {
  const id = given.trim();
  if (UUID.test(id) || id.length > 64) return id;
  const { databaseUrlOf, profileDir } = await import('../store/open.js');
  if ((await databaseUrlOf(f)) === undefined && !existsSync(join(profileDir(f), 'ledger.db'))) return id;
  const known = (await (await f.ledger()).receipts()).map((r) => r.serviceReceiptId);
  return matchPrefix(id, known, RECEIPT_IDS);
}
