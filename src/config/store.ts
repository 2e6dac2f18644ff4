// The non-secret configuration file (config.json under the config dir): profiles and their
// settings. Secrets never go here: they live in the secret store.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../errors.js';
import type { AuthorizationFile, AuthorizationRow } from '../store/authorization-file.js';

type AuthorizationModule = typeof import('../store/authorization-file.js');

const CONFIG_FILE = 'config.json';
const AUTHORIZATIONS_FILE = 'authorizations.db';

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

/** What a profile's logins keep: Grants, and code-flow companies (parsed by src/auth/profile.ts). */
export interface StoredAuthorizations {
  grants: GrantRecord[];
  companies: Record<string, unknown>[];
}

/** One change of a profile's authorizations, by ID. */
export interface AuthorizationChange {
  /** Every Grant and company of the profile removed first. */
  clear?: boolean;
  /** Removed before `put…`: one removed and put again goes last. */
  dropGrants?: readonly string[];
  dropCompanies?: readonly string[];
  /** Added last, or changed where they stand. */
  putGrants?: readonly GrantRecord[];
  putCompanies?: readonly (Record<string, unknown> & { merchant_id: string })[];
  /** The profile's default afterwards: a value sets it, null removes it, undefined leaves it. */
  grant?: string | null;
}

export interface ConfigStore {
  readonly path: string;
  profileNames(): string[];
  profile(name: string): ProfileConfig;
  /** Read-modify-write under the config file's OS lock: parallel processes lose no change. */
  updateProfile(name: string, change: (p: ProfileConfig) => ProfileConfig): Promise<void>;
  /** The profile's Grants and companies, in the order their logins kept them; the same arrays while nothing changed. */
  authorizations(name: string): StoredAuthorizations;
  /** Changes them row by row (never rewriting the rest) under the config file's lock, with the default. */
  updateAuthorizations(name: string, change: (current: StoredAuthorizations, p: ProfileConfig) => AuthorizationChange): Promise<void>;
}

const NONE: StoredAuthorizations = Object.freeze({ grants: [], companies: [] }) as StoredAuthorizations;

/** What config.json itself holds of a profile's authorizations (an older svc kept them there). */
function inConfig(p: ProfileConfig | undefined): StoredAuthorizations {
  const grants = Array.isArray(p?.grants) ? p.grants : undefined;
  const companies = Array.isArray(p?.companies) ? p.companies : undefined;
  return grants === undefined && companies === undefined ? NONE : { grants: grants ?? [], companies: companies ?? [] };
}

function rowsOf(a: StoredAuthorizations): AuthorizationRow[] {
  return [
    ...a.grants.flatMap((g) => (typeof g?.grant_id === 'string' ? [{ kind: 'grant' as const, id: g.grant_id, record: JSON.stringify(g) }] : [])),
    ...a.companies.flatMap((c) => (typeof c?.merchant_id === 'string' ? [{ kind: 'company' as const, id: c.merchant_id, record: JSON.stringify(c) }] : [])),
  ];
}

function parseRows(rows: readonly AuthorizationRow[]): StoredAuthorizations {
  const out: StoredAuthorizations = { grants: [], companies: [] };
  for (const r of rows) {
    let record: unknown;
    try {
      record = JSON.parse(r.record);
    } catch {
      continue;
    }
    if (r.kind === 'grant') out.grants.push(record as GrantRecord);
    else out.companies.push(record as Record<string, unknown>);
  }
  return out;
}

/** `change` applied to arrays (the in-memory store's way; the file store changes rows). */
function applied(current: StoredAuthorizations, c: AuthorizationChange): StoredAuthorizations {
  const put = <T>(list: T[], id: (x: T) => string, drop: readonly string[] | undefined, puts: readonly T[] | undefined): T[] => {
    const dropped = new Set(drop ?? []);
    const next = c.clear ? [] : list.filter((x) => !dropped.has(id(x)));
    const at = new Map(next.map((x, i) => [id(x), i]));
    for (const x of puts ?? []) {
      const i = at.get(id(x));
      if (i === undefined) at.set(id(x), next.push(x) - 1);
      else next[i] = x;
    }
    return next;
  };
  return {
    grants: put(current.grants, (g) => g.grant_id, c.dropGrants, c.putGrants as GrantRecord[] | undefined),
    companies: put(current.companies, (x) => String(x.merchant_id), c.dropCompanies, c.putCompanies as Record<string, unknown>[] | undefined),
  };
}

function withDefault(p: ProfileConfig, grant: string | null | undefined): ProfileConfig {
  if (grant === undefined) return p;
  const next = { ...p };
  if (grant === null) delete next.grant;
  else next.grant = grant;
  return next;
}

