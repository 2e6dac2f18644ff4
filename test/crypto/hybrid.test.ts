import { constants, createCipheriv, createPrivateKey, publicEncrypt, randomBytes, webcrypto } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DecryptError } from '../../src/errors.js';
import {
  decryptJson,
  decryptWithKeyring,
  encryptJson,
  openAesGcm,
  sealAesGcm,
  unwrapKey,
  wrapKey,
} from '../../src/crypto/hybrid.js';
import type { GeneratedKeyPair } from '../../src/crypto/keys.js';
import { generateKeyPair, keyFingerprint, publicKeyFromBase64 } from '../../src/crypto/keys.js';

const { subtle } = webcrypto;

let alice: GeneratedKeyPair;
let bob: GeneratedKeyPair;
let carol: GeneratedKeyPair;

beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([generateKeyPair(), generateKeyPair(), generateKeyPair()]);
});

const SECRET = { note: 'SECRET-PLAINTEXT-4711', amount: 12.5 };

/** Runs `fn` and returns what it threw, asserting it was a DecryptError that leaks nothing. */
function decryptFailure(fn: () => unknown): DecryptError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DecryptError);
  const error = caught as DecryptError;
  expect(error.message).toMatch(/^cannot decrypt/);
  expect(error.message).not.toContain('SECRET');
  return error;
}

function edit(b64: string, change: (bytes: Buffer) => Buffer): string {
  return change(Buffer.from(b64, 'base64')).toString('base64');
}

function flip(index: (length: number) => number) {
  return (bytes: Buffer): Buffer => {
    const copy = Buffer.from(bytes);
    const i = index(copy.length);
    copy[i] = (copy[i] ?? 0) ^ 0x01;
    return copy;
  };
}

function pkcs8Der(pem: string): Buffer {
  return createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
}

