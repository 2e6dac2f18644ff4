// A private key on its way between two machines of a team (`svc keys export` → `svc keys
// import`): written owner-only and never over an existing file, read with a bound.
import { open, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { SvcError, UsageError } from '../errors.js';
import { readBounded, SMALL_BYTES } from '../io/bounded-read.js';
import { fsErrorCode } from '../store/private-file.js';

/** Creates `path` 0600 with the PEM; an existing file is refused, never replaced. */
export async function writeKeyFile(path: string, pem: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (error) {
    if (fsErrorCode(error) === 'EEXIST')
      throw new UsageError(`--file ${path} exists: svc keys export never overwrites a file`, { hint: 'name a new file, or remove that one first' });
    throw new SvcError(`cannot create --file ${path} (${fsErrorCode(error)})`, { cause: error });
  }
  try {
    await handle.writeFile(pem, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(path, { force: true });
    throw new SvcError(`cannot write --file ${path} (${fsErrorCode(error)}); it was removed`, { cause: error });
  }
  await handle.close();
}

/** The PEM of `--file PATH` (`-`: standard input), at most SMALL_BYTES. */
export async function readKeyFile(path: string, stdin: Readable): Promise<string> {
  try {
    return (await readBounded(path, stdin, `--file ${path}`, { bytes: SMALL_BYTES, why: 'a PKCS#8 PEM key is a few KiB' })).toString('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--file: cannot read "${path}" (${fsErrorCode(error)})`, { hint: 'name the PEM file `svc keys export --file` wrote', cause: error });
  }
}
