import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GeneratedKeyPair } from '../../src/crypto/keys.js';
import {
  generateKeyPair,
  keyFingerprint,
  KeyFormatError,
  privateKeyFromPem,
  publicKeyFromBase64,
  publicKeyOfPrivate,
} from '../../src/crypto/keys.js';
import { isBase64 } from '../../src/crypto/base64.js';

let pair: GeneratedKeyPair;
let other: GeneratedKeyPair;

beforeAll(async () => {
  [pair, other] = await Promise.all([generateKeyPair(), generateKeyPair()]);
});

function independentFingerprint(publicKeyB64: string): string {
  const der = createPublicKey({ key: Buffer.from(publicKeyB64, 'base64'), format: 'der', type: 'spki' }).export({
    type: 'spki',
    format: 'der',
  });
  return createHash('sha256').update(der).digest('base64url');
}

describe('generateKeyPair', () => {
  it('makes RSA 2048 / e=65537 with a Base64 SPKI public key and a PKCS#8 PEM private key', () => {
    expect(isBase64(pair.publicKey)).toBe(true);
    const pub = createPublicKey({ key: Buffer.from(pair.publicKey, 'base64'), format: 'der', type: 'spki' });
    expect(pub.asymmetricKeyType).toBe('rsa');
    expect(pub.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(pub.asymmetricKeyDetails?.publicExponent).toBe(65537n);
    expect(pair.privateKeyPem.startsWith('-----BEGIN PRIVATE KEY-----\n')).toBe(true);
    expect(publicKeyOfPrivate(pair.privateKeyPem)).toBe(pair.publicKey);
    expect(other.publicKey).not.toBe(pair.publicKey);
  });
});

describe('keyFingerprint', () => {
  it('is base64url SHA-256 of the DER SPKI, whatever form the key is given in', () => {
    const expected = independentFingerprint(pair.publicKey);
    expect(expected).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(keyFingerprint(pair.publicKey)).toBe(expected);
    expect(keyFingerprint(pair.publicKey)).toBe(expected);
    expect(keyFingerprint(createPublicKey({ key: Buffer.from(pair.publicKey, 'base64'), format: 'der', type: 'spki' }))).toBe(expected);
    expect(keyFingerprint(createPrivateKey(pair.privateKeyPem))).toBe(expected);
    expect(keyFingerprint(privateKeyFromPem(pair.privateKeyPem))).toBe(expected);
  });

  it('differs between keys', () => {
    expect(keyFingerprint(other.publicKey)).not.toBe(keyFingerprint(pair.publicKey));
  });

  it('throws KeyFormatError for garbage', () => {
    expect(() => keyFingerprint('not a key')).toThrow(KeyFormatError);
  });
});

describe('publicKeyFromBase64', () => {
  it('parses and caches', () => {
    const key = publicKeyFromBase64(pair.publicKey);
    expect(key.type).toBe('public');
    expect(publicKeyFromBase64(pair.publicKey)).toBe(key);
  });

  it.each([
    ['non-Base64', () => 'not base64!'],
    ['Base64 with a stray character', () => `${pair.publicKey.slice(0, 8)}!!!!${pair.publicKey.slice(8)}`],
    ['random bytes', () => Buffer.from('0123456789abcdef').toString('base64')],
    ['a truncated key', () => Buffer.from(pair.publicKey, 'base64').subarray(0, 100).toString('base64')],
    [
      'PKCS#1 instead of SPKI',
      () => createPublicKey(createPrivateKey(pair.privateKeyPem)).export({ type: 'pkcs1', format: 'der' }).toString('base64'),
    ],
    [
      'an EC key',
      () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    ],
    [
      'RSA 1024',
      () => generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    ],
  ])('rejects %s with KeyFormatError', (_name, input) => {
    expect(() => publicKeyFromBase64(input())).toThrow(KeyFormatError);
  });
});

describe('privateKeyFromPem', () => {
  it('parses and caches', () => {
    const key = privateKeyFromPem(pair.privateKeyPem);
    expect(key.type).toBe('private');
    expect(privateKeyFromPem(pair.privateKeyPem)).toBe(key);
  });

  it('rejects garbage with KeyFormatError that names no key material', () => {
    const lines = pair.privateKeyPem.trim().split('\n');
    const truncated = [...lines.slice(0, 5), lines.at(-1)].join('\n');
    const publicOnly = createPublicKey(pair.privateKeyPem).export({ type: 'spki', format: 'pem' }).toString();
    for (const pem of ['', 'garbage', truncated, publicOnly]) {
      let caught: unknown;
      try {
        privateKeyFromPem(pem);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(KeyFormatError);
      expect((caught as Error).message).not.toMatch(/[A-Za-z0-9+/]{20}/);
    }
  });
});
