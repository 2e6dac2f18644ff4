// PLACEHOLDER: the secret store is being written (issue 2, part 5).
import type { Paths } from '../config/paths.js';
import type { IOStreams } from '../io/streams.js';
import type { SecretStore } from './store.js';

export interface OpenSecretStoreOptions {
  env: Readonly<Record<string, string | undefined>>;
  paths: Paths;
  io: IOStreams;
  profile: string;
}

export async function openSecretStore(_opts: OpenSecretStoreOptions): Promise<SecretStore> {
  throw new Error('not yet implemented');
}
