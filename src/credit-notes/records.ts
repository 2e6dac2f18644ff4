// The merchant's own record of every credit note this machine issued, one JSON file per
// original receipt in <stateDir>/<profile>/credit-notes/<serviceReceiptId>.json. The next
// return against that receipt is checked against it, so a damaged file stops an issue
// rather than letting an over-return through, and appends happen under a lock so that
// two issues at once cannot drop each other's record.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { withFileLock } from '../auth/token-cache.js';
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

/** Appends a credit note to its receipt's file (atomically, under a lock); returns the path. */
export async function recordCreditNote(f: Factory, parentServiceReceiptId: string, record: CreditNoteRecord): Promise<string> {
  const path = ledgerPath(f, parentServiceReceiptId);
  const lock = join(f.paths.stateDir, 'locks', `credit-notes-${createHash('sha256').update(path).digest('hex').slice(0, 32)}.lock`);
  return withFileLock(
    lock,
    async () => {
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
    },
    { staleMs: 30_000, pollMs: 50 },
  );
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
