// The client application's credentials. The ID is a setting (flag > SVC_CLIENT_ID > profile
// > built-in); the secret comes from SVC_CLIENT_SECRET, the secret store, or the built-in
// sandbox default, and otherwise from stdin or a hidden prompt: never from argv.
import { BUILTIN_PROFILES } from '../config/defaults.js';
import type { Settings } from '../config/settings.js';
import { AuthError, SecretStoreError, UsageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { readBounded, SMALL_BYTES } from '../io/bounded-read.js';
import { note, type IOStreams } from '../io/streams.js';
import { envVariableFor } from '../secrets/env.js';
import { memorySecretStore, type SecretStore } from '../secrets/store.js';

export const CLIENT_SECRET_KEY = 'client-secret';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export function clientIdOf(settings: Settings, flag?: string): string {
  const id = flag ?? settings.clientId?.value;
  if (id) return id;
  throw new UsageError(`no client ID for profile "${settings.profile.value}"`, {
    hint: 'pass --client-id, set SVC_CLIENT_ID, or run `svc config set client-id ID`',
  });
}

function environmentSecret(f: Factory): string | undefined {
  const variable = envVariableFor(f.env, CLIENT_SECRET_KEY);
  return variable === undefined ? undefined : f.env[variable];
}

// The built-in secret belongs to the built-in client ID (the sandbox fixture's); sent with
// any other client ID it would only earn an invalid_client.
export function builtinSecret(profile: string, clientId: string): string | undefined {
  const builtin = BUILTIN_PROFILES[profile];
  return builtin?.clientId === clientId ? builtin.clientSecret : undefined;
}

/** The secret that needs nobody to type it: environment, then the store, then the built-in default. */
export async function knownClientSecret(f: Factory, profile: string, clientId: string, store: SecretStore): Promise<string | undefined> {
  return environmentSecret(f) ?? (await store.get(CLIENT_SECRET_KEY)) ?? builtinSecret(profile, clientId);
}

export async function clientCredentials(f: Factory, settings: Settings, store: SecretStore): Promise<ClientCredentials> {
  const clientId = clientIdOf(settings);
  const clientSecret = await knownClientSecret(f, settings.profile.value, clientId, store);
  if (clientSecret === undefined && settings.clientId?.source === 'env') {
    throw new AuthError(`SVC_CLIENT_ID is set but SVC_CLIENT_SECRET is not, and profile "${settings.profile.value}" stores no client secret`, {
      hint: 'set SVC_CLIENT_SECRET as well, or store the secret with `svc auth set-secret`',
    });
  }
  if (clientSecret === undefined) {
    throw new AuthError(`no client secret for profile "${settings.profile.value}"`, {
      hint: 'store it with `svc auth set-secret` (or `svc auth login --client-secret-stdin`), or set SVC_CLIENT_SECRET',
    });
  }
  return { clientId, clientSecret };
}

/**
 * The profile's secret store. When it cannot be opened (a CI runner has no keychain) but the
 * client secret needs no store (SVC_CLIENT_SECRET, or the built-in sandbox secret), a store
 * that lasts this process instead: everything works, tokens just are not kept between runs.
 */
export async function authSecrets(f: Factory, settings: Settings): Promise<SecretStore> {
  try {
    return await f.secrets();
  } catch (error) {
    if (!(error instanceof SecretStoreError)) throw error;
    const clientId = settings.clientId?.value;
    const secretWithoutStore =
      environmentSecret(f) !== undefined || (clientId !== undefined && builtinSecret(settings.profile.value, clientId) !== undefined);
    if (!secretWithoutStore) throw credentialsThatDidNotArrive(f.env, error) ?? error;
    if (f.debug) note(f.io, `* ${error.message}: tokens are kept for this command only`);
    return memorySecretStore();
  }
}

/** The variables that hand in credentials (docs/ci-and-scripts.md): each is named when set but empty. */
const CREDENTIAL_VARIABLES = ['SVC_API_KEY', 'SVC_TOKEN', 'SVC_CLIENT_ID', 'SVC_CLIENT_SECRET', 'SVC_GRANT_ID'] as const;

/**
 * With no secret store to fall back on, the credentials a CI job meant to give in the
 * environment and did not: a variable set to the empty string (a secret the job is not given,
 * as on a pull request from a fork, arrives so) or a client ID without its secret. Naming
 * that variable is what the job can act on, not the keychain it never meant to use.
 */
function credentialsThatDidNotArrive(env: Readonly<Record<string, string | undefined>>, unusable: SecretStoreError): AuthError | undefined {
  const empty = emptyCredentialVariables(env);
  const otherwise = `or set SVC_SECRET_STORE=file to use credentials stored on this machine`;
  if (empty.length > 0) return emptyVariablesError(empty, unusable);
  if ((env.SVC_CLIENT_ID ?? '') !== '' && env.SVC_CLIENT_SECRET === undefined) {
    return new AuthError(`SVC_CLIENT_ID is set but SVC_CLIENT_SECRET is not, and there is no secret store to take the client secret from (${unusable.message})`, {
      hint: `set SVC_CLIENT_SECRET as well (with SVC_GRANT_ID, the Grant to act for), ${otherwise}`,
      cause: unusable,
    });
  }
  return undefined;
}

function emptyCredentialVariables(env: Readonly<Record<string, string | undefined>>): string[] {
  return CREDENTIAL_VARIABLES.filter((name) => env[name] === '');
}

/** "SVC_CLIENT_SECRET is set but empty": what a CI secret the job is not given looks like. */
function emptyVariablesError(empty: readonly string[], unusable: SecretStoreError | undefined): AuthError {
  const names = empty.length === 1 ? empty[0] : `${empty.slice(0, -1).join(', ')} and ${empty.at(-1)}`;
  const noStore = unusable === undefined ? '' : `, and there is no secret store to take credentials from instead (${unusable.message})`;
  const otherwise =
    unusable === undefined
      ? `or unset ${empty.length === 1 ? 'it' : 'them'} to use what this profile stores`
      : 'or set SVC_SECRET_STORE=file to use credentials stored on this machine';
  return new AuthError(`${names} ${empty.length === 1 ? 'is' : 'are'} set but empty${noStore}`, {
    hint: `a CI secret the job is not given (a pull request from a fork, a misspelt secret name) arrives empty: give ${names} a value, ${otherwise}`,
    ...(unusable === undefined ? {} : { cause: unusable }),
  });
}

/**
 * Before any credential is chosen: a credential variable set to the empty string is an error
 * naming it (exit 4), with or without a secret store, rather than a silent fall-back to what
 * the store or the built-in sandbox client holds, or a "no Grant" that sends a job to log in.
 */
export async function refuseEmptyCredentials(f: Factory): Promise<void> {
  const empty = emptyCredentialVariables(f.env);
  if (empty.length === 0) return;
  let unusable: SecretStoreError | undefined;
  try {
    await f.secrets();
  } catch (error) {
    if (!(error instanceof SecretStoreError)) throw error;
    unusable = error;
  }
  throw emptyVariablesError(empty, unusable);
}

/**
 * "no Grant" when the client comes from SVC_CLIENT_ID: the job meant to give the pair and a
 * Grant, so what it left out is named (SVC_CLIENT_SECRET unless a stored or built-in secret
 * fits, and SVC_GRANT_ID), not a login it cannot do. Undefined otherwise.
 */
export async function missingFromEnvironment(f: Factory, settings: Settings, store: SecretStore): Promise<AuthError | undefined> {
  if (settings.clientId?.source !== 'env' || settings.grant !== undefined) return undefined;
  const secret = await knownClientSecret(f, settings.profile.value, settings.clientId.value, store).catch(() => undefined);
  const given = secret === undefined || (f.env.SVC_CLIENT_SECRET ?? '') === '' ? 'SVC_CLIENT_ID is' : 'SVC_CLIENT_ID and SVC_CLIENT_SECRET are';
  const missing = secret === undefined ? 'SVC_CLIENT_SECRET and SVC_GRANT_ID are' : 'SVC_GRANT_ID is';
  return new AuthError(`no Grant: ${given} set but ${missing} not`, {
    hint: `set ${secret === undefined ? 'SVC_CLIENT_SECRET and ' : ''}SVC_GRANT_ID, the Grant to act for (\`svc grants list\` where this client is logged in); or SVC_API_KEY, or SVC_TOKEN; against a sandbox started with --auto-approve, \`svc sandbox login\``,
  });
}

/**
 * A job with nobody at the keyboard (CI, --no-input), no secret store and no credential
 * variable at all: what it lacks is credentials, so that is what is said (exit 4), with the
 * variables it can set, rather than the keychain it could not reach.
 */
export function noCredentialsWithoutStore(f: Factory, error: unknown): unknown {
  if (!(error instanceof SecretStoreError) || !f.io.noInput) return error;
  if (CREDENTIAL_VARIABLES.some((name) => f.env[name] !== undefined)) return error;
  return new AuthError(`no credentials: none of SVC_API_KEY, SVC_TOKEN, SVC_CLIENT_ID + SVC_CLIENT_SECRET is set, and there is no secret store to take stored ones from (${error.message})`, {
    hint: 'in CI, give them in the environment: SVC_CLIENT_ID, SVC_CLIENT_SECRET and SVC_GRANT_ID, or SVC_API_KEY, or SVC_TOKEN; on a machine of your own, SVC_SECRET_STORE=file keeps them in a private file',
    cause: error,
  });
}

/** A secret piped in: one trailing newline (from `echo`) is not part of it; empty is refused. */
export async function readSecretFromStdin(io: IOStreams, what: string, hint: string): Promise<string> {
  const value = (await readBounded('-', io.stdin, `${what} from stdin`, { bytes: SMALL_BYTES, why: 'a secret is a short string' })).toString('utf8').replace(/\r?\n$/, '');
  if (value.trim() === '') throw new UsageError(`${what} from stdin is empty`, { hint });
  return value;
}

/**
 * A secret given with a `--…-stdin` flag: piped in, read as `readSecretFromStdin` does; with
 * stdin a terminal, asked at a hidden prompt as `svc auth set-secret` asks, since a terminal
 * shows what is typed into a plain read and nothing would say what svc waits for.
 */
export async function readSecretFromStdinOrPrompt(f: Factory, ask: { what: string; message: string; flag: string; hint: string }): Promise<string> {
  if (!f.io.stdinIsTTY) return readSecretFromStdin(f.io, ask.what, ask.hint);
  const typed = await f.prompter().password({ message: ask.message, flag: ask.flag });
  if (typed.trim() === '') throw new UsageError(`${ask.what} is empty`, { hint: ask.hint });
  return typed;
}
