// Hybrid encryption of every `encrypted*` field, exactly docs/interface-decisions.md#hybrid-encryption: a fresh AES-256-GCM
// content key per ciphertext (Base64 of IV || ciphertext || tag), wrapped with RSA-OAEP
// SHA-256 (MGF1-SHA-256, empty label). Every decryption failure is one DecryptError whose
// reason names no plaintext and no key material.
import { constants, createCipheriv, createDecipheriv, privateDecrypt, publicEncrypt, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { DecryptError, MissingKeyError } from '../errors.js';
import { decodeBase64Strict, encodeBase64 } from './base64.js';
import { keyFingerprint, privateKeyFromPem, publicKeyFromBase64 } from './keys.js';
import type { AsyncUnwrapper } from './unwrap-threads.js';

/** Base64 of DER SPKI, or a parsed key. */
export type PublicKeyInput = string | KeyObject;
/** PKCS#8 PEM, or a parsed key. */
export type PrivateKeyInput = string | KeyObject;

export interface Sealed {
  /** Base64 of IV || ciphertext || tag. */
  ciphertext: string;
  /** Base64 of the RSA-OAEP-wrapped content key. */
  wrappedKey: string;
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

// Node's OAEP default is SHA-1; setting oaepHash also sets MGF1 to SHA-256 (checked against
// WebCrypto in the tests).
const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' } as const;

function decodeOrFail(b64: string, what: string): Buffer {
  try {
    return decodeBase64Strict(b64);
  } catch {
    throw new DecryptError(`cannot decrypt: ${what} is not valid Base64`);
  }
}

function privateKeyOrFail(privateKey: PrivateKeyInput): KeyObject {
  if (typeof privateKey !== 'string') return privateKey;
  try {
    return privateKeyFromPem(privateKey);
  } catch {
    throw new DecryptError('cannot decrypt: the private key is not usable');
  }
}

/** RSA-OAEP-SHA-256 wrap of a 32-byte content key, as Base64. */
export function wrapKey(aesKey: Uint8Array, publicKey: PublicKeyInput): string {
  if (aesKey.length !== KEY_BYTES) throw new TypeError(`content key must be ${KEY_BYTES} bytes`);
  const key = typeof publicKey === 'string' ? publicKeyFromBase64(publicKey) : publicKey;
  return encodeBase64(publicEncrypt({ key, ...OAEP }, aesKey));
}

/** Unwraps a Base64 RSA-OAEP-SHA-256 content key; the caller should wipe it after use. */
export function unwrapKey(wrappedKeyB64: string, privateKey: PrivateKeyInput): Buffer {
  const wrapped = decodeOrFail(wrappedKeyB64, 'the wrapped key');
  const key = privateKeyOrFail(privateKey);
  let aesKey: Buffer;
  try {
    aesKey = privateDecrypt({ key, ...OAEP }, wrapped);
  } catch {
    throw new DecryptError('cannot decrypt: the wrapped key does not open with this private key');
  }
  if (aesKey.length !== KEY_BYTES) {
    aesKey.fill(0);
    throw new DecryptError('cannot decrypt: the wrapped key is not an AES-256 key');
  }
  return aesKey;
}

/** AES-256-GCM with a fresh 12-byte IV and no AAD; Base64 of IV || ciphertext || tag. */
export function sealAesGcm(plaintext: Uint8Array, key: Uint8Array): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return encodeBase64(Buffer.concat([iv, body, cipher.getAuthTag()]));
}

/** Opens Base64 IV || ciphertext || tag; returns plaintext only once the tag has verified. */
export function openAesGcm(b64: string, key: Uint8Array): Buffer {
  const sealed = decodeOrFail(b64, 'the ciphertext');
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new DecryptError('cannot decrypt: the ciphertext is too short');
  if (key.length !== KEY_BYTES) throw new DecryptError(`cannot decrypt: the content key is not ${KEY_BYTES} bytes`);
  const iv = sealed.subarray(0, IV_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const body = sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  // update() hands out unauthenticated plaintext; it leaves this function only after final()
  // has checked the tag, and is wiped otherwise.
  const head = decipher.update(body);
  try {
    decipher.final();
  } catch {
    head.fill(0);
    throw new DecryptError('cannot decrypt: the ciphertext or its tag was altered, or the key is wrong');
  }
  return head;
}

/** Encrypts `JSON.stringify(value)` (UTF-8) for one recipient with a fresh content key. */
export function encryptJson(value: unknown, recipientPublicKey: PublicKeyInput): Sealed {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) throw new TypeError('value has no JSON representation');
  const aesKey = randomBytes(KEY_BYTES);
  try {
    return { ciphertext: sealAesGcm(Buffer.from(json, 'utf8'), aesKey), wrappedKey: wrapKey(aesKey, recipientPublicKey) };
  } finally {
    aesKey.fill(0);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Unwraps, opens and parses; the result is unvalidated JSON for the caller's schema. */
export function decryptJson(ciphertextB64: string, wrappedKeyB64: string, privateKey: PrivateKeyInput): unknown {
  return openJson(ciphertextB64, unwrapKey(wrappedKeyB64, privateKey));
}

/** Opens and parses with an unwrapped content key, which is wiped whatever happens. */
export function openJson(ciphertextB64: string, aesKey: Buffer): unknown {
  let plaintext: Buffer;
  try {
    plaintext = openAesGcm(ciphertextB64, aesKey);
  } finally {
    aesKey.fill(0);
  }
  try {
    return JSON.parse(utf8.decode(plaintext)) as unknown;
  } catch {
    throw new DecryptError('cannot decrypt: the plaintext is not UTF-8 JSON');
  } finally {
    plaintext.fill(0);
  }
}

export interface EncryptedItem {
  ciphertext: string;
  wrappedKey: string;
  /** Base64 SPKI the item was encrypted for; empty or absent when the service omits it. */
  publicKey?: string | null | undefined;
}

export interface KeyringEntry {
  keyId: string;
  privateKeyPem: string;
}

function fingerprintOfPrivate(pem: string): string | undefined {
  try {
    return keyFingerprint(privateKeyFromPem(pem));
  } catch {
    return undefined;
  }
}

/**
 * docs/interface-decisions.md#which-key-decrypts: decrypt with the historical key whose fingerprint matches the
 * item's `publicKey`; only without that field is every key tried in turn. Keys are matched
 * on their own key material, so a mislabelled `keyId` cannot select the wrong key.
 */
export function decryptWithKeyring(
  item: EncryptedItem,
  keys: readonly KeyringEntry[],
): { value: unknown; keyId: string } {
  const { entries, matched } = candidates(item, keys);
  for (const entry of entries) {
    try {
      return { value: decryptJson(item.ciphertext, item.wrappedKey, entry.privateKeyPem), keyId: entry.keyId };
    } catch (error) {
      if (matched || !(error instanceof DecryptError)) throw error;
    }
  }
  throw noKeyOpens(keys);
}

/** decryptWithKeyring with the RSA unwrap on the thread pool (unwrap-async.ts); the rest here. */
export async function decryptWithKeyringAsync(
  item: EncryptedItem,
  keys: readonly KeyringEntry[],
  unwrapper: AsyncUnwrapper,
): Promise<{ value: unknown; keyId: string }> {
  const { entries, matched } = candidates(item, keys);
  for (const entry of entries) {
    try {
      return { value: openJson(item.ciphertext, await unwrapper.unwrap(item.wrappedKey, entry.privateKeyPem)), keyId: entry.keyId };
    } catch (error) {
      if (matched || !(error instanceof DecryptError)) throw error;
    }
  }
  throw noKeyOpens(keys);
}

/** The keys to try, in order: the one the item names (`matched`), else all of them. */
function candidates(item: EncryptedItem, keys: readonly KeyringEntry[]): { entries: readonly KeyringEntry[]; matched: boolean } {
  if (item.publicKey) {
    let wanted: string;
    try {
      wanted = keyFingerprint(item.publicKey);
    } catch {
      throw new DecryptError("cannot decrypt: the item's public key is not a valid RSA public key");
    }
    const entry = keys.find((k) => fingerprintOfPrivate(k.privateKeyPem) === wanted);
    if (!entry) throw new MissingKeyError(wanted);
    return { entries: [entry], matched: true };
  }
  if (keys.length === 0) throw new DecryptError('cannot decrypt: no private keys available');
  return { entries: keys, matched: false };
}

function noKeyOpens(keys: readonly KeyringEntry[]): DecryptError {
  return new DecryptError(`cannot decrypt: none of the ${keys.length} private keys opens the item`);
}
