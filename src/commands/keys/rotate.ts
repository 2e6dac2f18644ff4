// `svc keys rotate`: a new current key, uploaded at once. The previous key stays in the key
// store, because data encrypted for it before the upload is still on its way.
import { clientApplicationApi } from '../../keys/client-application.js';
import { currentKey, requireKeyStore } from '../../keys/keystore.js';
import { confirmReplacement } from '../../keys/registered.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { generateAndRegister } from './register.js';
import { shownTime } from '../../io/time.js';

export interface RotateOptions {
  /** --yes: replace a registered key held on another machine without asking. */
  yes: boolean;
}

export async function run(opts: RotateOptions, f: Factory): Promise<void> {
  await requireKeyStore(f);
  const app = await clientApplicationApi(f);
  // A rotation replaces a key this machine holds; one held elsewhere is a colleague's.
  await confirmReplacement(f, app, { yes: opts.yes, command: 'svc keys rotate' });
  const previous = await currentKey(f);
  const { key } = await generateAndRegister(f, app);
  writeRecord(
    f.io,
    [
      ['previous key ID', previous?.keyId ?? 'none'],
      ['key ID', key.keyId],
      ['uploaded', key.uploadedAt === undefined ? '' : shownTime(f.io, f.env, key.uploadedAt)],
    ],
    { previousKeyId: previous?.keyId ?? null, ...key },
  );
  if (previous) note(f.io, `${previous.keyId} stays in the key store to decrypt data encrypted for it`);
}
