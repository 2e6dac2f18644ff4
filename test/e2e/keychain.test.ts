// The secret store against a real Secret Service: a private D-Bus session bus and
// gnome-keyring-daemon per test, the built `svc` binary writing through @napi-rs/keyring,
// and secret-tool (libsecret, an independent client) reading back what landed there.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requireTools } from './require-tools.js';
import { secretTool, startSecretService as startSecretServiceIn } from './secret-service.js';

const repo = resolve(import.meta.dirname, '../..');
const SECRET = 'cs_e2e_Zx9!q $ecret';

const notLinux = process.platform !== 'linux' ? 'the Secret Service exists on Linux only' : undefined;
const skipKeychain = notLinux ?? requireTools(['dbus-daemon', 'gnome-keyring-daemon', 'secret-tool']);

let dir: string;
let configDir: string;
const stops: (() => Promise<void>)[] = [];

beforeAll(() => {
  if (!existsSync(join(repo, 'dist', 'main.cjs'))) throw new Error('dist/main.cjs is missing: run `npm run build` first');
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-e2e-keychain-'));
  configDir = join(dir, 'config');
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await rm(dir, { recursive: true, force: true });
});

/** Only what the test sets: no SVC_* or D-Bus address leaks in from the parent. */
function svcEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    SVC_CONFIG_DIR: configDir,
    SVC_STATE_DIR: join(dir, 'state'),
    NO_COLOR: '1',
    ...extra,
  };
}

function svc(args: string[], env: Record<string, string>, input?: string) {
  return execa('node', [join(repo, 'bin', 'svc.js'), ...args], {
    env,
    extendEnv: false,
    reject: false,
    ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
  });
}

const startSecretService = () => startSecretServiceIn(dir, stops);

describe.skipIf(skipKeychain !== undefined)(`with a real Secret Service${skipKeychain ? ` (skipped: ${skipKeychain})` : ''}`, () => {
  it('set-secret stores the client secret in the keychain, where libsecret reads it back; status names the backend', async () => {
    const address = await startSecretService();
    const env = svcEnv({ DBUS_SESSION_BUS_ADDRESS: address });

    const set = await svc(['auth', 'set-secret', '--stdin'], env, `${SECRET}\n`);
    expect(set.stderr).toContain('stored the client secret of profile "local" in OS keychain (Secret Service)');
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toBe('');
    expect(`${set.stdout}${set.stderr}`).not.toContain(SECRET);

    // @napi-rs/keyring writes the attributes service and username (keyring-rs' names).
    const lookup = await secretTool(['lookup', 'service', 'svc', 'username', 'local/client-secret'], address);
    expect(lookup.exitCode).toBe(0);
    expect(lookup.stdout).toBe(SECRET);
    const items = await secretTool(['search', '--all', 'service', 'svc'], address);
    expect(items.all).toContain('attribute.username = local/client-secret');
    expect(items.all).not.toContain('attribute.username = probe');

    expect(existsSync(join(configDir, 'secrets.json'))).toBe(false);

    const status = await svc(['auth', 'status', '--json'], env);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).not.toContain(SECRET);
    const report = JSON.parse(status.stdout);
    expect(report.secretStore).toEqual({ backend: 'keychain', description: 'OS keychain (Secret Service)' });
    expect(report.secrets['client-secret']).toEqual({ set: true, source: 'keychain' });
    expect(report.secrets['api-key']).toEqual({ set: false, source: null });
  });
});

describe.skipIf(notLinux !== undefined)(`without a Secret Service${notLinux ? ` (skipped: ${notLinux})` : ''}`, () => {
  it('refuses to store a secret of a profile but local (exit 2), naming SVC_SECRET_STORE=file; with it, keeps the secret in a 0600 file', async () => {
    const nowhere = svcEnv({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-bus')}` });
    const production = ['--profile', 'production'];

    const refused = await svc([...production, 'auth', 'set-secret', '--stdin'], nowhere, SECRET);
    // A setting to choose, not a bug: exit 2, as `svc help exit-codes` says.
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/^hint: set SVC_SECRET_STORE=file/m);
    expect(refused.stderr).toContain('no usable OS keychain');
    expect(refused.stderr).toContain('SVC_SECRET_STORE=file');
    expect(refused.stderr).not.toContain(SECRET);
    expect(existsSync(join(configDir, 'secrets.json'))).toBe(false);

    // A report of this machine: exit 0 (README), the store's failure in it and its hint on stderr.
    const status = await svc([...production, 'auth', 'status', '--json'], nowhere);
    expect(status.exitCode).toBe(0);
    expect(JSON.parse(status.stdout).secretStore).toMatchObject({ backend: 'keychain', description: null });
    expect(status.stderr).toContain('SVC_SECRET_STORE=file');

    const fileEnv = { ...nowhere, SVC_SECRET_STORE: 'file' };
    const stored = await svc([...production, 'auth', 'set-secret', '--stdin'], fileEnv, `${SECRET}\n`);
    expect(stored.exitCode).toBe(0);
    const path = join(configDir, 'secrets.json');
    expect(stored.stderr).toContain(`warning: secrets are stored in plain text in ${path} (SVC_SECRET_STORE=file)`);
    expect(stored.stderr).not.toContain(SECRET);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'production/client-secret': SECRET });

    const fileStatus = await svc([...production, 'auth', 'status', '--json'], fileEnv);
    expect(fileStatus.exitCode).toBe(0);
    expect(JSON.parse(fileStatus.stdout).secrets['client-secret']).toEqual({ set: true, source: 'file' });
  });

  it('keeps the local profile\'s sandbox secrets in the private file by itself, saying so once', async () => {
    const nowhere = svcEnv({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-bus')}` });
    const path = join(configDir, 'secrets.json');
    const first = await svc(['auth', 'set-secret', '--stdin'], nowhere, `${SECRET}\n`);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toMatch(new RegExp(`^note: no usable OS keychain here \\(.*\\), so the local profile keeps its sandbox secrets in ${path.replace(/[.]/g, '\\.')}`, 'm'));
    expect(first.stderr).not.toContain(SECRET);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const second = await svc(['auth', 'set-secret', '--stdin'], nowhere, `${SECRET}-2\n`);
    expect(second.exitCode).toBe(0);
    expect(second.stderr).not.toMatch(/^note:/m);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'local/client-secret': `${SECRET}-2` });
  });
});
