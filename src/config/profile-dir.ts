// The profile's own places: its directory under the state dir (the embedded ledger, the
// webhook journal, the completion cache, the Grants requests were found under) and the
// database its ledger is in. Below the factory, so given what they need of it: the factory
// itself is passed, as anything with the same members may be.
import { join } from 'node:path';
import { checkDatabaseUrl, refuseStoredPassword } from '../store/database-url.js';
import { pathSegment } from '../store/private-file.js';
import { resolveProfileName, resolveProfileSettings, type SettingsInputs } from './settings.js';
import type { ConfigStore } from './store.js';

/** What names the profile: the global flags, the environment, and where state is kept. */
export interface ProfileScope {
  readonly globals: SettingsInputs['flags'];
  readonly env: SettingsInputs['env'];
  readonly paths: { readonly stateDir: string };
}

/** <stateDir>/<profile>: the profile's own state (the embedded ledger, the webhook journal). */
export function profileDir(scope: ProfileScope): string {
  return join(scope.paths.stateDir, pathSegment(resolveProfileName(scope.globals, scope.env).value, 'profile name'));
}

/** <stateDir>/<profile>/<sub> of the command's profile; only the profile name is needed, not its settings. */
export function profileStateDir(scope: ProfileScope, sub: string): string {
  return join(profileDir(scope), sub);
}

/** The database URL in force (SVC_DATABASE_URL > the profile's database-url), checked; undefined: the embedded ledger. */
export async function databaseUrlOf(scope: ProfileScope & { config(): Promise<ConfigStore> }): Promise<string | undefined> {
  const setting = resolveProfileSettings({ flags: scope.globals, env: scope.env, config: await scope.config() }).databaseUrl;
  if (!setting) return undefined;
  if (setting.source === 'env') return checkDatabaseUrl(setting.value, 'SVC_DATABASE_URL');
  // A config.json edited by hand is held to what `config set` accepts.
  return refuseStoredPassword(checkDatabaseUrl(setting.value, 'database-url'), 'database-url');
}
