// Where svc keeps its files: XDG locations on every platform, overridable for tests and CI.
import { join } from 'node:path';

export interface Paths {
  /** config.json (profiles, non-secret settings). */
  configDir: string;
  /** Local records, journals, locks: the merchant's own data. */
  stateDir: string;
}

export function resolvePaths(env: Readonly<Record<string, string | undefined>>): Paths {
  // node:os only without HOME: loading it is ~0.1 ms of every command's start.
  const home = env.HOME || process.getBuiltinModule('node:os').homedir();
  return {
    configDir: env.SVC_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(home, '.config'), 'svc'),
    stateDir: env.SVC_STATE_DIR || join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'svc'),
  };
}