/**
 * `<configDir>/config.json`, the file conf used to keep (same place, same JSON), read and
 * written with plain fs: conf pulled ajv in at every start (26 ms of each command,
 * docs/benchmarks.md#start-up) for a schema this file never had. Every read takes the file as it is now,
 * so a change by another process is seen; a write replaces the file whole (a private
 * temporary file, fsync'd, renamed over it), so a crash leaves the old file or the new one.
 */
export async function openConfigStore(configDir: string): Promise<ConfigStore> {
  // The Grants file's code is loaded only where there is such a file (or to write one): a
  // command on a machine without a login's rows does not pay for it at start-up.
  const authorizationsPath = join(configDir, AUTHORIZATIONS_FILE);
  if (authorizationModule === undefined && existsSync(authorizationsPath)) authorizationModule = await import('../store/authorization-file.js');
  return configStore(configDir, authorizationsPath);
}

// Loaded once per process, for every store of it (the demo opens two over one directory).
let authorizationModule: AuthorizationModule | undefined;

function configStore(configDir: string, authorizationsPath: string): ConfigStore {
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
  const setProfile = (data: ConfigShape, name: string, next: ProfileConfig) => {
    const profiles = { ...data.profiles };
    for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
    Object.defineProperty(profiles, name, { value: next, enumerable: true, writable: true, configurable: true });
    write({ ...data, profiles });
  };
  // The Grants file, opened on first need: a profile that never had a login's rows there
  // reads config.json alone, without loading SQLite. (A file first made by another process
  // while this one runs is seen by this one's next write, or its next run.)
  let authorizationFile: AuthorizationFile | undefined;
  const authorizationsFile = (create: boolean): AuthorizationFile | undefined => {
    if (authorizationFile === undefined && authorizationModule !== undefined && (create || existsSync(authorizationsPath))) authorizationFile = authorizationModule.openAuthorizationFile(authorizationsPath);
    return authorizationFile;
  };
  // A profile's rows as last read, by the file's data version (which moves with another
  // process's commit) and this process's own writes: a run over thousands of Grants reads
  // them once per Grant.
  let ownWrites = 0;
  const readRows = new Map<string, { version: string; data: StoredAuthorizations }>();
  const authorizations = (name: string): StoredAuthorizations => {
    const file = authorizationsFile(false);
    if (file === undefined) return inConfig(own(read().profiles, name));
    const version = `${file.version()}:${ownWrites}`;
    const cached = readRows.get(name);
    if (cached?.version === version) return cached.data;
    const rows = file.rows(name);
    const data = rows === undefined ? inConfig(own(read().profiles, name)) : parseRows(rows);
    readRows.set(name, { version, data });
    return data;
  };
  return {
    path,
    profileNames: () => Object.keys(read().profiles),
    profile: (name) => ({ ...(own(read().profiles, name) ?? {}) }),
    async updateProfile(name, change) {
      // Loaded only to write: reading the configuration needs no lock and no libsql.
      const { withLock } = await import('../store/lock.js');
      await withLock(`${path}.lock`, async () => {
        const data = read();
        setProfile(data, name, change({ ...(own(data.profiles, name) ?? {}) }));
      });
    },
    authorizations,
    async updateAuthorizations(name, change) {
      const { withLock } = await import('../store/lock.js');
      authorizationModule ??= await import('../store/authorization-file.js');
      await withLock(`${path}.lock`, async () => {
        const data = read();
        const p = { ...(own(data.profiles, name) ?? {}) };
        const c = change(authorizations(name), p);
        const file = authorizationsFile(true)!;
        const legacy = inConfig(p);
        const drop = [...(c.dropGrants ?? []).map((id) => ({ kind: 'grant' as const, id })), ...(c.dropCompanies ?? []).map((id) => ({ kind: 'company' as const, id }))];
        const put = rowsOf({ grants: [...(c.putGrants ?? [])], companies: [...(c.putCompanies ?? [])] });
        file.write(name, () => rowsOf(legacy), { clear: c.clear, drop, put });
        ownWrites++;
        // config.json is written only when its default changes, or once to hand over what an older svc kept in it.
        const handedOver = legacy !== NONE;
        const next = withDefault(p, c.grant);
        if (handedOver || next.grant !== p.grant) setProfile(data, name, { ...next, grants: undefined, companies: undefined });
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
    authorizations: (name) => inConfig(profiles[name]),
    async updateAuthorizations(name, change) {
      const p = { ...(profiles[name] ?? {}) };
      const c = change(inConfig(p), p);
      const { grants, companies } = applied(inConfig(p), c);
      const next: ProfileConfig = { ...withDefault(p, c.grant), grants: grants.length > 0 ? grants : undefined, companies: companies.length > 0 ? companies : undefined };
      for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
      profiles[name] = next;
    },
  };
}
