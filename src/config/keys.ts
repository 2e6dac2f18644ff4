// The keys `svc config` reads and writes (docs/interface-decisions.md#settings-precedence), mapped to the profile's stored fields.
import { UsageError } from '../errors.js';
import { checkDatabaseUrl, refuseStoredPassword } from '../store/database-url.js';
import { validateBaseUrl } from './base-url.js';

export const CONFIG_KEYS = {
  'base-url': { field: 'baseUrl', describe: 'service address (http:// only for loopback)' },
  'client-id': { field: 'clientId', describe: 'OAuth client ID of the integration' },
  'redirect-uri': { field: 'redirectUri', describe: 'registered loopback redirect URI for `auth login`' },
  grant: { field: 'grant', describe: 'Grant used when none is given' },
  scopes: { field: 'scopes', describe: 'space-separated scopes requested at login' },
  'database-url': { field: 'databaseUrl', describe: 'postgres:// URL of a shared ledger and webhook journal (team); password in PGPASSWORD or ~/.pgpass' },
} as const;

export type ConfigKey = keyof typeof CONFIG_KEYS;
export type ProfileField = (typeof CONFIG_KEYS)[ConfigKey]['field'];

export function parseConfigKey(key: string): ConfigKey {
  if (Object.hasOwn(CONFIG_KEYS, key)) return key as ConfigKey;
  throw new UsageError(`unknown config key "${key}"`, { hint: `keys: ${Object.keys(CONFIG_KEYS).join(', ')}` });
}

/** Checks a value before it is stored, so a bad value fails at `set`, not at the next command. */
export function validateConfigValue(key: ConfigKey, value: string): string {
  if (key === 'base-url') return validateBaseUrl(value, 'base-url');
  if (key === 'redirect-uri') {
    const url = validateBaseUrl(value, 'redirect-uri');
    return url;
  }
  if (key === 'database-url') {
    return refuseStoredPassword(checkDatabaseUrl(value, 'database-url'), 'database-url');
  }
  if (value.trim() === '') throw new UsageError(`config key "${key}" needs a non-empty value`);
  return value;
}
