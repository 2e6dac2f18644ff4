// Picks the secret backend (docs/interface-decisions.md#credentials-from-the-environment: SVC_SECRET_STORE, default the probed OS keychain, never
// a silent plain-text fallback), scopes its keys to the profile and lays the environment's
// credentials over it. One exception to the opt-in: the `local` profile talks to the
// embedded sandbox, whose secrets are sandbox data, so on a machine without a keychain (SSH,
// a container) it keeps them in the private file by itself and says so once.
import { DEFAULT_PROFILE } from '../config/defaults.js';
import type { Paths } from '../config/paths.js';
import { SecretStoreError, UsageError } from '../errors.js';
import { note, type IOStreams } from '../io/streams.js';
import { withEnvSecrets } from './env.js';
import { fileSecretStore, secretsFilePath } from './file.js';
import { openKeychainStore, type KeyringModule } from './keychain.js';
import { getSecrets, memorySecretStore, setSecrets, type SecretStore } from './store.js';

export interface OpenSecretStoreOptions {
  env: Readonly<Record<string, string | undefined>>;
  paths: Paths;
  io: IOStreams;
  profile: string;
  /** Tests inject a fake @napi-rs/keyring. */
  loadKeyring?: () => Promise<KeyringModule>;
}

export type StoredBackend = 'keychain' | 'file';

/** The backend SVC_SECRET_STORE asks for; unset or empty means the keychain. */
export function chooseSecretBackend(env: Readonly<Record<string, string | undefined>>): StoredBackend {
  const value = env.SVC_SECRET_STORE;
  if (value === undefined || value === '' || value === 'keychain') return 'keychain';
  if (value === 'file') return 'file';
  throw new UsageError(`SVC_SECRET_STORE: "${value}" is not a secret store`, {
    hint: 'use SVC_SECRET_STORE=keychain (the OS keychain, the default) or SVC_SECRET_STORE=file',
  });
}

/**
 * CI's case (issue 13): credentials in the environment and no SVC_SECRET_STORE. Such a run
 * never touches the keychain (a runner has no Secret Service, and a locked one would hang);
 * what it would store lives for the command only.
 */
export function credentialsFromEnvironment(env: Readonly<Record<string, string | undefined>>): boolean {
  const set = (name: string) => (env[name] ?? '') !== '';
  if (set('SVC_SECRET_STORE')) return false;
  return set('SVC_API_KEY') || set('SVC_TOKEN') || (set('SVC_CLIENT_ID') && set('SVC_CLIENT_SECRET'));
}

export async function openSecretStore(opts: OpenSecretStoreOptions): Promise<SecretStore> {
  if (credentialsFromEnvironment(opts.env)) return withEnvSecrets(environmentOnlyStore(opts.io), opts.env);
  const chosen = chooseSecretBackend(opts.env);
  const explicit = (opts.env.SVC_SECRET_STORE ?? '') !== '';
  const backend =
    chosen === 'file'
      ? fileSecretStore(opts.paths.configDir, opts.io)
      : await openKeychainStore({
          filePath: secretsFilePath(opts.paths.configDir),
          ...(opts.loadKeyring ? { load: opts.loadKeyring } : {}),
        }).catch((error: unknown) => {
          if (explicit || opts.profile !== DEFAULT_PROFILE || !(error instanceof SecretStoreError)) throw error;
          return sandboxFileStore(opts, error);
        });
  return withEnvSecrets(scopedToProfile(backend, opts.profile), opts.env);
}

/**
 * The local profile's store on a machine without a keychain: the private file, with one
 * note when the profile's first secret lands there instead of a warning on every command.
 */
function sandboxFileStore(opts: OpenSecretStoreOptions, unusable: SecretStoreError): SecretStore {
  const path = secretsFilePath(opts.paths.configDir);
  const reason = unusable.message.replace(/^no usable OS keychain \((.*)\)$/, '$1');
  return fileSecretStore(opts.paths.configDir, opts.io, {
    firstOfPrefix: `${opts.profile}/`,
    note: `note: no usable OS keychain here (${reason}), so the ${opts.profile} profile keeps its sandbox secrets in ${path}, readable by you only; other profiles need a keychain or SVC_SECRET_STORE=file`,
    describe: `private file ${path} (the ${opts.profile} profile's sandbox secrets: no usable OS keychain)`,
  });
}

/** Holds for this command only; says once, when a token would have been cached, that it is not. */
function environmentOnlyStore(io: IOStreams): SecretStore {
  const memory = memorySecretStore({}, 'none: credentials from the environment, nothing stored (SVC_SECRET_STORE=file or keychain to store)');
  let told = false;
  return {
    ...memory,
    // Nothing outlives the command: a secret shown once (a webhook's) must be handed out.
    backend: 'env',
    async set(key, value) {
      if (!told && key.startsWith('token/')) {
        told = true;
        note(io, 'note: credentials come from the environment and no secret store is used, so tokens are not cached between commands (set SVC_SECRET_STORE=file or keychain to cache them)');
      }
      await memory.set(key, value);
    },
  };
}

/** Keys become `<profile>/<key>`, so profiles never see each other's secrets. */
export function scopedToProfile(store: SecretStore, profile: string): SecretStore {
  const scoped = (key: string) => `${profile}/${key}`;
  return {
    backend: store.backend,
    get: (key) => store.get(scoped(key)),
    getMany: (keys) => getSecrets(store, keys.map(scoped)),
    set: (key, value) => store.set(scoped(key), value),
    setMany: (entries) => setSecrets(store, entries.map(([key, value]) => [scoped(key), value] as const)),
    delete: (key) => store.delete(scoped(key)),
    describe: () => store.describe(),
  };
}
