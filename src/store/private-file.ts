// Files only their owner may read, written whole or not at all: the merchant's own records
// in the state directory (receipts, credit notes, webhook journals and subscriptions, per
// profile) and the opt-in secret file. The profile's directories are config/profile-dir.ts's.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SvcError, UsageError } from '../errors.js';

/** The errno code of a file system failure (ENOENT, EACCES, ...), else its message. */
export function fsErrorCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.message : String(error);
}

/** A name as one path component: never a way out of the directory it is put in. */
export function pathSegment(name: string, what: string): string {
  const segment = encodeURIComponent(name);
  if (segment === '' || segment === '.' || segment === '..') throw new UsageError(`${what} "${name}" cannot name a file`);
  return segment;
}

/** Creates the directory owner-only, and tightens it when it already exists looser. */
export async function privateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, 0o700);
  } catch (error) {
    throw new SvcError(`cannot make ${dir} private (${fsErrorCode(error)})`, { cause: error });
  }
}

/**
 * Writes `dir/name` atomically, creating the directory and the one above it owner-only
 * (the profile directory); returns its path. File system failures are thrown as they are,
 * for the caller to say what was being written.
 */
export async function writePrivateFile(dir: string, name: string, data: string): Promise<string> {
  await privateDir(dirname(dir));
  await privateDir(dir);
  const path = join(dir, name);
  await replacePrivateFile(path, data);
  return path;
}

/**
 * Replaces `path` whole or not at all: a temporary file in the same directory, created 0600
 * (so the content never sits in a readable file), fsync'd, then renamed over it. A failure
 * removes the temporary file and is thrown as it is.
 */
export async function replacePrivateFile(path: string, data: string | Uint8Array): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await (typeof data === 'string' ? handle.writeFile(data, 'utf8') : handle.writeFile(data));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
