import { CONFIG_KEYS, parseConfigKey, validateConfigValue } from '../../config/keys.js';
import { resolveProfileName, resolveProfileSettings } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note } from '../../io/streams.js';

export interface SetOptions {
  key: string;
  value: string;
}

export async function run(opts: SetOptions, f: Factory): Promise<void> {
  const key = parseConfigKey(opts.key);
  const value = validateConfigValue(key, opts.value);
  const profile = resolveProfileName(f.globals, f.env).value;
  const config = await f.config();
  await config.updateProfile(profile, (p) => ({ ...p, [CONFIG_KEYS[key].field]: value }));
  if (f.io.json) writeJson(f.io, { profile, key, value });
  else note(f.io, `set ${key} for profile "${profile}"`);
  // Stored, but not what this shell's commands will use: say so, or the next command surprises.
  const effective = resolveProfileSettings({ flags: f.globals, env: f.env, config })[CONFIG_KEYS[key].field];
  const by = effective === undefined ? undefined : OVERRIDES[key]?.[effective.source as 'env' | 'flag'];
  if (by !== undefined) {
    const said = effective?.source === 'flag' ? `${by} is given, and takes precedence over the ${key} of profile "${profile}" in any command it is given to` : `${by} is set, and takes precedence over the ${key} of profile "${profile}" for as long as it is set`;
    note(f.io, `note: ${said}`);
  }
}

/** What overrides a profile's key, by where it comes from (docs/interface-decisions.md#settings-precedence: flag > env > profile > built-in; src/config/settings.ts). */
const OVERRIDES: Partial<Record<keyof typeof CONFIG_KEYS, { env: string; flag?: string }>> = {
  'base-url': { env: 'SVC_BASE_URL', flag: '--base-url' },
  'client-id': { env: 'SVC_CLIENT_ID' },
  grant: { env: 'SVC_GRANT_ID', flag: '--grant' },
  'database-url': { env: 'SVC_DATABASE_URL' },
};
