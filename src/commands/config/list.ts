import { CONFIG_KEYS, type ConfigKey } from '../../config/keys.js';
import { resolveProfileSettings, type ProfileSettings, type Setting } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { redactDatabaseUrl } from '../../store/database-url.js';
import { writeList } from '../../io/output.js';

export type ListOptions = Record<string, never>;

const SETTING_OF: Record<ConfigKey, keyof ProfileSettings> = {
  'base-url': 'baseUrl',
  'client-id': 'clientId',
  'redirect-uri': 'redirectUri',
  grant: 'grant',
  scopes: 'scopes',
  'database-url': 'databaseUrl',
};

/** What `config list` and `get` show of a value: a database URL without its password. */
export function shownValue(key: ConfigKey, value: string): string {
  return key === 'database-url' ? redactDatabaseUrl(value) : value;
}

/**
 * The profile's settings without the factory's demand for a base URL: `svc config` is how a
 * profile that has none is inspected and given one.
 */
export async function profileSettings(f: Factory): Promise<ProfileSettings> {
  return resolveProfileSettings({ flags: f.globals, env: f.env, config: await f.config() });
}

export async function run(_opts: ListOptions, f: Factory): Promise<void> {
  const settings = await profileSettings(f);
  const rows = (Object.keys(CONFIG_KEYS) as ConfigKey[]).map((key) => {
    const s = settings[SETTING_OF[key]] as Setting | undefined;
    return { key, value: s === undefined ? null : shownValue(key, s.value), source: s?.source ?? null };
  });
  await writeList(
    f.io,
    rows,
    [
      { header: 'KEY', value: (r) => r.key },
      // A URL or a list of scopes cut would read as another value: wrapped in its column instead.
      { header: 'VALUE', value: (r) => r.value ?? '', wrap: true },
      { header: 'SOURCE', value: (r) => r.source ?? '' },
    ],
    { profile: settings.profile.value, settings: rows },
  );
}

export { SETTING_OF };
