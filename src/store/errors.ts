// Failures of the ledger itself (as opposed to what it refuses): the database cannot be
// opened, read or written. Exit 1; the message names the database, never its password.
import { ConflictError, ExitCode, SvcError, UnavailableError, UsageError } from '../errors.js';

export class StoreError extends SvcError {}

/** The database's role lacks a privilege a step needs (PostgreSQL's insufficient_privilege, 42501): exit 5, as a forbidden request. */
export class PrivilegeError extends SvcError {
  override readonly exitCode = ExitCode.forbidden;
}

/**
 * The database refused a second document under one document number of one issuer (a
 * receipt, or a credit note): exit 7. Document numbers identify documents, so the ledger
 * never holds two under one.
 */
export class SecondDocumentError extends ConflictError {
  constructor(kind: 'receipt' | 'credit-note', serviceReceiptId: string, detail: { documentNumber?: string | undefined; issuer?: string | undefined }, cause?: unknown) {
    const what = kind === 'receipt' ? 'receipt' : 'credit note';
    const number = detail.documentNumber === undefined ? 'its document number' : `document number ${detail.documentNumber}`;
    super(
      `the ledger already holds another ${what} under ${number}${detail.issuer === undefined ? '' : ` of issuer ${detail.issuer}`}: the database refuses a second ${what} under one number`,
      {
        hint: `a document number names one document, so each needs its own; ${serviceReceiptId} is on the service but not in this ledger`,
        cause,
      },
    );
  }
}

/** A receipt about to be sent under a number its issuer's recorded receipt has (exit 7): nothing was sent. */
export class NumberTakenError extends ConflictError {
  constructor(documentNumber: string, recorded: string) {
    super(`receipt ${documentNumber} is recorded already, as ${recorded} (issued on another machine, or imported): nothing was sent`, {
      hint: `a document number names one document: \`svc receipt list\` shows ${recorded}; another receipt needs its own number`,
    });
  }
}

/** A line of a receipt the ledger would credit beyond what was bought, as the database's check found it. */
export interface OverCreditedLine {
  line: number;
  productId: string;
  bought: number;
  credited: number;
}

/**
 * The ledger's own over-credit check (on the line columns, under the receipt's lock) refused a
 * reservation: issued credit notes and submissions under way would credit a line of the
 * receipt beyond what was bought (exit 7). Nothing was reserved.
 */
export class OverCreditError extends ConflictError {
  constructor(parent: string, requestId: string, lines: readonly OverCreditedLine[]) {
    const what = lines.map((l) => `line ${l.line + 1} (${l.productId}) ${l.credited} of ${l.bought}`).join(', ');
    super(`the ledger refuses to reserve the credit note of request ${requestId}: receipt ${parent} would be credited beyond what was bought: ${what}`, {
      hint: 'the credit notes issued and under way already take it: see them with `svc credit-note show` for the request; nothing was reserved',
    });
  }
}

/**
 * A document the service issued that the ledger could not record: exit 8 when the database
 * was unreachable (run it again once it is back), else 1. A re-run records it without
 * issuing it again.
 */
export class NotRecordedError extends SvcError {
  override readonly exitCode: ExitCode;
  constructor(message: string, options: { hint: string; cause: unknown }) {
    // Refused as a second document under its number: running it again cannot record it, so the cause's hint stands.
    const conflict = options.cause instanceof ConflictError;
    super(message, conflict ? { hint: (options.cause as ConflictError).hint ?? options.hint, cause: options.cause } : options);
    this.exitCode = options.cause instanceof UnavailableError ? ExitCode.unavailable : conflict ? ExitCode.conflict : ExitCode.failure;
  }
}

/**
 * A credit note about to be reserved under a number its issuer's credit note of another
 * request has (issued, or being submitted): a document number names one document, and its
 * derived Idempotency-Key would collide. Exit 2, as for a number taken on the same receipt.
 */
export class CreditNoteNumberTakenError extends UsageError {
  constructor(documentNumber: string, requestId: string) {
    super(`credit note number ${documentNumber} is taken: the issuer's credit note of request ${requestId} has it; nothing was sent`, {
      hint: 'give another number with --document-number, or leave it out for the next free one',
    });
  }
}
