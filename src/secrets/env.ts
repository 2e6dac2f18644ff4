// Credentials from the environment (docs/interface-decisions.md#credentials-from-the-environment: for CI, taking precedence over stored ones),
// laid over the real store: reads answer from the variable when it is set, writes and
// deletes always reach the store underneath.
import { UsageError } from '../errors.js';
import { readBounded, SMALL_BYTES } from '../io/bounded-read.js';
import { getSecrets, setSecrets, type SecretStore } from './store.js';

export const SECRET_ENV_VARIABLES = {
  'client-secret': 'SVC_CLIENT_SECRET',
  'api-key': 'SVC_API_KEY',
  'webhook-secret': 'SVC_WEBHOOK_SECRET',
  /** Names a PEM file; the key is its content. */
  'private-key': 'SVC_PRIVATE_KEY_FILE',
} as const;

export type EnvSecretKey = keyof typeof SECRET_ENV_VARIABLES;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The variable that overrides `key`, when that variable is set (an empty value counts as
 * unset). `svc auth status` uses it to say which keys come from the environment without
 * reading any value, even when the store itself cannot be opened.
 */
export function envVariableFor(env: Env, key: string): string | undefined {
  if (!Object.hasOwn(SECRET_ENV_VARIABLES, key)) return undefined;
  const name = SECRET_ENV_VARIABLES[key as EnvSecretKey];
  const value = env[name];
  return value !== undefined && value !== '' ? name : undefined;
}

export function withEnvSecrets(store: SecretStore, env: Env): SecretStore {
  async function fromEnv(key: string): Promise<string | undefined> {
    const name = envVariableFor(env, key);
    if (name === undefined) return undefined;
    const value = env[name] as string;
    if (key !== 'private-key') return value;
    try {
      return (await readBounded(value, undefined, `${name} (${value})`, { bytes: SMALL_BYTES, why: 'a PKCS#8 PEM key is a few KiB' })).toString('utf8');
    } catch (error) {
      if (error instanceof UsageError) throw error;
      const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
      throw new UsageError(`${name}: cannot read "${value}" (${code})`, {
        hint: `point ${name} at a PKCS#8 PEM file, or unset it to use the stored key`,
        cause: error,
      });
    }
  }
  return {
    backend: store.backend,
    async get(key) {
      return (await fromEnv(key)) ?? store.get(key);
    },
    async getMany(keys) {
      const stored = await getSecrets(store, keys);
      return Promise.all(keys.map(async (key, i) => (await fromEnv(key)) ?? stored[i] ?? null));
    },
    set: (key, value) => store.set(key, value),
    setMany: (entries) => setSecrets(store, entries),
    delete: (key) => store.delete(key),
    describe: () => store.describe(),
  };
}
