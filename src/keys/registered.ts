// The key the service encrypts for, seen from this machine. A client application has one
// registered public key (docs/interface-decisions.md#client-application-keys); a team on
// several machines shares its private half (docs/teams.md#one-decryption-key-for-the-team).
// Registering another key while a colleague's machine holds the registered one's private half
// silently moves every request encrypted from then on out of that machine's reach, so that is
// asked first, and the hints that lead there say to copy the registered key instead.
import { clientApplicationApi, type ClientApplicationApi } from './client-application.js';
import { holdsPrivateKey, OWN_KEY } from './keystore.js';
import { CancelError, NotFoundError, SvcError, UsageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { keyFingerprint } from '../crypto/keys.js';
import { confirmOrCancel } from '../io/prompter.js';
import { canPrompt, note } from '../io/streams.js';
import { shownTime } from '../io/time.js';

/** The registered public key: its fingerprint (undefined when keyData is not an RSA SPKI), upload time, and whether this machine holds its private half. */
export interface RegisteredKey {
  keyId: string | undefined;
  uploadedAt: string;
  held: boolean;
}

/** How a colleague's key reaches this machine. */
export const SHARE_KEY = '`svc keys export --file key.pem` on a machine that holds it, then `svc keys import --file key.pem` here (docs/teams.md)';

/** The registered key, or null when the service has none. */
export async function registeredKey(f: Factory, app: ClientApplicationApi): Promise<RegisteredKey | null> {
  let remote;
  try {
    remote = await app.getPublicKey();
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
  let keyId: string | undefined;
  try {
    keyId = keyFingerprint(remote.keyData);
  } catch {
    keyId = undefined;
  }
  return { keyId, uploadedAt: remote.uploadedAt, held: keyId !== undefined && (await holdsPrivateKey(f, keyId)) };
}

/**
 * Whether a local key is the one the service encrypts for, as the service answers now:
 * `matches` null when it could not be asked (no login, no network), with why; `keyId` and
 * `uploadedAt` null when it has no key registered.
 */
export type Registration =
  | { matches: boolean; keyId: string | null; uploadedAt: string; held: boolean }
  | { matches: false; keyId: null; uploadedAt: null; held: false }
  | { matches: null; error: string };

/** Asks the service for its registered key and compares it with `keyId`; never fails for a service that cannot be asked. */
export async function registrationOf(f: Factory, keyId: string): Promise<Registration> {
  let registered: RegisteredKey | null;
  try {
    registered = await registeredKey(f, await clientApplicationApi(f));
  } catch (error) {
    if (!(error instanceof SvcError) || error instanceof CancelError) throw error;
    return { matches: null, error: error.message };
  }
  if (registered === null) return { matches: false, keyId: null, uploadedAt: null, held: false };
  return { matches: registered.keyId === keyId, keyId: registered.keyId ?? null, uploadedAt: registered.uploadedAt, held: registered.held };
}

/**
 * A registration for people, as the `registered` field of a key and the note that says what
 * to do about it: [value, note].
 */
export function describeRegistration(f: Factory, keyId: string, registration: Registration): [string, string | undefined] {
  if (registration.matches === null)
    return [`unknown: the service could not be asked (${registration.error})`, '`svc keys show-remote` says whether it is the key the service encrypts for'];
  if (registration.uploadedAt === null)
    return ['no: the service has no key registered', `register this one with \`svc keys upload ${keyId}\``];
  if (registration.matches) return [`yes (uploaded ${shownTime(f.io, f.env, registration.uploadedAt)})`, undefined];
  const registered = named(f, { keyId: registration.keyId ?? undefined, uploadedAt: registration.uploadedAt, held: registration.held });
  const replace = `\`svc keys upload ${keyId}\` would make the service encrypt for this one instead, and the machines holding only ${registration.keyId ?? 'the registered key'} could no longer read new requests`;
  return [
    `no: the service encrypts for ${registered}`,
    registration.held
      ? `this machine holds the registered key as well, so it reads what is encrypted for it; ${replace}`
      : `what is encrypted for the registered key cannot be read here: copy it with ${SHARE_KEY}; ${replace}`,
  ];
}

/** "key X (uploaded T)" for messages. */
function named(f: Factory, key: RegisteredKey): string {
  return `key ${key.keyId ?? '(not an RSA public key)'} (uploaded ${shownTime(f.io, f.env, key.uploadedAt)})`;
}

export interface Replacing {
  /** The key to be registered, when it exists already (`keys upload`); a new one otherwise. */
  keyId?: string | undefined;
  /** --yes */
  yes: boolean;
  /** The command as typed, for the refusal's hint: `svc keys rotate`. */
  command: string;
}

/**
 * Before a key is registered: when it replaces a registered key whose private half this
 * machine does not hold, says what that does and asks (a terminal), goes on with a warning
 * (--yes), or refuses naming --yes (exit 2). Replacing a key held here (a rotation), the
 * same key again or no key at all goes on silently.
 */
export async function confirmReplacement(f: Factory, app: ClientApplicationApi, replacing: Replacing): Promise<void> {
  const registered = await registeredKey(f, app);
  if (registered === null || registered.held || (replacing.keyId !== undefined && registered.keyId === replacing.keyId)) return;
  const next = replacing.keyId === undefined ? 'a new key' : `key ${replacing.keyId}`;
  const what =
    `the service encrypts this integration's return requests and webhook events for ${named(f, registered)}, whose private key this machine does not hold (another machine does, e.g. a colleague's); ` +
    `registering ${next} replaces it: what is encrypted from now on can be read only where ${next === 'a new key' ? 'the new' : 'its'} private key is, no longer on the machines holding ${registered.keyId ?? 'the registered key'}`;
  const share = `to read the requests here without that, copy the registered key instead: ${SHARE_KEY}`;
  if (replacing.yes) {
    note(f.io, `warning: ${what}`);
    return;
  }
  if (!canPrompt(f.io)) {
    throw new UsageError(`${what}; that needs --yes, and there is no terminal to ask`, {
      hint: `${share}; to replace it anyway, add --yes to \`${replacing.command}\``,
    });
  }
  note(f.io, `${what}.\n${share}.`);
  const question = `Replace the registered key${registered.keyId === undefined ? '' : ` ${registered.keyId}`} with ${next}?`;
  await confirmOrCancel(f.prompter(), { message: question, flag: '--yes' }, 'cancelled: the registered key was not replaced');
}

/**
 * What a profile without a private key does to get one, where this command runs: the
 * registered key copied from a colleague's machine when there is one this machine lacks,
 * else "create one with …". The service is asked what it has registered; when it cannot
 * be (no login, no network), both ways are named.
 */
export async function howToGetAKey(f: Factory): Promise<string> {
  const store = await f.secrets();
  let registered: RegisteredKey | null | undefined;
  try {
    registered = await registeredKey(f, await clientApplicationApi(f));
  } catch {
    registered = undefined;
  }
  if (store.backend === 'env') {
    if (registered && !registered.held)
      return `the service encrypts for ${named(f, registered)}: hand in its private key with \`SVC_PRIVATE_KEY_FILE=key.pem\` (written by \`svc keys export --file key.pem\` on a machine that holds it); uploading another key would stop that machine reading new requests`;
    return `hand one in with ${OWN_KEY}, or set SVC_SECRET_STORE=file (or keychain) and run \`svc keys generate --upload\` (no secret store is used here to keep a generated one)`;
  }
  if (registered === undefined)
    return `if another machine already reads this integration's requests, copy its key: ${SHARE_KEY}; if none does, create one with \`svc keys generate --upload\``;
  if (registered === null || registered.held) return 'create one with `svc keys generate --upload`';
  return `the service encrypts for ${named(f, registered)}, which another machine holds: copy it here with ${SHARE_KEY}; \`svc keys generate --upload\` would replace it, and that machine could no longer read new requests`;
}
