// Failures of the ledger itself (as opposed to what it refuses): the database cannot be
// opened, read or written. Exit 1; the message names the database, never its password.
import { SvcError } from '../errors.js';

export class StoreError extends SvcError {}
