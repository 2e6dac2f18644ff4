// The settings a command runs with, resolved once: flag > environment > profile > built-in.
import { checkProfileName } from './profile-name.js';
import { UsageError } from '../errors.js';
import { validateBaseUrl } from './base-url.js';
import { BUILTIN_PROFILES, DEFAULT_PROFILE } from './defaults.js';
import type { ConfigStore } from './store.js';

export type Source = 'flag' | 'env' | 'profile' | 'default';

export interface Setting<T = string> {
  value: T;
  source: Source;
}

export interface Settings {
  profile: Setting;
  baseUrl: Setting;
  clientId: Setting | undefined;
  redirectUri: Setting | undefined;
  grant: Setting | undefined;
  scopes: Setting | undefined;
  /** SVC_DATABASE_URL > the profile's database-url; unset: the embedded ledger. */
  databaseUrl: Setting | undefined;
}

export interface SettingsInputs {
  flags: { profile?: string | undefined; baseUrl?: string | undefined; grant?: string | undefined };
  env: Readonly<Record<string, string | undefined>>;
  config: ConfigStore;
}

function pick(candidates: [string | undefined, Source][]): Setting | undefined {
  for (const [value, source] of candidates) if (value !== undefined && value !== '') return { value, source };
  return undefined;
}

export function resolveProfileName(flags: SettingsInputs['flags'], env: SettingsInputs['env']): Setting {
  const chosen = pick([
    [flags.profile, 'flag'],
    [env.SVC_PROFILE, 'env'],
  ]);
  if (chosen === undefined) return { value: DEFAULT_PROFILE, source: 'default' };
  checkProfileName(chosen.value, chosen.source === 'flag' ? 'flag' : 'env');
  return chosen;
}

/** The Grant SVC_GRANT_ID names; it applies to whichever profile a command runs with. */
export function environmentGrant(env: SettingsInputs['env']): string | undefined {
  return pick([[env.SVC_GRANT_ID, 'env']])?.value;
}

/** The settings of a profile that may have no base URL yet: what `svc config` shows. */
export type ProfileSettings = Omit<Settings, 'baseUrl'> & { baseUrl: Setting | undefined };

export function resolveSettings(inputs: SettingsInputs): Settings {
  const settings = resolveProfileSettings(inputs);
  const { profile, baseUrl } = settings;
  if (!baseUrl) {
    throw new UsageError(`profile "${profile.value}" has no base URL`, {
      hint: `run \`svc config set base-url https://… --profile ${profile.value}\`, or pass --base-url`,
    });
  }
  return { ...settings, baseUrl };
}

export function resolveProfileSettings({ flags, env, config }: SettingsInputs): ProfileSettings {
  const profile = resolveProfileName(flags, env);
  const stored = config.profile(profile.value);
  const builtin = BUILTIN_PROFILES[profile.value] ?? {};
  const baseUrl = pick([
    [flags.baseUrl, 'flag'],
    [env.SVC_BASE_URL, 'env'],
    [stored.baseUrl, 'profile'],
    [builtin.baseUrl, 'default'],
  ]);
  if (baseUrl) {
    const what = { flag: '--base-url', env: 'SVC_BASE_URL', profile: `base-url of profile "${profile.value}"`, default: 'base-url' }[baseUrl.source];
    baseUrl.value = validateBaseUrl(baseUrl.value, what);
  }
  return {
    profile,
    baseUrl,
    clientId: pick([
      [env.SVC_CLIENT_ID, 'env'],
      [stored.clientId, 'profile'],
      [builtin.clientId, 'default'],
    ]),
    redirectUri: pick([
      [stored.redirectUri, 'profile'],
      [builtin.redirectUri, 'default'],
    ]),
    grant: pick([
      [flags.grant, 'flag'],
      [environmentGrant(env), 'env'],
      [stored.grant, 'profile'],
    ]),
    scopes: pick([
      [stored.scopes, 'profile'],
      [builtin.scopes, 'default'],
    ]),
    databaseUrl: pick([
      [env.SVC_DATABASE_URL, 'env'],
      [stored.databaseUrl, 'profile'],
    ]),
  };
}
