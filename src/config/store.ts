// The non-secret configuration file (config.json under the config dir): profiles and their
// settings. Secrets never go here: they live in the secret store.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../errors.js';

const CONFIG_FILE = 'config.json';

export interface GrantRecord {
  grant_id: string;
  grant_version: number;
  issuer_company_id: string;
  company_legal_name: string;
  tax_id: string;
  scopes: string[];
  store_ids: string[];
  store_access_mode: string;
  [key: string]: unknown;
}

export interface ProfileConfig {
  baseUrl?: string;
  clientId?: string;
  redirectUri?: string;
  grant?: string;
  scopes?: string;
  /** postgres:// URL of the shared ledger, never with a password. */
  databaseUrl?: string;
  /** Grant metadata from the last login (not secret). */
  grants?: GrantRecord[];
  /** Companies of a code-flow login: ids, names and expiries, never tokens. */
  companies?: Record<string, unknown>[];
  [key: string]: unknown;
}

interface ConfigShape {
  profiles: Record<string, ProfileConfig>;
}

export interface ConfigStore {
  readonly path: string;
  profileNames(): string[];
  profile(name: string): ProfileConfig;
  /** Read-modify-write under the config file's OS lock: parallel processes lose no change. */
  updateProfile(name: string, change: (p: ProfileConfig) => ProfileConfig): Promise<void>;
}

/**
 * `<configDir>/config.json`, the file conf used to keep (same place, same JSON), read and
 * written with plain fs: conf pulled ajv in at every start (26 ms of each command,
 * docs/benchmarks.md#start-up) for a schema this file never had. Every read takes the file as it is now,
 * so a change by another process is seen; a write replaces the file whole (a private
 * temporary file, fsync'd, renamed over it), so a crash leaves the old file or the new one.
 */
export function openConfigStore(configDir: string): ConfigStore {
  const path = join(configDir, CONFIG_FILE);
  // The file as last parsed, by its identity: a platform's file holds thousands of Grants
  // (about 1 MB), and a run over all of them reads it for each. A write replaces the file (a
  // new inode), so any change, by this process or another, is parsed afresh.
  let parsedAs: { identity: string; data: ConfigShape } | undefined;
  const read = (): ConfigShape => {
    let text: string;
    let identity: string;
    try {
      const st = statSync(path, { bigint: true });
      identity = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
      if (parsedAs?.identity === identity) return parsedAs.data;
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
      throw new SvcError(`cannot read the configuration ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
    }
    const data = parse(text);
    parsedAs = { identity, data };
    return data;
  };
  const parse = (text: string): ConfigShape => {
    let parsed: unknown;
    try {
      parsed = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      throw new SvcError(`the configuration ${path} is not valid JSON`, { hint: 'fix it by hand, or move it away to start afresh (secrets are not in it)', cause: error });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new SvcError(`the configuration ${path} is not a JSON object`, { hint: 'move it away to start afresh (secrets are not in it)' });
    }
    const profiles = (parsed as { profiles?: unknown }).profiles;
    return { ...(parsed as object), profiles: typeof profiles === 'object' && profiles !== null && !Array.isArray(profiles) ? (profiles as ConfigShape['profiles']) : {} };
  };
  const write = (data: ConfigShape) => {
    mkdirSync(configDir, { recursive: true, mode: 0o700 });
    // A unique name ('wx' refuses an existing one); node:crypto is not loaded for it.
    const temp = join(configDir, `.${CONFIG_FILE}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`);
    try {
      const fd = openSync(temp, 'wx', 0o600);
      try {
        writeFileSync(fd, `${JSON.stringify(data, undefined, '\t')}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw new SvcError(`cannot write the configuration ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
    }
  };
  const own = (profiles: ConfigShape['profiles'], name: string): ProfileConfig | undefined =>
    Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  return {
    path,
    profileNames: () => Object.keys(read().profiles),
    profile: (name) => ({ ...(own(read().profiles, name) ?? {}) }),
    async updateProfile(name, change) {
      // Loaded only to write: reading the configuration needs no lock and no libsql.
      const { withLock } = await import('../store/lock.js');
      await withLock(`${path}.lock`, async () => {
        const data = read();
        const profiles = { ...data.profiles };
        const next = change({ ...(own(profiles, name) ?? {}) });
        for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
        Object.defineProperty(profiles, name, { value: next, enumerable: true, writable: true, configurable: true });
        write({ ...data, profiles });
      });
    },
  };
}

/** An in-memory store for unit tests. */
export function memoryConfigStore(initial: Record<string, ProfileConfig> = {}): ConfigStore {
  const profiles: Record<string, ProfileConfig> = structuredClone(initial);
  return {
    path: ':memory:',
    profileNames: () => Object.keys(profiles),
    profile: (name) => ({ ...(profiles[name] ?? {}) }),
    async updateProfile(name, change) {
      const next = change({ ...(profiles[name] ?? {}) });
      for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
      profiles[name] = next;
    },
  };
}
