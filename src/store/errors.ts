// Failures of the ledger itself (as opposed to what it refuses): the database cannot be
// opened, read or written. Exit 1; the message names the database, never its password.
import { ExitCode, SvcError, UnavailableError } from '../errors.js';

export class StoreError extends SvcError {}

/**
 * A document the service issued that the ledger could not record: exit 8 when the database
 * was unreachable (run it again once it is back), else 1. A re-run records it without
 * issuing it again.
 */
export class NotRecordedError extends SvcError {
  override readonly exitCode: ExitCode;
  constructor(message: string, options: { hint: string; cause: unknown }) {
    super(message, options);
    this.exitCode = options.cause instanceof UnavailableError ? ExitCode.unavailable : ExitCode.failure;
  }
}
