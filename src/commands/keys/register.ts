// Uploading a local key, shared by `keys upload`, `keys generate --upload` and `keys rotate`.
import type { ClientApplicationApi } from '../../keys/client-application.js';
import type { ClientApplicationPublicKey } from '../../contract/oauth.js';
import { keyFingerprint } from '../../crypto/keys.js';
import { generateAndStore, markUploaded, type LocalKey } from '../../keys/keystore.js';
import { SvcError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { note } from '../../io/streams.js';
import { shownTime } from '../../io/time.js';

/** docs/interface-decisions.md#key-fingerprints fingerprint of the service's `keyData`; undefined when it is not an RSA SPKI. */
export function remoteKeyId(keyData: string): string | undefined {
  try {
    return keyFingerprint(keyData);
  } catch {
    return undefined;
  }
}

/**
 * The service's key as `--json` prints it: its members as they are (`keyData` among them), and
 * the key again as `publicKey`, the name `keys list`, `generate` and `rotate` give it, so that
 * a script joins them on one name (docs/interface-decisions.md#json-output).
 */
export function remoteKeyJson(remote: ClientApplicationPublicKey): ClientApplicationPublicKey & { publicKey: string } {
  return { ...remote, publicKey: remote.keyData };
}

/** Uploads a public key and checks that the service now holds that very key. */
export async function uploadChecked(
  app: ClientApplicationApi,
  key: { keyId: string; publicKey: string },
): Promise<ClientApplicationPublicKey> {
  const remote = await app.uploadPublicKey(key.publicKey);
  // A service that re-encodes the key differently is tolerated; one that holds another key is not.
  const held = remoteKeyId(remote.keyData);
  if (held !== undefined && held !== key.keyId) {
    throw new SvcError(`the service answered the upload of ${key.keyId} with another key (${held})`, {
      hint: 'see what the service holds with `svc keys show-remote`',
    });
  }
  return remote;
}

export async function registerKey(
  f: Factory,
  app: ClientApplicationApi,
  key: LocalKey,
): Promise<{ key: LocalKey; remote: ClientApplicationPublicKey }> {
  const remote = await uploadChecked(app, key);
  return { key: await markUploaded(f, key.keyId, remote.uploadedAt), remote };
}

export async function generateAndRegister(
  f: Factory,
  app: ClientApplicationApi,
): Promise<{ key: LocalKey; remote: ClientApplicationPublicKey }> {
  const key = await generateAndStore(f);
  try {
    return await registerKey(f, app, key);
  } catch (error) {
    note(f.io, `the new key ${key.keyId} is stored and current but not uploaded; retry with \`svc keys upload ${key.keyId}\``);
    throw error;
  }
}

/** "key  value" lines of a local key for people (times local on a terminal); `--json` prints the key itself. */
export function keyFields(f: Factory, key: LocalKey): [string, string][] {
  return [
    ['key ID', key.keyId],
    ['public key', key.publicKey],
    key.importedAt === undefined ? ['created', shownTime(f.io, f.env, key.createdAt)] : ['imported', shownTime(f.io, f.env, key.importedAt)],
    ['uploaded', key.uploadedAt === undefined ? 'not yet' : shownTime(f.io, f.env, key.uploadedAt)],
  ];
}
