// Building blocks shared by the contract schemas.
import * as z from './zod.js';
import { MAX_MINOR_UNITS } from '../crypto/money.js';

export const NonEmptyString = z.string().min(1);

/**
 * A value of an enum the service may extend (reason codes, event names, statuses, key
 * algorithms). docs/interface-decisions.md#unknown-members-and-values: unknown values are displayed, never fatal, so responses accept
 * any non-empty string; requests use the strict enum next to each use.
 */
export const OpenEnum = z.string().min(1);

/** docs/interface-decisions.md#base64: standard alphabet, padded. */
export const Base64 = z.base64().min(1);

/** A UUID of any version; the service's own identifiers are not known to be v4. */
export const Uuid = z.guid();

/** docs/interface-decisions.md#template-and-final-hashes: `templateHash`, `finalHash`. */
export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256 (64 characters)');

/** The only algorithm docs/interface-decisions.md#hybrid-encryption defines; other values from the service are shown as they are. */
export const KeyAlgorithm = z.enum(['RSA_2048']);
export type KeyAlgorithm = z.infer<typeof KeyAlgorithm>;

/**
 * A money amount or a quantity-free figure such as a rate. Finite (zod numbers are), never
 * negative, and small enough to count in minor units of any currency (exponent up to 4).
 */
export const Amount = z.number().nonnegative().max(MAX_MINOR_UNITS / 10 ** 4);
