// The narrow interface every secret goes through (workers-sdk's credential-store
// interface): keys are names such as "client-secret" scoped by profile; values never leave
// this interface except to the code that uses them.

/** `env`: credentials from the environment and no store, nothing kept beyond the command. */
export type SecretBackend = 'keychain' | 'file' | 'env' | 'memory';

export interface SecretStore {
  readonly backend: SecretBackend;
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  /** Several at once, in one write where the backend can (the file: one lock, one rewrite); see setSecrets. */
  setMany?(entries: readonly (readonly [string, string])[]): Promise<void>;
  /**
   * Several at once, in one read where the backend can (the file: parsed once). A listener
   * loading 10,000 subscription secrets read the whole file once per secret, all at once.
   */
  getMany?(keys: readonly string[]): Promise<(string | null)[]>;
  delete(key: string): Promise<boolean>;
  /** Where values are kept, for `svc auth status` (never the values). */
  describe(): string;
}

/** Stores every entry: in one write where the store can, else one after another. */
export async function setSecrets(store: SecretStore, entries: readonly (readonly [string, string])[]): Promise<void> {
  if (store.setMany) return store.setMany(entries);
  for (const [key, value] of entries) await store.set(key, value);
}

/** Reads every entry: in one read where the store can, else one after another (never all at once). */
export async function getSecrets(store: SecretStore, keys: readonly string[]): Promise<(string | null)[]> {
  if (store.getMany) return store.getMany(keys);
  const values: (string | null)[] = [];
  for (const key of keys) values.push(await store.get(key));
  return values;
}

export function memorySecretStore(
  initial: Record<string, string> = {},
  label = 'in memory (tests)',
): SecretStore & { dump(): Record<string, string> } {
  const values = new Map(Object.entries(initial));
  return {
    backend: 'memory',
    get: async (key) => values.get(key) ?? null,
    set: async (key, value) => {
      values.set(key, value);
    },
    delete: async (key) => values.delete(key),
    describe: () => label,
    dump: () => Object.fromEntries(values),
  };
}
