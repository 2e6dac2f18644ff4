// Picks the secret backend (CLI.md: SVC_SECRET_STORE, default the probed OS keychain, never
// a silent plain-text fallback), scopes its keys to the profile and lays the environment's
// credentials over it.
import type { Paths } from '../config/paths.js';
import { UsageError } from '../errors.js';
import type { IOStreams } from '../io/streams.js';
import { withEnvSecrets } from './env.js';
import { fileSecretStore, secretsFilePath } from './file.js';
import { openKeychainStore, type KeyringModule } from './keychain.js';
import type { SecretStore } from './store.js';

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

export async function openSecretStore(opts: OpenSecretStoreOptions): Promise<SecretStore> {
  const backend =
    chooseSecretBackend(opts.env) === 'file'
      ? fileSecretStore(opts.paths.configDir, opts.io)
      : await openKeychainStore({
          filePath: secretsFilePath(opts.paths.configDir),
          ...(opts.loadKeyring ? { load: opts.loadKeyring } : {}),
        });
  return withEnvSecrets(scopedToProfile(backend, opts.profile), opts.env);
}

/** Keys become `<profile>/<key>`, so profiles never see each other's secrets. */
export function scopedToProfile(store: SecretStore, profile: string): SecretStore {
  const scoped = (key: string) => `${profile}/${key}`;
  return {
    backend: store.backend,
    get: (key) => store.get(scoped(key)),
    set: (key, value) => store.set(scoped(key), value),
    delete: (key) => store.delete(scoped(key)),
    describe: () => store.describe(),
  };
}
