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
  if (effective?.source === 'env' || effective?.source === 'flag') {
    note(f.io, `note: ${OVERRIDES[key] ?? key} is set, and takes precedence over the profile's ${key} while it is`);
  }
}

/** What overrides a profile's key (docs/interface-decisions.md#settings-precedence: flag > env > profile > built-in). */
const OVERRIDES: Partial<Record<keyof typeof CONFIG_KEYS, string>> = {
  'base-url': 'SVC_BASE_URL (or --base-url)',
  'client-id': 'SVC_CLIENT_ID',
  grant: 'SVC_GRANT_ID',
};
