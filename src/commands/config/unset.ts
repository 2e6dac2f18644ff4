import { CONFIG_KEYS, parseConfigKey } from '../../config/keys.js';
import { resolveProfileName } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note } from '../../io/streams.js';

export interface UnsetOptions {
  key: string;
}

export async function run(opts: UnsetOptions, f: Factory): Promise<void> {
  const key = parseConfigKey(opts.key);
  const profile = resolveProfileName(f.globals, f.env).value;
  const config = await f.config();
  const field = CONFIG_KEYS[key].field;
  const had = config.profile(profile)[field] !== undefined;
  await config.updateProfile(profile, (p) => ({ ...p, [field]: undefined }));
  if (f.io.json) writeJson(f.io, { profile, key, removed: had });
  else note(f.io, had ? `unset ${key} for profile "${profile}"` : `${key} was not set for profile "${profile}"`);
}
