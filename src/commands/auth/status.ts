// A diagnostic, like `gh auth status`: it reports everything it can find out, and when
// something is broken (the secret store cannot be opened or read) it still prints the
// report, then fails with that error, so scripts see exit 1 and people see the hint.
import type { Setting } from '../../config/settings.js';
import { SvcError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { envVariableFor } from '../../secrets/env.js';
import { chooseSecretBackend } from '../../secrets/open.js';
import type { SecretBackend, SecretStore } from '../../secrets/store.js';

export type StatusOptions = Record<string, never>;

/** Every secret svc keeps per profile; the tokens join when login lands. */
export const STATUS_KEYS = ['client-secret', 'api-key', 'webhook-secret', 'private-key'] as const;

export interface SecretState {
  /** null when the store could not be asked. */
  set: boolean | null;
  source: 'env' | SecretBackend | null;
  /** The environment variable the value comes from. */
  variable?: string;
  error?: string;
}

export async function run(_opts: StatusOptions, f: Factory): Promise<void> {
  const settings = await f.settings();
  let store: SecretStore | undefined;
  let failure: SvcError | undefined;
  try {
    store = await f.secrets();
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    failure = error;
  }

  const states: [string, SecretState][] = [];
  for (const key of STATUS_KEYS) {
    const variable = envVariableFor(f.env, key);
    if (variable !== undefined) states.push([key, { set: true, source: 'env', variable }]);
    else if (!store) states.push([key, { set: null, source: null }]);
    else {
      try {
        const stored = (await store.get(key)) !== null;
        states.push([key, { set: stored, source: stored ? store.backend : null }]);
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        failure ??= error;
        states.push([key, { set: null, source: null, error: error.message }]);
      }
    }
  }

  const show = (s: Setting | undefined) => (s ? `${s.value} (${s.source})` : 'not set');
  writeRecord(
    f.io,
    [
      ['profile', show(settings.profile)],
      ['base URL', show(settings.baseUrl)],
      ['client ID', show(settings.clientId)],
      ['secret store', store ? store.describe() : `unavailable: ${failure?.message ?? ''}`],
      ...states.map(([key, state]): [string, string] => [key, describeState(state)]),
    ],
    {
      profile: settings.profile,
      baseUrl: settings.baseUrl,
      clientId: settings.clientId ?? null,
      secretStore: store
        ? { backend: store.backend, description: store.describe() }
        : { backend: attemptedBackend(f), description: null, error: failure?.message ?? null },
      secrets: Object.fromEntries(states),
    },
  );
  if (failure) throw failure;
}

function describeState(state: SecretState): string {
  if (state.set === null) return state.error ? `unknown: ${state.error}` : 'unknown (secret store unavailable)';
  if (!state.set) return 'not set';
  return state.source === 'env' ? `set (env ${state.variable ?? ''})` : `set (${state.source ?? ''})`;
}

/** Which backend failed to open; null when SVC_SECRET_STORE itself is invalid. */
function attemptedBackend(f: Factory): SecretBackend | null {
  try {
    return chooseSecretBackend(f.env);
  } catch {
    return null;
  }
}
