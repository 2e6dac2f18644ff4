// `svc keys list`: the index only; private keys never leave the key store.
import { importedKey, listKeys } from '../../keys/keystore.js';
import { howToGetAKey } from '../../keys/registered.js';
import type { Factory } from '../../factory.js';
import { writeList } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { shownTime } from '../../io/time.js';

export type ListOptions = Record<string, never>;

export async function run(_opts: ListOptions, f: Factory): Promise<void> {
  const keys = await listKeys(f);
  const imported = await importedKey(f);
  if (keys.length === 0 && !f.io.json) note(f.io, imported ? 'no local key pairs yet' : `no local key pairs yet: ${await howToGetAKey(f)}`);
  else
    await writeList(f.io, keys, [
      { header: 'KEY ID', value: (k) => k.keyId },
      // A key made on another machine was not created here: when it came is what is known.
      { header: 'CREATED', value: (k) => (k.importedAt === undefined ? shownTime(f.io, f.env, k.createdAt) : `imported ${shownTime(f.io, f.env, k.importedAt)}`), whole: true },
      { header: 'UPLOADED', value: (k) => (k.uploadedAt === undefined ? '-' : shownTime(f.io, f.env, k.uploadedAt)), whole: true },
      { header: 'CURRENT', value: (k) => (k.current ? 'yes' : 'no') },
    ]);
  if (imported && !keys.some((k) => k.keyId === imported.keyId))
    note(f.io, `${imported.origin} provides key ${imported.keyId} as well`);
}
