// Files only their owner may read, written whole or not at all: the merchant's own records
// in the state directory (receipts, credit notes, webhook journals and subscriptions, per
// profile) and the opt-in secret file. The profile's directories are config/profile-dir.ts's.
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SvcError, UsageError } from '../errors.js';

/** The errno code of a file system failure (ENOENT, EACCES, ...), else its message. */
export function fsErrorCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why svc may not write at `path` (a file, or a directory to be made), read back from the file
 * system after a failure: the highest directory on its way that cannot be written (a
 * read-only mount, EROFS; another user's directory, EACCES), or the file itself. Undefined
 * when everything there can be written: the failure was something else. A usage error (exit
 * 2), as no usable keychain is: a setting answers it, and nothing there is damaged.
 */
export function notWritableError(doing: string, path: string): UsageError | undefined {
  const denied = (at: string): string | undefined => {
    try {
      accessSync(at, constants.W_OK);
      return undefined;
    } catch (error) {
      const code = fsErrorCode(error);
      return code === 'EROFS' || code === 'EACCES' || code === 'EPERM' ? code : undefined;
    }
  };
  let dir = isDirectory(path) ? path : dirname(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const code = denied(dir);
  if (code !== undefined) {
    // The highest directory alike: the state directory itself, when the whole of it is mounted read-only.
    while (dirname(dir) !== dir && denied(dirname(dir)) === code) dir = dirname(dir);
    const how = code === 'EROFS' ? 'is read-only (EROFS)' : `is not writable by this user (${code})`;
    return new UsageError(`cannot ${doing} ${path}: the state directory ${dir} ${how}`, {
      hint:
        code === 'EROFS'
          ? `svc keeps its state there: set SVC_STATE_DIR to a writable directory (under systemd, the unit's StateDirectory=), or mount ${dir} read-write; nothing in it needs moving`
          : `make ${dir} writable by this user (chown or chmod it; svc keeps it 0700), run svc as the user that owns it, or set SVC_STATE_DIR to a directory this user can write; nothing in it needs moving`,
    });
  }
  const fileCode = existsSync(path) && !isDirectory(path) ? denied(path) : undefined;
  if (fileCode === undefined) return undefined;
  return new UsageError(`cannot ${doing} ${path}: the file is not writable by this user (${fileCode})`, {
    hint: `make it writable by this user (chown or chmod 0600 it), or run svc as the user that owns it; nothing in it needs moving`,
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
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
    throw notWritableError('make the directory', dir) ?? new SvcError(`cannot make ${dir} private (${fsErrorCode(error)})`, { cause: error });
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