describe('encryptJson / decryptJson', () => {
  it('round-trips with keys given as strings or KeyObjects', () => {
    const sealed = encryptJson(SECRET, alice.publicKey);
    expect(decryptJson(sealed.ciphertext, sealed.wrappedKey, alice.privateKeyPem)).toEqual(SECRET);
    const again = encryptJson(SECRET, publicKeyFromBase64(alice.publicKey));
    expect(decryptJson(again.ciphertext, again.wrappedKey, createPrivateKey(alice.privateKeyPem))).toEqual(SECRET);
  });

  it('produces the contract layout: 256-byte wrapped key, IV || ciphertext || tag', () => {
    const sealed = encryptJson(SECRET, alice.publicKey);
    expect(Buffer.from(sealed.wrappedKey, 'base64')).toHaveLength(256);
    expect(Buffer.from(sealed.ciphertext, 'base64')).toHaveLength(12 + Buffer.byteLength(JSON.stringify(SECRET)) + 16);
  });

  it('uses a fresh content key and IV every time', () => {
    const a = encryptJson(SECRET, alice.publicKey);
    const b = encryptJson(SECRET, alice.publicKey);
    expect(a.wrappedKey).not.toBe(b.wrappedKey);
    expect(Buffer.from(a.ciphertext, 'base64').subarray(0, 12)).not.toEqual(Buffer.from(b.ciphertext, 'base64').subarray(0, 12));
    const keyA = unwrapKey(a.wrappedKey, alice.privateKeyPem);
    const keyB = unwrapKey(b.wrappedKey, alice.privateKeyPem);
    expect(keyA).toHaveLength(32);
    expect(keyA).not.toEqual(keyB);
  });

  it('round-trips arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const sealed = encryptJson(value, alice.publicKey);
        expect(decryptJson(sealed.ciphertext, sealed.wrappedKey, alice.privateKeyPem)).toEqual(
          JSON.parse(JSON.stringify(value)),
        );
      }),
      { numRuns: 20 },
    );
  });

  it('refuses values with no JSON representation', () => {
    expect(() => encryptJson(undefined, alice.publicKey)).toThrow(TypeError);
  });

  describe('fails with DecryptError', () => {
    let sealed: { ciphertext: string; wrappedKey: string };
    beforeAll(() => {
      sealed = encryptJson(SECRET, alice.publicKey);
    });
    const open = (ciphertext: string, wrappedKey = sealed.wrappedKey, pem = alice.privateKeyPem) =>
      decryptFailure(() => decryptJson(ciphertext, wrappedKey, pem));

    it('for the wrong private key', () => {
      open(sealed.ciphertext, sealed.wrappedKey, bob.privateKeyPem);
    });

    it('for a flipped byte in the IV, the ciphertext or the tag', () => {
      open(edit(sealed.ciphertext, flip(() => 0)));
      open(edit(sealed.ciphertext, flip(() => 11)));
      open(edit(sealed.ciphertext, flip(() => 12)));
      open(edit(sealed.ciphertext, flip((n) => n - 17)));
      open(edit(sealed.ciphertext, flip((n) => n - 16)));
      open(edit(sealed.ciphertext, flip((n) => n - 1)));
    });

    it('for a tag truncated to 12 or 4 bytes', () => {
      open(edit(sealed.ciphertext, (b) => b.subarray(0, b.length - 4)));
      open(edit(sealed.ciphertext, (b) => b.subarray(0, b.length - 12)));
    });

    it('for input shorter than IV + tag', () => {
      expect(open(Buffer.alloc(27).toString('base64')).message).toContain('too short');
      open('');
    });

    it('for non-Base64 ciphertext or wrapped key', () => {
      open('not base64 at all');
      open(sealed.ciphertext, 'not base64 at all');
      open(sealed.ciphertext.replace(/.$/, '-'));
    });

    it('for Base64 with stray characters that Node would silently drop', () => {
      const strayCiphertext = `${sealed.ciphertext.slice(0, 8)}!!!!${sealed.ciphertext.slice(8)}`;
      expect(Buffer.from(strayCiphertext, 'base64')).toEqual(Buffer.from(sealed.ciphertext, 'base64'));
      expect(open(strayCiphertext).message).toContain('Base64');
      const strayKey = `${sealed.wrappedKey.slice(0, 8)}\n${sealed.wrappedKey.slice(8)}`;
      expect(Buffer.from(strayKey, 'base64')).toEqual(Buffer.from(sealed.wrappedKey, 'base64'));
      expect(open(sealed.ciphertext, strayKey).message).toContain('Base64');
    });

    it('for a content key wrapped with SHA-1 OAEP (Node\'s default)', () => {
      const aesKey = randomBytes(32);
      const sha1Wrapped = publicEncrypt(
        { key: publicKeyFromBase64(alice.publicKey), padding: constants.RSA_PKCS1_OAEP_PADDING },
        aesKey,
      ).toString('base64');
      decryptFailure(() => unwrapKey(sha1Wrapped, alice.privateKeyPem));
      open(sealAesGcm(Buffer.from('{}'), aesKey), sha1Wrapped);
    });

    it('for a wrapped key that is not 32 bytes', () => {
      const aesKey = randomBytes(16);
      const wrapped = publicEncrypt(
        { key: publicKeyFromBase64(alice.publicKey), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
        aesKey,
      ).toString('base64');
      expect(open(sealed.ciphertext, wrapped).message).toContain('AES-256');
    });

    it('for a plaintext that is not UTF-8 JSON', () => {
      const aesKey = randomBytes(32);
      const wrapped = wrapKey(aesKey, alice.publicKey);
      open(sealAesGcm(Buffer.from('SECRET, not JSON'), aesKey), wrapped);
      open(sealAesGcm(Buffer.from([0x22, 0xff, 0x22]), aesKey), wrapped);
    });

    it('for an unusable private key', () => {
      open(sealed.ciphertext, sealed.wrappedKey, 'not a PEM');
    });
  });
});

describe('openAesGcm', () => {
  const key = randomBytes(32);

  it('rejects a ciphertext made with a 16-byte IV', () => {
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
    const body = Buffer.concat([cipher.update('{"a":1}'), cipher.final()]);
    const crafted = Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
    decryptFailure(() => openAesGcm(crafted, key));
  });

  it('rejects a key that is not 32 bytes', () => {
    decryptFailure(() => openAesGcm(sealAesGcm(Buffer.from('x'), key), key.subarray(0, 16)));
  });

  it('rejects every single-bit change', () => {
    const sealed = Buffer.from(sealAesGcm(Buffer.from('{"SECRET":true}'), key), 'base64');
    fc.assert(
      fc.property(fc.nat({ max: sealed.length - 1 }), fc.integer({ min: 0, max: 7 }), (i, bit) => {
        const copy = Buffer.from(sealed);
        copy[i] = (copy[i] ?? 0) ^ (1 << bit);
        decryptFailure(() => openAesGcm(copy.toString('base64'), key));
      }),
      { numRuns: 200 },
    );
  });
});

