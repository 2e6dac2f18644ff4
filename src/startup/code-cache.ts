// V8's compiled code of the bundle's files, kept between runs: one file per bundle file,
// under the XDG cache directory (never beside the bundle, which may be read-only or shared).
//
// Before it uses cached data V8 checks only its own version, its flags and the length of the
// source: data made from another file of the same length, or damaged on disk, would be run.
// So each cache file holds the source it was made from, compared byte for byte, and the data
// twice, the copies compared: a checksum that needs no node:crypto, whose loading alone costs
// about 3% of a start-up. Files are written whole under a temporary name and renamed into
// place, so processes starting together see no cache or a complete one.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, sep } from 'node:path';

const MAGIC = Buffer.from('svc-v8c2');
/** MAGIC, then the lengths of the source and of the data (32-bit, little-endian). */
const HEADER_BYTES = MAGIC.length + 8;
const ENTRY_SUFFIX = '.v8cache';
/** A temporary file this old was left by a process that died while writing it. */
const STALE_TEMP_MS = 10 * 60_000;
/** The directories of other installs and Node versions go when not written to for this long. */
const STALE_DIR_MS = 30 * 24 * 3_600_000;

export interface CodeCache {
  /** The data cached for `file` whose content is `source`; undefined if there is none that fits. */
  read(file: string, source: Buffer): Buffer | undefined;
  /** Keeps `data` for `file` with content `source`. Never throws: the cache is an optimisation. */
  write(file: string, source: Buffer, data: Buffer): void;
}

/**
 * $XDG_CACHE_HOME/svc/code-cache/<V8 version>-<arch>-<hash>/: code compiled by one V8 for
 * one copy of the bundle, with one set of Node options (V8 refuses data made under other V8
 * flags; runs with and without, say, --max-old-space-size would otherwise replace each other's).
 * Undefined when NODE_DISABLE_COMPILE_CACHE is set (the variable that turns off Node's own
 * compile cache).
 */
export function codeCacheDir(env: Readonly<Record<string, string | undefined>>, bundleDir: string): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const base = cacheHome(env);
  if (base === undefined) return undefined;
  const hash = fnv1a([bundleDir, ...process.execArgv, env.NODE_OPTIONS ?? ''].join('\0'));
  return join(base, 'svc', 'code-cache', `${process.versions.v8}-${process.arch}-${hash}`);
}

/** $XDG_CACHE_HOME if absolute (the XDG Base Directory rule), else ~/.cache; none without a home. */
function cacheHome(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return xdg;
  try {
    // node:os only without HOME: loading it is ~0.1 ms of every start.
    const home = env.HOME || process.getBuiltinModule('node:os').homedir();
    return isAbsolute(home) ? join(home, '.cache') : undefined;
  } catch {
    return undefined;
  }
}

/** The cache of the files under `bundleDir`, kept in `dir`. */
export function openCodeCache(dir: string, bundleDir: string): CodeCache {
  // Named after the file's path in the bundle, e.g. chunks+api-X.cjs.v8cache; a file outside
  // it is not cached. (Plain string work: path.relative() costs more at start-up.)
  const prefix = bundleDir + sep;
  const entryOf = (file: string) =>
    file.startsWith(prefix) ? dir + sep + file.slice(prefix.length).replaceAll(sep, '+') + ENTRY_SUFFIX : undefined;
  let pruned = false;
  let unwritable = false;
  return {
    read(file, source) {
      const entry = entryOf(file);
      if (entry === undefined) return undefined;
      let stored: Buffer;
      try {
        stored = readFileSync(entry);
      } catch {
        return undefined;
      }
      if (stored.length < HEADER_BYTES || !stored.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
      const sourceBytes = stored.readUInt32LE(MAGIC.length);
      const dataBytes = stored.readUInt32LE(MAGIC.length + 4);
      if (dataBytes === 0 || stored.length !== HEADER_BYTES + sourceBytes + 2 * dataBytes) return undefined;
      const dataStart = HEADER_BYTES + sourceBytes;
      const data = stored.subarray(dataStart, dataStart + dataBytes);
      const ok = stored.subarray(HEADER_BYTES, dataStart).equals(source) && data.equals(stored.subarray(dataStart + dataBytes));
      return ok ? data : undefined;
    },
    write(file, source, data) {
      const entry = entryOf(file);
      if (unwritable || entry === undefined) return;
      const temp = `${entry}.${process.pid}-${Date.now()}.tmp`;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const lengths = Buffer.alloc(8);
        lengths.writeUInt32LE(source.length, 0);
        lengths.writeUInt32LE(data.length, 4);
        writeFileSync(temp, Buffer.concat([MAGIC, lengths, source, data, data]), { flag: 'wx', mode: 0o600 });
        renameSync(temp, entry);
      } catch {
        // Read-only, full, or not a directory: not tried again in this process.
        unwritable = true;
        try {
          rmSync(temp, { force: true });
        } catch {
          // There was no directory to write it in.
        }
        return;
      }
      if (!pruned) {
        pruned = true;
        prune(dir, bundleDir);
      }
    },
  };
}

/** 32-bit FNV-1a of a string's UTF-16 units, as 8 hex digits: a short directory name. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * Bounds the cache: entries of files no longer in the bundle (a build names each changed chunk
 * anew), temporary files of writers that died, and the directories of other installs, Node
 * versions and options not written to for a month (a directory in use but not written to that
 * long is made again on its next start). Runs after a write, so not on most starts.
 */
function prune(dir: string, bundleDir: string): void {
  const now = Date.now();
  const olderThan = (path: string, ms: number) => {
    try {
      return now - statSync(path).mtimeMs > ms;
    } catch {
      return false;
    }
  };
  try {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const gone = name.endsWith(ENTRY_SUFFIX) && !existsSync(join(bundleDir, ...name.slice(0, -ENTRY_SUFFIX.length).split('+')));
      if (gone || (name.endsWith('.tmp') && olderThan(path, STALE_TEMP_MS))) rmSync(path, { force: true });
    }
    // Siblings named as codeCacheDir() names them.
    const parent = dirname(dir);
    for (const name of readdirSync(parent)) {
      const path = join(parent, name);
      if (path !== dir && /-[0-9a-f]{8}$/.test(name) && olderThan(path, STALE_DIR_MS)) rmSync(path, { recursive: true, force: true });
    }
  } catch {
    // Another process pruning at the same time, or a directory that went away: harmless.
  }
}
