import { CONFIG_KEYS, parseConfigKey, validateConfigValue } from '../../config/keys.js';
import { resolveProfileName } from '../../config/settings.js';
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
  config.updateProfile(profile, (p) => ({ ...p, [CONFIG_KEYS[key].field]: value }));
  if (f.io.json) writeJson(f.io, { profile, key, value });
  else note(f.io, `set ${key} for profile "${profile}"`);
}
