// The narrow interface every secret goes through (workers-sdk's credential-store
// interface): keys are names such as "client-secret" scoped by profile; values never leave
// this interface except to the code that uses them.

/** `env`: credentials from the environment and no store, nothing kept beyond the command. */
export type SecretBackend = 'keychain' | 'file' | 'env' | 'memory';

export interface SecretStore {
  readonly backend: SecretBackend;
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Where values are kept, for `svc auth status` (never the values). */
  describe(): string;
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
