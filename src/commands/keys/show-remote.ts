// `svc keys show-remote`: the public key the service encrypts for, and whether this machine
// holds its private half.
import { clientApplicationApi } from '../../keys/client-application.js';
import { importedKey, listKeys, type LocalKey } from '../../keys/keystore.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { remoteKeyId, remoteKeyJson } from './register.js';
import { SHARE_KEY } from '../../keys/registered.js';
import { shownTime } from '../../io/time.js';

export type ShowRemoteOptions = Record<string, never>;

export interface LocalMatch {
  keyId: string;
  current: boolean;
  /** `keys` for the key store's index, else where the imported key comes from (SVC_PRIVATE_KEY_FILE). */
  origin: string;
}

export async function run(_opts: ShowRemoteOptions, f: Factory): Promise<void> {
  const app = await clientApplicationApi(f);
  const remote = await app.getPublicKey();
  const keyId = remoteKeyId(remote.keyData);
  const keys = await listKeys(f);
  const local = keyId === undefined ? null : await findLocal(f, keys, keyId);

  writeRecord(
    f.io,
    [
      ['key ID', keyId ?? 'unknown (keyData is not an RSA public key)'],
      ['algorithm', remote.algorithm],
      ['uploaded', shownTime(f.io, f.env, remote.uploadedAt)],
      ['local', describeMatch(local)],
    ],
    { ...remoteKeyJson(remote), keyId: keyId ?? null, local },
  );
  const current = keys.find((k) => k.current);
  // Held elsewhere, the registered key is a colleague's: uploading ours would take it from them.
  if (local === null)
    note(f.io, `this machine does not hold the registered key's private key, so what is encrypted for it cannot be read here; copy it with ${SHARE_KEY}; \`svc keys upload\` would replace it, and the machine holding it could no longer read new requests`);
  else if (current && local.keyId !== current.keyId)
    note(f.io, `the current local key ${current.keyId} is not the registered one; upload it with \`svc keys upload\``);
}

async function findLocal(f: Factory, keys: readonly LocalKey[], keyId: string): Promise<LocalMatch | null> {
  const indexed = keys.find((k) => k.keyId === keyId);
  if (indexed) return { keyId, current: indexed.current, origin: 'keys' };
  const imported = await importedKey(f);
  return imported?.keyId === keyId ? { keyId, current: false, origin: imported.origin } : null;
}

function describeMatch(local: LocalMatch | null): string {
  if (!local) return 'no local key matches: data encrypted for it cannot be decrypted here';
  if (local.origin !== 'keys') return `matches the key of ${local.origin}`;
  return local.current ? 'matches the current local key' : 'matches an older local key (not the current one)';
}
