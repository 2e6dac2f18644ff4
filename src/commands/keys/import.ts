// `svc keys import --file PATH|-`: a private key exported on another machine of the team
// (`svc keys export`), kept in this machine's secret store as the current key. What the
// service encrypts for does not change; it is asked which key that is, and the import says
// whether it is this one (docs/teams.md#one-decryption-key-for-the-team).
import { importKeyPair, markUploaded } from '../../keys/keystore.js';
import { readKeyFile } from '../../keys/key-file.js';
import { describeRegistration, registrationOf } from '../../keys/registered.js';
import { KeyFormatError } from '../../crypto/keys.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { keyFields } from './register.js';

export interface ImportOptions {
  /** A path, or `-` for standard input; undefined: not given. */
  file: string | undefined;
}

export async function run(opts: ImportOptions, f: Factory): Promise<void> {
  if (opts.file === undefined)
    throw new UsageError('svc keys import needs --file PATH (or --file - for standard input)', { hint: 'svc keys import --file key.pem    # written by `svc keys export --file key.pem` on a machine that holds the key' });
  const pem = await readKeyFile(opts.file, f.io.stdin);
  let imported;
  try {
    imported = await importKeyPair(f, pem);
  } catch (error) {
    if (!(error instanceof KeyFormatError)) throw error;
    throw new UsageError(`--file ${opts.file}: ${error.message}`, { hint: 'name an RSA private key (PKCS#8 PEM), as `svc keys export` writes it', cause: error });
  }
  const { added } = imported;
  let { key } = imported;
  // Read back from the service, never assumed: an exported key is usually the registered one,
  // uploaded from the machine it came from, and then `keys list` shows that upload too.
  const registration = await registrationOf(f, key.keyId);
  if (registration.matches === true && key.uploadedAt !== registration.uploadedAt) key = await markUploaded(f, key.keyId, registration.uploadedAt);
  const [registered, whatToDo] = describeRegistration(f, key.keyId, registration);
  writeRecord(f.io, [...keyFields(f, key).filter(([name]) => name !== 'uploaded'), ['registered', registered]], { ...key, registered: registration });
  note(f.io, added ? `private key stored: ${(await f.secrets()).describe()}` : `${key.keyId} is held here already; nothing changed`);
  if (whatToDo !== undefined) note(f.io, whatToDo);
}
