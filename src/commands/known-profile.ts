// `--profile NAME` (or SVC_PROFILE) must name a profile on commands that cannot create one: a typo
// (`--profile prodution`) would otherwise run as a new, empty profile and fail later with a
// puzzling "no Grant" or a login against the wrong service. Commands that make profiles
// (config set, auth login, auth set-secret, sandbox login) take any valid name, and so does
// every command when the service's address or the credentials come from the environment
// (CI, where the profile only keeps caches and journals apart): it runs, with a note on
// stderr that the profile does not exist and which ones do.
import type { Command } from 'commander';
import { BUILTIN_PROFILES } from '../config/defaults.js';
import { unknownProfileError } from '../config/profile-name.js';
import type { Factory } from '../factory.js';
import { note } from '../io/streams.js';

const FROM_ENVIRONMENT = ['SVC_BASE_URL', 'SVC_API_KEY', 'SVC_CLIENT_ID', 'SVC_TOKEN', 'SVC_WEBHOOK_SECRET'];
const MAY_CREATE = new Set(['config set', 'auth login', 'auth set-secret', 'sandbox login', 'sandbox start', 'completion', 'demo']);

export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export async function requireKnownProfile(cmd: Command, f: Factory): Promise<void> {
  const from = f.globals.profile !== undefined ? '--profile' : 'SVC_PROFILE';
  const name = f.globals.profile ?? (f.env.SVC_PROFILE || undefined);
  if (name === undefined) return;
  const path = commandPath(cmd);
  if (MAY_CREATE.has(path) || MAY_CREATE.has(path.split(' ')[0] ?? '')) return;
  const config = await f.config();
  const known = [...new Set([...config.profileNames(), ...Object.keys(BUILTIN_PROFILES)])];
  if (known.includes(name)) return;
  const given = [...(f.globals.baseUrl !== undefined ? ['--base-url'] : []), ...FROM_ENVIRONMENT.filter((v) => (f.env[v] ?? '') !== '')];
  if (given.length === 0) throw unknownProfileError(name, known, from);
  // The environment makes the command work without the profile (CI), so it runs; but what it
  // shows of the profile, or keeps under its name, is of one that did not exist: said once.
  note(
    f.io,
    `note: no profile "${name}" (${from}): only ${given.join(', ')} ${given.length === 1 ? 'applies' : 'apply'}, and what this command keeps is kept apart under "${name}"; profiles here: ${[...known].sort().join(', ')}`,
  );
}
