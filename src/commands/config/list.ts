import { CONFIG_KEYS, type ConfigKey } from '../../config/keys.js';
import type { Setting, Settings } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { writeList } from '../../io/output.js';

export type ListOptions = Record<string, never>;

const SETTING_OF: Record<ConfigKey, keyof Settings> = {
  'base-url': 'baseUrl',
  'client-id': 'clientId',
  'redirect-uri': 'redirectUri',
  grant: 'grant',
  scopes: 'scopes',
};

export async function run(_opts: ListOptions, f: Factory): Promise<void> {
  const settings = await f.settings();
  const rows = (Object.keys(CONFIG_KEYS) as ConfigKey[]).map((key) => {
    const s = settings[SETTING_OF[key]] as Setting | undefined;
    return { key, value: s?.value ?? null, source: s?.source ?? null };
  });
  await writeList(
    f.io,
    rows,
    [
      { header: 'KEY', value: (r) => r.key },
      { header: 'VALUE', value: (r) => r.value ?? '' },
      { header: 'SOURCE', value: (r) => r.source ?? '' },
    ],
    { profile: settings.profile.value, settings: rows },
  );
}

export { SETTING_OF };
