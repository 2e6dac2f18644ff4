import { parseConfigKey } from '../../config/keys.js';
import type { Setting } from '../../config/settings.js';
import { NotFoundError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';
import { SETTING_OF, profileSettings, shownValue } from './list.js';

export interface GetOptions {
  key: string;
}

export async function run(opts: GetOptions, f: Factory): Promise<void> {
  const key = parseConfigKey(opts.key);
  const settings = await profileSettings(f);
  const setting = settings[SETTING_OF[key]] as Setting | undefined;
  if (!setting) {
    const profile = settings.profile.source === 'default' ? '' : ` --profile ${settings.profile.value}`;
    throw new NotFoundError(`${key} is not set for profile "${settings.profile.value}"`, {
      hint: `run \`svc config set ${key} VALUE${profile}\``,
    });
  }
  const value = shownValue(key, setting.value);
  if (f.io.json) writeJson(f.io, { key, value, source: setting.source });
  else println(f.io, value);
}