// WebCrypto implements RSA-OAEP with MGF1 over the same hash as OAEP by specification, so
// agreeing with it in both directions pins node:crypto's MGF1 to SHA-256.
describe('interoperability with WebCrypto', () => {
  const oaep = { name: 'RSA-OAEP', hash: 'SHA-256' } as const;

  it('WebCrypto unwraps what wrapKey wrapped', async () => {
    const aesKey = randomBytes(32);
    const privateKey = await subtle.importKey('pkcs8', pkcs8Der(alice.privateKeyPem), oaep, false, ['decrypt']);
    const unwrapped = await subtle.decrypt({ name: 'RSA-OAEP' }, privateKey, Buffer.from(wrapKey(aesKey, alice.publicKey), 'base64'));
    expect(Buffer.from(unwrapped)).toEqual(aesKey);
  });

  it('unwrapKey unwraps what WebCrypto wrapped', async () => {
    const aesKey = randomBytes(32);
    const publicKey = await subtle.importKey('spki', Buffer.from(alice.publicKey, 'base64'), oaep, false, ['encrypt']);
    const wrapped = Buffer.from(await subtle.encrypt({ name: 'RSA-OAEP' }, publicKey, aesKey)).toString('base64');
    expect(unwrapKey(wrapped, alice.privateKeyPem)).toEqual(aesKey);
  });

  it('AES-GCM layout agrees in both directions', async () => {
    const raw = randomBytes(32);
    const key = await subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
    const iv = randomBytes(12);
    // WebCrypto returns ciphertext || tag, so IV || that is the contract layout.
    const theirs = Buffer.from(await subtle.encrypt({ name: 'AES-GCM', iv, tagLength: 128 }, key, Buffer.from('{"x":1}')));
    expect(openAesGcm(Buffer.concat([iv, theirs]).toString('base64'), raw).toString()).toBe('{"x":1}');
    const ours = Buffer.from(sealAesGcm(Buffer.from('{"y":2}'), raw), 'base64');
    const opened = await subtle.decrypt({ name: 'AES-GCM', iv: ours.subarray(0, 12), tagLength: 128 }, key, ours.subarray(12));
    expect(Buffer.from(opened).toString()).toBe('{"y":2}');
  });
});

describe('decryptWithKeyring', () => {
  const ring = () => [
    { keyId: keyFingerprint(alice.publicKey), privateKeyPem: alice.privateKeyPem },
    { keyId: keyFingerprint(bob.publicKey), privateKeyPem: bob.privateKeyPem },
  ];

  it('picks the key whose fingerprint matches the item\'s public key', () => {
    const item = { ...encryptJson(SECRET, bob.publicKey), publicKey: bob.publicKey };
    expect(decryptWithKeyring(item, ring())).toEqual({ value: SECRET, keyId: keyFingerprint(bob.publicKey) });
  });

  it('matches on key material, not on the stored keyId label', () => {
    const item = { ...encryptJson(SECRET, bob.publicKey), publicKey: bob.publicKey };
    const labelled = [
      { keyId: 'old', privateKeyPem: 'corrupt' },
      { keyId: 'laptop', privateKeyPem: alice.privateKeyPem },
      { keyId: 'phone', privateKeyPem: bob.privateKeyPem },
    ];
    expect(decryptWithKeyring(item, labelled).keyId).toBe('phone');
  });

  it('tries every key in turn only when the public key is absent', () => {
    const sealed = encryptJson(SECRET, bob.publicKey);
    for (const publicKey of [undefined, null, '']) {
      expect(decryptWithKeyring({ ...sealed, publicKey }, ring()).keyId).toBe(keyFingerprint(bob.publicKey));
    }
  });

  it('does not fall back when the named key fails', () => {
    const item = { ...encryptJson(SECRET, bob.publicKey), publicKey: alice.publicKey };
    decryptFailure(() => decryptWithKeyring(item, ring()));
  });

  it('names the fingerprint when no key matches', () => {
    const item = { ...encryptJson(SECRET, carol.publicKey), publicKey: carol.publicKey };
    const error = decryptFailure(() => decryptWithKeyring(item, ring()));
    expect(error.message).toContain(`no private key matches the item's public key ${keyFingerprint(carol.publicKey)}`);
  });

  it('fails when no key opens an item without a public key', () => {
    const sealed = encryptJson(SECRET, carol.publicKey);
    expect(decryptFailure(() => decryptWithKeyring(sealed, ring())).message).toContain('none of the 2');
    decryptFailure(() => decryptWithKeyring(sealed, []));
  });

  it('fails on an item whose public key is garbage', () => {
    const item = { ...encryptJson(SECRET, bob.publicKey), publicKey: 'garbage!' };
    decryptFailure(() => decryptWithKeyring(item, ring()));
  });
});
