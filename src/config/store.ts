// The non-secret configuration file (conf, under the config dir): profiles and their
// settings. Secrets never go here: they live in the secret store.
import Conf from 'conf';

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
  updateProfile(name: string, change: (p: ProfileConfig) => ProfileConfig): void;
}

export function openConfigStore(configDir: string): ConfigStore {
  const conf = new Conf<ConfigShape>({
    cwd: configDir,
    configName: 'config',
    projectName: 'svc',
    projectSuffix: '',
    defaults: { profiles: {} },
    // conf's own file permission default is 0o666 minus umask; profiles are not secret,
    // but keep the file private to the user anyway.
    configFileMode: 0o600,
  });
  return {
    path: conf.path,
    profileNames: () => Object.keys(conf.get('profiles')),
    profile: (name) => ({ ...(conf.get('profiles')[name] ?? {}) }),
    updateProfile(name, change) {
      const profiles = { ...conf.get('profiles') };
      const next = change({ ...(profiles[name] ?? {}) });
      for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
      profiles[name] = next;
      conf.set('profiles', profiles);
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
    updateProfile(name, change) {
      const next = change({ ...(profiles[name] ?? {}) });
      for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
      profiles[name] = next;
    },
  };
}
