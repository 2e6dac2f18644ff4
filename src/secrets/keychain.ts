// The OS keychain through @napi-rs/keyring. That library reports many backend failures as
// "no such item", and on Linux it silently falls back to the kernel keyring, which forgets
// everything at reboot. So the entry is pinned to the Secret Service, every call has a
// deadline (a locked or absent service can hang), and the store is only used after a
// write-read-delete probe has proved that what we write is what we read back.
import { randomBytes } from 'node:crypto';
import { NoKeychainError, SecretStoreError } from '../errors.js';
import type { SecretStore } from './store.js';

/** The part of @napi-rs/keyring svc uses (keytar semantics), so tests can inject a fake. */
export interface KeyringEntry {
  getPassword(signal?: AbortSignal): Promise<string | null>;
  setPassword(password: string, signal?: AbortSignal): Promise<void>;
  deletePassword(signal?: AbortSignal): Promise<boolean>;
}

export interface KeyringModule {
  AsyncEntry: new (service: string, account: string, options?: { linux: { store: 'secret-service' } }) => KeyringEntry;
}

export const KEYCHAIN_SERVICE = 'svc';
/** No "/" in it, so it never collides with a `<profile>/<key>` account. */
/** Probe accounts are `probe/<pid>-<random>`: processes probing at once never touch each other's entry. */
export const PROBE_PREFIX = 'probe/';
const PROBE_TIMEOUT_MS = 3_000;
/** Longer than the probe's: macOS may ask the user to allow access to an item. */
const OPERATION_TIMEOUT_MS = 30_000;

export interface KeychainOptions {
  /** Where the file backend would keep secrets, for the hint when the keychain is unusable. */
  filePath: string;
  load?: () => Promise<KeyringModule>;
  platform?: NodeJS.Platform;
  probeTimeoutMs?: number;
  timeoutMs?: number;
}

const loadNative = (): Promise<KeyringModule> => import('@napi-rs/keyring');

// One probe per process and keyring module: every command that needs a secret opens the
// store, and the probe costs three round trips to the keychain.
const probes = new WeakMap<KeyringModule, Promise<void>>();

export function describeKeychain(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'OS keychain (Secret Service)';
}

/** Loads the native module, probes it (once per process) and returns the keychain store. */
export async function openKeychainStore(opts: KeychainOptions): Promise<SecretStore> {
  const unusable = (reason: string, cause?: unknown) =>
    new NoKeychainError(`no usable OS keychain (${reason})`, {
      hint: `set SVC_SECRET_STORE=file to keep secrets in a private file instead (${opts.filePath})`,
      cause,
    });
  let keyring: KeyringModule;
  try {
    keyring = await (opts.load ?? loadNative)();
  } catch (error) {
    throw unusable(`cannot load @napi-rs/keyring: ${shortReason(error)}`, error);
  }
  let probe = probes.get(keyring);
  if (!probe) {
    probe = probeKeychain(keyring, opts.probeTimeoutMs ?? PROBE_TIMEOUT_MS);
    probes.set(keyring, probe);
  }
  try {
    await probe;
  } catch (error) {
    throw unusable(shortReason(error), error);
  }
  return keychainStore(keyring, opts.platform ?? process.platform, opts.timeoutMs ?? OPERATION_TIMEOUT_MS);
}

/**
 * Writes a random value under the probe account, reads it back and deletes it. Rejects
 * with a short reason when any step fails, times out, or reads back something else.
 */
export async function probeKeychain(keyring: KeyringModule, timeoutMs: number): Promise<void> {
  const entry = newEntry(keyring, `${PROBE_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
  const value = randomBytes(18).toString('base64url');
  let deleted = false;
  try {
    await withDeadline(timeoutMs, (signal) => entry.setPassword(value, signal));
    const read = await withDeadline(timeoutMs, (signal) => entry.getPassword(signal));
    if (read !== value) {
      throw new Error(read === null ? 'a value just written could not be read back' : 'a value just written read back differently');
    }
    deleted = true;
    if (!(await withDeadline(timeoutMs, (signal) => entry.deletePassword(signal)))) {
      throw new Error('a value just written was gone before it was deleted');
    }
  } finally {
    // A probe that failed half-way leaves no entry behind.
    if (!deleted) await withDeadline(timeoutMs, (signal) => entry.deletePassword(signal)).catch(() => undefined);
  }
}

function keychainStore(keyring: KeyringModule, platform: NodeJS.Platform, timeoutMs: number): SecretStore {
  const call = async <T>(verb: string, account: string, op: (entry: KeyringEntry, signal: AbortSignal) => Promise<T>) => {
    try {
      return await withDeadline(timeoutMs, (signal) => op(newEntry(keyring, account), signal));
    } catch (error) {
      throw new SecretStoreError(`OS keychain: cannot ${verb} ${account} (${shortReason(error)})`, { cause: error });
    }
  };
  return {
    backend: 'keychain',
    get: (key) => call('read', key, (entry, signal) => entry.getPassword(signal)),
    set: (key, value) => call('store', key, (entry, signal) => entry.setPassword(value, signal)),
    delete: (key) => call('delete', key, (entry, signal) => entry.deletePassword(signal)),
    describe: () => describeKeychain(platform),
  };
}

// Pinned to the Secret Service so that Linux without one fails here instead of falling
// back to keyutils; other platforms ignore the option. The constructor connects to D-Bus
// synchronously, so no deadline of ours covers it: a hung bus blocks it until the addon's
// own D-Bus timeout (about 2 s).
function newEntry(keyring: KeyringModule, account: string): KeyringEntry {
  return new keyring.AsyncEntry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } });
}

/**
 * Runs `op` with an abort signal and rejects when the deadline passes even if the native
 * call ignores the signal: the addon's D-Bus calls only give up on their own timeout.
 */
async function withDeadline<T>(ms: number, op: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${ms / 1000} s; a locked keychain may be waiting for its password`));
    }, ms);
  });
  try {
    return await Promise.race([op(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function shortReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = (message.split('\n')[0] ?? '').replace(/^(Platform failure|Couldn't access platform storage): /, '').trim();
  return line.length > 160 ? `${line.slice(0, 157)}...` : line || 'unknown error';
}
