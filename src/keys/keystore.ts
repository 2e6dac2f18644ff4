// The integration's own RSA key pairs (docs/interface-decisions.md#hybrid-encryption). Every private key ever generated is
// kept: return requests queued before a rotation and webhook retries still arrive encrypted
// for the older public keys. Private keys are the secrets `private-key/<keyId>`; the index
// of them (`keys-index`) is not secret but lives in the same store, so keys and index share
// one backend and one profile scope and cannot drift apart when config or state
// directories change. The index is read, changed and written under an OS lock per profile
// (src/store/lock.ts): parallel `keys generate` runs each add their key, none is lost.
import { createHash, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import * as z from '../contract/zod.js';
import { resolveProfileName } from '../config/settings.js';
import { NotFoundError, SvcError, UsageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { note } from '../io/streams.js';
import { envVariableFor } from '../secrets/env.js';
import type { SecretStore } from '../secrets/store.js';
import { describeHolder, withLock } from '../store/lock.js';
import type { KeyringEntry } from '../crypto/hybrid.js';
import { generateKeyPair, KeyFormatError, keyFingerprint, pkcs8Of, privateKeyFromPem, publicKeyOfPrivate } from '../crypto/keys.js';

const INDEX_SECRET = 'keys-index';
/** The single key CI supplies through SVC_PRIVATE_KEY_FILE; it is never in the index. */
const IMPORTED_KEY_SECRET = 'private-key';

function privateKeySecret(keyId: string): string {
  return `private-key/${keyId}`;
}

// Loose, so that entries written by a newer svc keep their extra fields when this one rewrites them.
const LocalKey = z.looseObject({
  /** docs/interface-decisions.md#key-fingerprints fingerprint of `publicKey`. */
  keyId: z.string().min(1),
  /** Base64 of DER SPKI. */
  publicKey: z.string().min(1),
  /** When it was made here; for a key imported from another machine, when it was imported (its creation there is not known). */
  createdAt: z.string().min(1),
  /** When it was imported (`svc keys import`), for a key made on another machine. */
  importedAt: z.string().min(1).optional(),
  /** The service's timestamp of the last upload of this key. */
  uploadedAt: z.string().min(1).optional(),
  current: z.boolean(),
});
export type LocalKey = z.infer<typeof LocalKey>;

const KeyIndex = z.looseObject({
  version: z.literal(1),
  /** Newest first, so the current key leads. */
  keys: z.array(LocalKey),
});

/** A key outside the index: the `private-key` secret, normally SVC_PRIVATE_KEY_FILE. */
export interface ImportedKey {
  keyId: string;
  publicKey: string;
  /** Where it comes from, for messages: the variable's name, or `private-key`. */
  origin: string;
}

/** Only the profile's name: keys are local, and a profile without a base URL has them too. */
async function profileOf(f: Factory): Promise<string> {
  return resolveProfileName(f.globals, f.env).value;
}

async function readIndex(f: Factory, store: SecretStore): Promise<LocalKey[]> {
  const text = await store.get(INDEX_SECRET);
  if (text === null) return [];
  let parsed: ReturnType<typeof KeyIndex.safeParse> | undefined;
  try {
    parsed = KeyIndex.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (parsed?.success) return parsed.data.keys;
  const profile = await profileOf(f);
  throw new SvcError(`the key index of profile "${profile}" in ${store.describe()} is damaged`, {
    hint: `delete its "${INDEX_SECRET}" entry and run \`svc keys generate\`; older private keys stay in the store as ${privateKeySecret('<keyId>')}`,
  });
}

async function writeIndex(store: SecretStore, keys: readonly LocalKey[]): Promise<void> {
  await store.set(INDEX_SECRET, JSON.stringify({ version: 1, keys }));
}

// One keyring per factory, i.e. per command run: a poll or a webhook backlog decrypts many
// items, and every keychain read may cost a round trip or a permission prompt.
const keyrings = new WeakMap<Factory, Promise<KeyringEntry[]>>();

/** Runs a change of the profile's key index with no other process changing it meanwhile. */
async function indexLocked<T>(f: Factory, work: () => Promise<T>): Promise<T> {
  const profile = createHash('sha256').update(await profileOf(f)).digest('hex').slice(0, 32);
  return withLock(join(f.paths.stateDir, 'locks', `keys-${profile}.lock`), work, {
    onWait: (holder) => note(f.io, `waiting for another svc process changing the key list of this profile (${describeHolder(holder)})`),
  });
}

/** A key of one's own, handed in: what a runner without a secret store can upload and decrypt with. */
export const OWN_KEY = '`SVC_PRIVATE_KEY_FILE=key.pem svc keys upload` (key.pem: an RSA private key, PKCS#8 PEM)';

/**
 * A new key pair needs a store for its private half. With credentials from the environment
 * and no SVC_SECRET_STORE there is none (docs/login-and-secrets.md#secrets): a key made there
 * would be lost with the command, and every return request encrypted for its public key with
 * it. Refused before anything is generated or uploaded, as a webhook secret is.
 */
export async function requireKeyStore(f: Factory): Promise<void> {
  if ((await f.secrets()).backend === 'env') throw noKeyStoreError();
}

function noKeyStoreError(): UsageError {
  return new UsageError('no secret store is used (credentials come from the environment), so the new private key could be kept nowhere: it would be lost when this command ends, and nothing encrypted for its public key could ever be decrypted', {
    hint: `set SVC_SECRET_STORE=file (or keychain) to keep it, or hand in a key of your own: ${OWN_KEY}, e.g. from \`openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out key.pem\``,
  });
}

/** Generates an RSA-2048 pair, stores it and makes it the current key; older keys stay. */
export function generateAndStore(f: Factory): Promise<LocalKey> {
  return indexLocked(f, () => generateLocked(f));
}

async function generateLocked(f: Factory): Promise<LocalKey> {
  const store = await f.secrets();
  if (store.backend === 'env') throw noKeyStoreError();
  // Read first: a damaged index should fail before a key is generated and orphaned.
  const keys = await readIndex(f, store);
  const pair = await generateKeyPair();
  const key: LocalKey = {
    keyId: keyFingerprint(pair.publicKey),
    publicKey: pair.publicKey,
    createdAt: new Date(f.clock.now()).toISOString(),
    current: true,
  };
  // The private key before the index: a failure in between leaves an unlisted secret, never
  // a listed key without its private half.
  await store.set(privateKeySecret(key.keyId), pair.privateKeyPem);
  await writeIndex(store, [key, ...keys.map((k) => ({ ...k, current: false }))]);
  keyrings.delete(f);
  return key;
}

/**
 * Stores a private key brought from another machine (`svc keys export` there) and makes it the
 * current key, as a generated one would be; older keys stay. A key already held is left as it
 * is (`added: false`). The service is not asked: what it encrypts for is unchanged.
 */
export function importKeyPair(f: Factory, privateKeyPem: string): Promise<{ key: LocalKey; added: boolean }> {
  return indexLocked(f, async () => {
    const store = await f.secrets();
    if (store.backend === 'env') throw new UsageError('no secret store is used (credentials come from the environment), so an imported private key could be kept nowhere', {
      hint: 'hand the key in for each command with `SVC_PRIVATE_KEY_FILE=key.pem`, or set SVC_SECRET_STORE=file (or keychain) to keep it',
    });
    const keys = await readIndex(f, store);
    const pem = pkcs8Of(privateKeyPem);
    const keyId = keyFingerprint(privateKeyFromPem(pem));
    const known = keys.find((k) => k.keyId === keyId);
    if (known && (await store.get(privateKeySecret(keyId))) !== null) return { key: known, added: false };
    const now = new Date(f.clock.now()).toISOString();
    const key: LocalKey = known
      ? { ...known, current: true }
      : { keyId, publicKey: publicKeyOfPrivate(pem), createdAt: now, importedAt: now, current: true };
    // The private key before the index, as for a generated key.
    await store.set(privateKeySecret(keyId), pem);
    await writeIndex(store, [key, ...keys.filter((k) => k.keyId !== keyId).map((k) => ({ ...k, current: false }))]);
    keyrings.delete(f);
    return { key, added: true };
  });
}

/**
 * The private half of a key this profile holds, as PKCS#8 PEM, for `svc keys export`: the
 * current key unless one is named; the imported key (SVC_PRIVATE_KEY_FILE) when the index
 * has none.
 */
export async function privateKeyToExport(f: Factory, keyId: string | undefined): Promise<{ keyId: string; privateKeyPem: string }> {
  const store = await f.secrets();
  const keys = await readIndex(f, store);
  const imported = await readImported(f, store);
  const indexed = keys.find((k) => (keyId === undefined ? k.current : k.keyId === keyId));
  if (indexed) {
    const pem = await store.get(privateKeySecret(indexed.keyId));
    if (pem === null) throw new NotFoundError(`the private key of ${indexed.keyId} is missing from ${store.describe()}`, { hint: 'export it from a machine that holds it' });
    return { keyId: indexed.keyId, privateKeyPem: pkcs8Of(pem) };
  }
  if (imported && (keyId === undefined || imported.keyId === keyId)) return { keyId: imported.keyId, privateKeyPem: pkcs8Of(imported.privateKeyPem) };
  if (keyId !== undefined) throw unknownKey(keyId);
  throw new NotFoundError('there is no local key pair to export', { hint: 'see the keys with `svc keys list`' });
}

/** Whether this profile holds the private half of the key `keyId` (indexed with its secret, or imported). */
export async function holdsPrivateKey(f: Factory, keyId: string): Promise<boolean> {
  const store = await f.secrets();
  if ((await readImported(f, store))?.keyId === keyId) return true;
  if (!(await readIndex(f, store)).some((k) => k.keyId === keyId)) return false;
  return (await store.get(privateKeySecret(keyId))) !== null;
}

/** Every key in the index, newest (current) first. Never private keys. */
export async function listKeys(f: Factory): Promise<LocalKey[]> {
  return readIndex(f, await f.secrets());
}

export async function currentKey(f: Factory): Promise<LocalKey | undefined> {
  return (await listKeys(f)).find((k) => k.current);
}

/** Records the service's upload timestamp for a key of the index. */
export function markUploaded(f: Factory, keyId: string, uploadedAt: string): Promise<LocalKey> {
  return indexLocked(f, async () => {
    const store = await f.secrets();
    const keys = await readIndex(f, store);
    const key = keys.find((k) => k.keyId === keyId);
    if (!key) throw unknownKey(keyId);
    key.uploadedAt = uploadedAt;
    await writeIndex(store, keys);
    return key;
  });
}

export function unknownKey(keyId: string): NotFoundError {
  return new NotFoundError(`no local key ${keyId}`, { hint: 'see the local keys with `svc keys list`' });
}

async function readImported(f: Factory, store: SecretStore): Promise<(ImportedKey & KeyringEntry) | undefined> {
  const pem = await store.get(IMPORTED_KEY_SECRET);
  if (pem === null) return undefined;
  const origin = envVariableFor(f.env, IMPORTED_KEY_SECRET) ?? IMPORTED_KEY_SECRET;
  let parsed: KeyObject;
  try {
    parsed = privateKeyFromPem(pem);
  } catch (error) {
    if (!(error instanceof KeyFormatError)) throw error;
    throw new KeyFormatError(`${origin}: ${error.message}`, {
      hint: `point ${origin} at an RSA private key (PKCS#8 PEM), or unset it`,
      cause: error,
    });
  }
  return { keyId: keyFingerprint(parsed), publicKey: publicKeyOfPrivate(pem), origin, privateKeyPem: pem };
}

/** The key of SVC_PRIVATE_KEY_FILE (or a stored `private-key` secret), without its private half. */
export async function importedKey(f: Factory): Promise<ImportedKey | undefined> {
  const imported = await readImported(f, await f.secrets());
  return imported && { keyId: imported.keyId, publicKey: imported.publicKey, origin: imported.origin };
}

/**
 * Every private key this profile can decrypt with, for `decryptWithKeyring`: the imported
 * key first (docs/interface-decisions.md#credentials-from-the-environment: the environment's credentials take precedence), then the index, current
 * first. A listed key whose private half is gone is reported on stderr and left out.
 */
export function loadKeyring(f: Factory): Promise<KeyringEntry[]> {
  const cached = keyrings.get(f);
  if (cached) return cached;
  const loading = readKeyring(f);
  keyrings.set(f, loading);
  loading.catch(() => {
    if (keyrings.get(f) === loading) keyrings.delete(f);
  });
  return loading;
}

/**
 * Reads the keyring from the store again, for a process that outlives key changes made
 * elsewhere (`svc keys rotate` in another terminal while `svc webhook listen` runs); later
 * `loadKeyring` calls of the factory get this one.
 */
export function reloadKeyring(f: Factory): Promise<KeyringEntry[]> {
  keyrings.delete(f);
  return loadKeyring(f);
}

async function readKeyring(f: Factory): Promise<KeyringEntry[]> {
  const store = await f.secrets();
  const keys = await readIndex(f, store);
  const imported = await readImported(f, store);
  const ring: KeyringEntry[] = imported ? [{ keyId: imported.keyId, privateKeyPem: imported.privateKeyPem }] : [];
  for (const key of keys) {
    if (key.keyId === imported?.keyId) continue;
    const pem = await store.get(privateKeySecret(key.keyId));
    if (pem === null) {
      note(f.io, `warning: the private key of ${key.keyId} is missing from ${store.describe()}; data encrypted for it cannot be decrypted`);
      continue;
    }
    ring.push({ keyId: key.keyId, privateKeyPem: pem });
  }
  return ring;
}
