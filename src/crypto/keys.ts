// RSA key pairs per docs/interface-decisions.md#hybrid-encryption: public keys travel as Base64 of DER SPKI, private keys stay
// PKCS#8 PEM. Parsed KeyObjects are cached because a poll or a webhook backlog decrypts
// thousands of items with the same few keys, and parsing a private key costs more than
// the AES work per item.
import { createHash, createPrivateKey, createPublicKey, generateKeyPair as generateKeyPairCb, KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { SvcError } from '../errors.js';
import { base64url, decodeBase64Strict, encodeBase64 } from './base64.js';

/** A key that cannot be parsed, or is not an RSA key of at least 2048 bits. */
export class KeyFormatError extends SvcError {}

export interface GeneratedKeyPair {
  /** Base64 of DER SubjectPublicKeyInfo. */
  publicKey: string;
  /** PKCS#8 PEM. */
  privateKeyPem: string;
}

const generateKeyPairAsync = promisify(generateKeyPairCb);

export async function generateKeyPair(): Promise<GeneratedKeyPair> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicExponent: 0x10001,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: encodeBase64(publicKey), privateKeyPem: privateKey };
}

// Bounded because the sandbox is a long-running process that sees the keys of every
// simulated device; Map iteration order makes the first key the oldest entry.
const CACHE_LIMIT = 512;
const publicKeys = new Map<string, KeyObject>();
const privateKeys = new Map<string, KeyObject>();
const fingerprints = new WeakMap<KeyObject, string>();

function cached(cache: Map<string, KeyObject>, key: string, parse: () => KeyObject): KeyObject {
  const hit = cache.get(key);
  if (hit) return hit;
  const value = parse();
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(key, value);
  return value;
}

function assertRsa(key: KeyObject, what: string): KeyObject {
  // 'rsa-pss' keys cannot do OAEP, and moduli under 2048 bits are below the contract's RSA_2048.
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
    throw new KeyFormatError(`${what} is not an RSA key of at least 2048 bits`);
  return key;
}

/** Parses Base64 of DER SPKI into a KeyObject; throws `KeyFormatError` on anything else. */
export function publicKeyFromBase64(b64: string): KeyObject {
  return cached(publicKeys, b64, () => {
    let key: KeyObject;
    try {
      key = createPublicKey({ key: decodeBase64Strict(b64), format: 'der', type: 'spki' });
    } catch (cause) {
      throw new KeyFormatError('the public key is not Base64 of a DER SubjectPublicKeyInfo', { cause });
    }
    return assertRsa(key, 'the public key');
  });
}

/** Parses a PEM private key (PKCS#8; PKCS#1 is accepted too); throws `KeyFormatError` on anything else. */
export function privateKeyFromPem(pem: string): KeyObject {
  return cached(privateKeys, pem, () => {
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: pem, format: 'pem' });
    } catch (cause) {
      // The cause is OpenSSL's message, which names no key material.
      throw new KeyFormatError('the private key is not an unencrypted PEM private key', { cause });
    }
    return assertRsa(key, 'the private key');
  });
}

/** A PEM private key (PKCS#8 or PKCS#1) as PKCS#8 PEM, the one form svc keeps and writes. */
export function pkcs8Of(pem: string): string {
  return privateKeyFromPem(pem).export({ type: 'pkcs8', format: 'pem' }).toString();
}

function spkiDer(key: KeyObject): Buffer {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  if (pub.type !== 'public') throw new KeyFormatError('a symmetric key has no fingerprint');
  return pub.export({ type: 'spki', format: 'der' });
}

/** Base64 of DER SPKI of the public half of a PEM private key. */
export function publicKeyOfPrivate(pem: string): string {
  return encodeBase64(spkiDer(privateKeyFromPem(pem)));
}

/**
 * docs/interface-decisions.md#key-fingerprints keyId: base64url (no padding) SHA-256 of the DER SPKI. A string is Base64 SPKI;
 * a KeyObject may be public or private. Always hashed from Node's re-export, so the public
 * key of an item and the private key that opens it agree whatever form each arrives in.
 */
export function keyFingerprint(key: string | KeyObject): string {
  const object = typeof key === 'string' ? publicKeyFromBase64(key) : key;
  let fingerprint = fingerprints.get(object);
  if (fingerprint === undefined) {
    fingerprint = base64url(createHash('sha256').update(spkiDer(object)).digest());
    fingerprints.set(object, fingerprint);
  }
  return fingerprint;
}
