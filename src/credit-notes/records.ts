// The merchant's own record of every credit note this machine issued, one JSON file per
// original receipt in <stateDir>/<profile>/credit-notes/<serviceReceiptId>.json. The next
// return against that receipt is checked against it, so a damaged file stops an issue
// rather than letting an over-return through. A credit note is issued with the receipt's
// lock held from reading the earlier credit notes to recording the new one, so that two
// issues at once can neither both pass the quantity check nor drop each other's record.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { STALE_LOCK_MS, withFileLock } from '../auth/token-cache.js';
import { NonEmptyString, Sha256Hex } from '../contract/common.js';
import { CreditNoteSubmissionResult } from '../contract/credit-note.js';
import { SvcError } from '../errors.js';
import type { Factory } from '../factory.js';
import { fsErrorCode, pathSegment, profileStateDir, writePrivateFile } from '../io/private-file.js';

const RECORD_SUFFIX = '.json';

/** What one credit note took from one line of the original receipt. */
export const CreditedLine = z.looseObject({
  /** Index of the line in the original receipt's `products`. */
  originalLine: z.number().int().nonnegative(),
  productId: NonEmptyString,
  quantity: z.number().positive(),
});
export type CreditedLine = z.infer<typeof CreditedLine>;

export const CreditNoteRecord = z.looseObject({
  /** The credit note's own identifier. */
  serviceReceiptId: NonEmptyString,
  /** The return request it answered. */
  requestId: NonEmptyString,
  documentNumber: NonEmptyString,
  /** ISO 8601, from the CLI's clock when the service accepted the submission. */
  issuedAt: NonEmptyString,
  lines: z.array(CreditedLine).min(1),
  /** The template request as sent: every amount of the credit note. */
  templateRequest: z.looseObject({ documentNumber: z.string(), currency: z.string(), invoiceSubtotal: z.number(), totalAmount: z.number() }),
  templateHash: Sha256Hex,
  finalHash: Sha256Hex,
  matchId: NonEmptyString,
  recipients: z.array(z.looseObject({ recipientId: NonEmptyString, receiverType: z.string().optional(), keyId: NonEmptyString })),
  submission: CreditNoteSubmissionResult,
});
export type CreditNoteRecord = z.infer<typeof CreditNoteRecord>;

const Ledger = z.looseObject({
  version: z.literal(1),
  parentServiceReceiptId: NonEmptyString,
  /** Oldest first. */
  creditNotes: z.array(CreditNoteRecord),
});
type Ledger = z.infer<typeof Ledger>;

/** <stateDir>/<profile>/credit-notes of the command's profile. */
export function creditNotesDir(f: Factory): string {
  return profileStateDir(f, 'credit-notes');
}

function ledgerPath(f: Factory, parentServiceReceiptId: string): string {
  return join(creditNotesDir(f), pathSegment(parentServiceReceiptId, 'serviceReceiptId') + RECORD_SUFFIX);
}

/** The credit notes issued against a receipt, oldest first; none when there is no file. */
export async function loadCreditNotes(f: Factory, parentServiceReceiptId: string): Promise<CreditNoteRecord[]> {
  return (await readLedger(ledgerPath(f, parentServiceReceiptId), parentServiceReceiptId)).creditNotes;
}

/** The credit notes of one receipt, as `withCreditNoteLedger` hands them to its work. */
export interface CreditNoteLedger {
  /** Issued against the receipt so far, oldest first, read once the lock was held. */
  readonly previous: readonly CreditNoteRecord[];
  /** Appends a credit note to the receipt's file (atomically); returns the path. Only while the work runs. */
  record(record: CreditNoteRecord): Promise<string>;
}

export interface LedgerLockOptions {
  /** Called once if another process holds the receipt's lock, before waiting for it (at most `staleMs` if that process died). */
  onWait?: (staleMs: number) => void;
}

/**
 * Runs `work` holding the lock of the receipt's credit notes in this profile: another
 * process's `work` for the same receipt runs wholly before or wholly after it. The holder
 * keeps the lock fresh while it works, so a lock left by a process that died is taken over
 * once it is STALE_LOCK_MS old.
 */
export async function withCreditNoteLedger<T>(
  f: Factory,
  parentServiceReceiptId: string,
  work: (ledger: CreditNoteLedger) => Promise<T>,
  opts: LedgerLockOptions = {},
): Promise<T> {
  const path = ledgerPath(f, parentServiceReceiptId);
  const lock = join(f.paths.stateDir, 'locks', `credit-notes-${createHash('sha256').update(path).digest('hex').slice(0, 32)}.lock`);
  return withFileLock(
    lock,
    async () => {
      const { creditNotes } = await readLedger(path, parentServiceReceiptId);
      return work({ previous: creditNotes, record: (record) => appendRecord(f, path, parentServiceReceiptId, record) });
    },
    { staleMs: STALE_LOCK_MS, pollMs: 50, onWait: () => opts.onWait?.(STALE_LOCK_MS) },
  );
}

async function appendRecord(f: Factory, path: string, parentServiceReceiptId: string, record: CreditNoteRecord): Promise<string> {
  const ledger = await readLedger(path, parentServiceReceiptId);
  const next: Ledger = { ...ledger, creditNotes: [...ledger.creditNotes, record] };
  try {
    return await writePrivateFile(creditNotesDir(f), pathSegment(parentServiceReceiptId, 'serviceReceiptId') + RECORD_SUFFIX, `${JSON.stringify(next, null, 2)}\n`);
  } catch (error) {
    if (error instanceof SvcError) throw error;
    throw new SvcError(`cannot write the credit note record ${path} (${fsErrorCode(error)})`, {
      hint: `the credit note was issued as ${record.serviceReceiptId}; free space or fix the permissions of ${creditNotesDir(f)}`,
      cause: error,
    });
  }
}

async function readLedger(path: string, parentServiceReceiptId: string): Promise<Ledger> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') return { version: 1, parentServiceReceiptId, creditNotes: [] };
    throw new SvcError(`cannot read ${path} (${fsErrorCode(error)})`, { cause: error });
  }
  let parsed: ReturnType<typeof Ledger.safeParse> | undefined;
  try {
    parsed = Ledger.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (parsed?.success) return parsed.data;
  throw new SvcError(`the credit note record ${path} is damaged, so earlier credits for receipt ${parentServiceReceiptId} are unknown`, {
    hint: 'restore it from a backup; until then no credit note can be checked against this receipt',
  });
}
