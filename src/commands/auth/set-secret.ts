// Stores the profile's OAuth client secret. The value only travels from stdin or a hidden
// prompt into the secret store: it is never echoed, printed or put in an error.
import { CLIENT_SECRET_KEY as KEY, readSecretFromStdinOrPrompt } from '../../auth/credentials.js';
import { resolveProfileName } from '../../config/settings.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { envVariableFor } from '../../secrets/env.js';

export interface SetSecretOptions {
  /** Read the secret from stdin even when stdin is a terminal. */
  stdin: boolean;
}

export async function run(opts: SetSecretOptions, f: Factory): Promise<void> {
  // The store first: an unusable keychain should fail before anyone types a secret.
  const store = await f.secrets();
  const profile = resolveProfileName(f.globals, f.env).value;
  const hint = 'pipe it in: printf %s "$SECRET" | svc auth set-secret --stdin';
  // --stdin on a terminal is a hidden prompt too: a secret typed there is never echoed.
  const value = await readSecretFromStdinOrPrompt(f, { what: 'the client secret', message: `Client secret for profile "${profile}":`, flag: '--stdin', hint });
  if (value.trim() === '') throw new UsageError('the client secret is empty', { hint });
  await store.set(KEY, value);
  // The profile exists from now on (its other commands check that it does).
  await (await f.config()).updateProfile(profile, (p) => p);
  const overriddenBy = envVariableFor(f.env, KEY);
  if (f.io.json) writeJson(f.io, { profile, key: KEY, backend: store.backend, store: store.describe() });
  else note(f.io, `stored the client secret of profile "${profile}" in ${store.describe()}`);
  if (overriddenBy) note(f.io, `note: ${overriddenBy} is set and takes precedence over the stored secret`);
}
