import * as crypto from 'node:crypto';
import { canonicalize } from './jcs.js';

/** Lowercase hex SHA-256; strings are hashed as UTF-8. */
export function sha256Hex(data: Uint8Array | string): string {
  // One shot where Node has it (20.12+): no Hash object, a native handle the collector must
  // finalize, for each delivery a listener acknowledges.
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}

const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array | string, encoding: 'hex') => string }).hash;

/** docs/interface-decisions.md#template-and-final-hashes `templateHash` / `finalHash`: SHA-256 of the JCS canonical JSON. */
export function documentHash(doc: unknown): string {
  return sha256Hex(canonicalize(doc));
}

/** docs/interface-decisions.md#webhook-deliveries idempotency key of a webhook delivery: SHA-256 of the exact raw body bytes. */
export function bodyId(rawBody: Uint8Array | string): string {
  return sha256Hex(rawBody);
}
