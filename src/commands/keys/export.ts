// `svc keys export [KEY_ID] --file PATH`: a private key for a colleague's machine (PKCS#8 PEM,
// written 0600, never over a file), so that a team shares the one key the service encrypts
// for (docs/teams.md). Standard output only when asked (`--file -`) and never a terminal.
import { importedKey, listKeys, privateKeyToExport } from '../../keys/keystore.js';
import { writeKeyFile } from '../../keys/key-file.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { KEY_IDS } from '../../ids/kinds.js';
import { matchPrefix } from '../../ids/prefix.js';
import { writeRecord } from '../../io/output.js';
import { note } from '../../io/streams.js';

export interface ExportOptions {
  keyId: string | undefined;
  /** A path, or `-` for standard output; undefined: not given. */
  file: string | undefined;
}

export async function run(opts: ExportOptions, f: Factory): Promise<void> {
  if (opts.file === undefined)
    throw new UsageError('svc keys export needs --file PATH: a private key is written to a file of its own, never to the screen', { hint: 'svc keys export --file key.pem' });
  if (opts.file === '-' && (f.io.stdoutIsTTY || f.io.json))
    throw new UsageError(f.io.json ? '--file - writes the key itself to standard output, where --json writes its result' : '--file - would show the private key on the terminal (and keep it in its scrollback)', {
      hint: 'write it to a file (`--file key.pem`), or pipe it: `svc keys export --file - | ssh colleague svc keys import --file -`',
    });
  const keyId = opts.keyId === undefined ? undefined : matchPrefix(opts.keyId, [...(await listKeys(f)).map((k) => k.keyId), ...[await importedKey(f)].flatMap((k) => (k ? [k.keyId] : []))], KEY_IDS);
  const key = await privateKeyToExport(f, keyId);
  if (opts.file === '-') {
    f.io.stdout.write(key.privateKeyPem);
    note(f.io, `wrote the private key of ${key.keyId} to standard output`);
    return;
  }
  await writeKeyFile(opts.file, key.privateKeyPem);
  writeRecord(f.io, [['key ID', key.keyId], ['file', opts.file]], { keyId: key.keyId, file: opts.file });
  note(
    f.io,
    `${opts.file} (0600) holds the private key of ${key.keyId}: whoever has it can read what is encrypted for that key. ` +
      `Carry it to the colleague's machine by a private way, run \`svc keys import --file ${opts.file}\` there, then delete both copies of the file`,
  );
}
