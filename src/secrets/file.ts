// The opt-in plain-text backend (SVC_SECRET_STORE=file) for machines without a usable
// keychain: one JSON object in a file only its owner can read, replaced atomically so a
// crash never leaves half a file, and a warning on every write so nobody forgets.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SecretStoreError } from '../errors.js';
import { note, type IOStreams } from '../io/streams.js';
import type { SecretStore } from './store.js';

export const SECRETS_FILE = 'secrets.json';

export function secretsFilePath(configDir: string): string {
  return join(configDir, SECRETS_FILE);
}

export function fileSecretStore(configDir: string, io: IOStreams): SecretStore {
  const path = secretsFilePath(configDir);

  async function load(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (isCode(error, 'ENOENT')) return {};
      throw new SecretStoreError(`cannot read ${path} (${codeOf(error)})`, { cause: error });
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
    return values;
  }

  async function save(values: Record<string, string>): Promise<void> {
    await privateDir(configDir);
    const temp = join(configDir, `.${SECRETS_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      // The mode applies at creation, so the value never sits in a readable file.
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(values, null, 2)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw new SecretStoreError(`cannot write ${path} (${codeOf(error)})`, { cause: error });
    }
    note(io, `warning: secrets are stored in plain text in ${path} (SVC_SECRET_STORE=file)`);
  }

  return {
    backend: 'file',
    async get(key) {
      return (await load())[key] ?? null;
    },
    async set(key, value) {
      const values = await load();
      values[key] = value;
      await save(values);
    },
    async delete(key) {
      const values = await load();
      if (!Object.hasOwn(values, key)) return false;
      delete values[key];
      await save(values);
      return true;
    },
    describe: () => `plain-text file ${path}`,
  };
}

/** Creates the directory owner-only, and tightens it when it already exists looser. */
async function privateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, 0o700);
  } catch (error) {
    throw new SecretStoreError(`cannot make ${dir} private (${codeOf(error)})`, { cause: error });
  }
}

function corrupt(path: string, cause?: unknown): SecretStoreError {
  return new SecretStoreError(`${path} is not a JSON object of strings`, {
    hint: 'fix or remove the file, then store the secrets again (`svc auth set-secret`)',
    cause,
  });
}

function isCode(error: unknown, code: string): boolean {
  return codeOf(error) === code;
}

function codeOf(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.message : String(error);
}
