// The kinds of ID a person types, with where each is listed (for the messages of prefix.ts).
import type { IdKind } from './prefix.js';

export const GRANT_IDS: IdKind = { noun: 'Grant', listedBy: '`svc grants list`' };
export const RECEIPT_IDS: IdKind = { noun: 'receipt', listedBy: '`svc receipt list`' };
/** Key IDs are base64url fingerprints: case matters. */
export const KEY_IDS: IdKind = { noun: 'key', listedBy: '`svc keys list`', caseSensitive: true };
