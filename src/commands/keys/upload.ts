// `svc keys upload [KEY_ID]`: registers a local public key (default: the current one) as
// the key the service encrypts for.
import { clientApplicationApi } from '../../keys/client-application.js';
import { howToGetAKey, confirmReplacement } from '../../keys/registered.js';
import { importedKey, listKeys, markUploaded, unknownKey, type ImportedKey, type LocalKey } from '../../keys/keystore.js';
import { NotFoundError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { KEY_IDS } from '../../ids/kinds.js';
import { matchPrefix } from '../../ids/prefix.js';
import { writeRecord } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { remoteKeyJson, uploadChecked } from './register.js';
import { shownTime } from '../../io/time.js';

export interface UploadOptions {
  keyId: string | undefined;
  /** --yes: replace a registered key held on another machine without asking. */
  yes: boolean;
}

export async function run(opts: UploadOptions, f: Factory): Promise<void> {
  const key = await keyToUpload(f, opts.keyId);
  const app = await clientApplicationApi(f);
  await confirmReplacement(f, app, { keyId: key.keyId, yes: opts.yes, command: `svc keys upload${opts.keyId === undefined ? '' : ` ${opts.keyId}`}` });
  const remote = await uploadChecked(app, key);
  if ('current' in key) await markUploaded(f, key.keyId, remote.uploadedAt);
  writeRecord(
    f.io,
    [
      ['key ID', key.keyId],
      ['algorithm', remote.algorithm],
      ['uploaded', shownTime(f.io, f.env, remote.uploadedAt)],
    ],
    remoteKeyJson(remote),
  );
  note(f.io, `client application ${app.clientId} now receives data encrypted for ${key.keyId}`);
}

async function keyToUpload(f: Factory, given: string | undefined): Promise<LocalKey | ImportedKey> {
  const keys = await listKeys(f);
  // A CI machine may have no key store index at all, only SVC_PRIVATE_KEY_FILE.
  const imported = await importedKey(f);
  const keyId = given === undefined ? undefined : matchPrefix(given, [...keys.map((k) => k.keyId), ...(imported ? [imported.keyId] : [])], KEY_IDS);
  const indexed = keys.find((k) => (keyId === undefined ? k.current : k.keyId === keyId));
  if (indexed) return indexed;
  if (imported && (keyId === undefined || imported.keyId === keyId)) return imported;
  if (keyId !== undefined) throw unknownKey(keyId);
  throw new NotFoundError('there is no local key pair to upload', { hint: await howToGetAKey(f) });
}
