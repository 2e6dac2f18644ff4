// The opt-in plain-text backend (SVC_SECRET_STORE=file) for machines without a usable
// keychain: one JSON object in a file only its owner can read, replaced atomically so a
// crash never leaves half a file, and a warning with the first write of every command so nobody forgets.
// A change is read, modified and written under an OS lock (src/store/lock.ts), so any
// number of processes writing at once lose none of each other's entries.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SecretStoreError } from '../errors.js';
import { fsErrorCode, privateDir, replacePrivateFile } from '../store/private-file.js';
import { note, type IOStreams } from '../io/streams.js';
import { withLock } from '../store/lock.js';
import type { SecretStore } from './store.js';

export const SECRETS_FILE = 'secrets.json';

export function secretsFilePath(configDir: string): string {
  return join(configDir, SECRETS_FILE);
}

/** How the file store speaks when it is not the explicit opt-in (the local profile's fallback). */
export interface QuietFileStore {
  /** Said once, when the first entry under this prefix is written. */
  firstOfPrefix: string;
  note: string;
  describe: string;
}

export function fileSecretStore(configDir: string, io: IOStreams, quiet?: QuietFileStore): SecretStore {
  const path = secretsFilePath(configDir);

  // The file as last parsed, by its identity (as the config store does): a cold run over
  // 2,000 Grants reads the client secret for each token request. A write replaces the file (a
  // new inode), so any change, by this process or another, is read afresh.
  let parsedAs: { identity: string; values: Record<string, string> } | undefined;

  // Callers at once share one read: 10,000 of them each reading a 1.2 MB file ran out of memory.
  let loading: { identity: string; values: Promise<Readonly<Record<string, string>>> } | undefined;

  /** The entries as parsed: shared, never to be changed (load() hands out a copy to change). */
  function current(): Promise<Readonly<Record<string, string>>> {
    let identity: string;
    try {
      identity = identityOf(path);
    } catch (error) {
      if (isCode(error, 'ENOENT')) return Promise.resolve({});
      return Promise.reject(new SecretStoreError(`cannot read ${path} (${fsErrorCode(error)})`, { cause: error }));
    }
    if (parsedAs?.identity === identity) return Promise.resolve(parsedAs.values);
    if (loading?.identity === identity) return loading.values;
    const values = parse(identity).finally(() => {
      if (loading?.values === values) loading = undefined;
    });
    loading = { identity, values };
    return values;
  }

  async function load(): Promise<Record<string, string>> {
    return { ...(await current()) };
  }

  async function parse(identity: string): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (isCode(error, 'ENOENT')) return {};
      throw new SecretStoreError(`cannot read ${path} (${fsErrorCode(error)})`, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw corrupt(path, error);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw corrupt(path);
    const values: Record<string, string> = {};
    for (const [key, value] of Object.entries(parsed)) {
      if (typeof value !== 'string') throw corrupt(path);
      values[key] = value;
    }
    parsedAs = { identity, values };
    return values;
  }

  let warned = false;
  async function save(values: Record<string, string>, before: Record<string, string>): Promise<void> {
    try {
      await privateDir(configDir);
    } catch (error) {
      throw new SecretStoreError(error instanceof Error ? error.message : String(error), { cause: error });
    }
    try {
      await replacePrivateFile(path, `${JSON.stringify(values, null, 2)}\n`);
      // Written under the lock: the next read need not parse what this process just wrote
      // (a fan-out storing 2,000 subscription secrets parsed a growing file 2,000 times).
      parsedAs = { identity: identityOf(path), values: { ...values } };
    } catch (error) {
      throw new SecretStoreError(`cannot write ${path} (${fsErrorCode(error)})`, { cause: error });
    }
    if (quiet) {
      const has = (entries: Record<string, string>) => Object.keys(entries).some((k) => k.startsWith(quiet.firstOfPrefix));
      if (!has(before) && has(values)) note(io, quiet.note);
      return;
    }
    // Once per command: a login writes several entries, and one line says it all.
    if (!warned) note(io, `warning: secrets are stored in plain text in ${path} (SVC_SECRET_STORE=file)`);
    warned = true;
  }

  const locked = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      await privateDir(configDir);
    } catch (error) {
      throw new SecretStoreError(error instanceof Error ? error.message : String(error), { cause: error });
    }
    return withLock(`${path}.lock`, work);
  };

  // One lock and one rewrite for any number of entries: a fan-out storing 2,000 subscription
  // secrets writes them in batches, not the growing file once per secret.
  const setMany = (entries: readonly (readonly [string, string])[]) =>
    locked(async () => {
      const before = await load();
      await save({ ...before, ...Object.fromEntries(entries) }, before);
    });

  return {
    backend: 'file',
    async get(key) {
      return (await current())[key] ?? null;
    },
    async getMany(keys) {
      const values = await current();
      return keys.map((key) => (Object.hasOwn(values, key) ? values[key]! : null));
    },
    set: (key, value) => setMany([[key, value]]),
    setMany,
    delete: (key) =>
      locked(async () => {
        const before = await load();
        if (!Object.hasOwn(before, key)) return false;
        const { [key]: _deleted, ...values } = before;
        await save(values, before);
        return true;
      }),
    describe: () => quiet?.describe ?? `plain-text file ${path}`,
  };
}

function identityOf(path: string): string {
  const st = statSync(path, { bigint: true });
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

function corrupt(path: string, cause?: unknown): SecretStoreError {
  return new SecretStoreError(`${path} is not a JSON object of strings`, {
    hint: 'fix or remove the file, then store the secrets again (`svc auth set-secret`)',
    cause,
  });
}

function isCode(error: unknown, code: string): boolean {
  return fsErrorCode(error) === code;
}
