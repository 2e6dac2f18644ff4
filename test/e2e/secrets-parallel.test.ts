// "Parallel is always safe" for what the secret store holds, on the built binary: twelve
// processes writing secrets beside six `keys generate` lose nothing, on the plain-text file
// backend and on a real Secret Service (gnome-keyring in a private D-Bus session); ten
// `token get` at once in one profile make one token request; a command whose stdout reader
// went away (`| head`) leaves no lock for the next one to wait on.
import { changeCachedTokens } from './token-file.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runSvc, svcBin, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { secretTool, startSecretService } from './secret-service.js';

const skipKeychain = process.platform !== 'linux' ? 'the Secret Service exists on Linux only' : requireTools(['dbus-daemon', 'gnome-keyring-daemon', 'secret-tool']);

let dir: string;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), SVC_CONFIG_DIR: join(dir, 'config'), SVC_STATE_DIR: join(dir, 'state'), NO_COLOR: '1', ...extra };
}

function svc(args: string[], vars: Record<string, string>, input?: string) {
  return execa('node', [svcBin, ...args], { env: vars, extendEnv: false, reject: false, cwd: repoRoot, ...(input === undefined ? { stdin: 'ignore' as const } : { input }) });
}

/** Twelve profiles' secrets and six key pairs written at once; then every one is there. */
async function writeAtOnce(vars: Record<string, string>): Promise<void> {
  const writers = Array.from({ length: 12 }, (_, i) => svc(['--profile', `w${i}`, 'auth', 'set-secret', '--stdin'], vars, `secret-of-w${i}\n`));
  const generators = Array.from({ length: 6 }, () => svc(['keys', 'generate'], vars));
  const results = await Promise.all([...writers, ...generators]);
  for (const r of results) expect(r.exitCode, r.stderr).toBe(0);

  for (let i = 0; i < 12; i++) {
    const status = await svc(['--profile', `w${i}`, 'auth', 'status', '--json'], vars);
    expect(JSON.parse(status.stdout).secrets['client-secret'], `profile w${i}`).toMatchObject({ set: true });
  }
  const keys = JSON.parse((await svc(['keys', 'list', '--json'], vars)).stdout) as { keyId: string; current: boolean }[];
  expect(keys).toHaveLength(6);
  expect(new Set(keys.map((k) => k.keyId)).size).toBe(6);
  expect(keys.filter((k) => k.current)).toHaveLength(1);
}

describe('the secret store under parallel processes', () => {
  it('file backend: 12 secrets and 6 key pairs written at once, none lost', async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-e2e-parallel-'));
    const vars = env({ SVC_SECRET_STORE: 'file' });
    await writeAtOnce(vars);
    // Every private half is there too: 6 private-key entries in the file.
    const stored = JSON.parse(await readFile(join(dir, 'config', 'secrets.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(stored).filter((k) => k.startsWith('local/private-key/'))).toHaveLength(6);
    expect(Object.keys(stored).filter((k) => /^w\d+\/client-secret$/.test(k))).toHaveLength(12);
  }, 120_000);

  it.skipIf(skipKeychain !== undefined)(`real Secret Service: 12 secrets and 6 key pairs written at once, none lost${skipKeychain ? ` (skipped: ${skipKeychain})` : ''}`, async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-e2e-parallel-'));
    const address = await startSecretService(dir, stops);
    const vars = env({ DBUS_SESSION_BUS_ADDRESS: address });
    await writeAtOnce(vars);
    const items = await secretTool(['search', '--all', 'service', 'svc'], address);
    expect(items.all?.match(/attribute\.username = local\/private-key\//g)).toHaveLength(6);
    // The probes of all those processes are gone: each wrote its own entry and deleted it.
    expect(items.all).not.toMatch(/attribute\.username = probe/);
  }, 120_000);
});

describe('tokens and locks under parallel processes', () => {
  const dirs = tempDirs();
  let m: Merchant;
  beforeAll(async () => {
    m = await startMerchant(dirs);
  });
  afterAll(async () => {
    await m?.sandbox.stop();
    await dirs.cleanup();
  });

  const dropCachedTokens = () => changeCachedTokens(m.home, () => undefined);
  const tokenRequests = () => (m.sandbox.stderr().match(/POST \/oauth2\/token 200/g) ?? []).length;

  it('ten `token get` at once in one profile make one token request, and all print that token', async () => {
    await dropCachedTokens();
    const before = tokenRequests();
    const results = await Promise.all(Array.from({ length: 10 }, () => runSvc(['token', 'get'], { home: m.home, env: m.env })));
    for (const r of results) expect(r.exitCode, r.stderr).toBe(0);
    expect(new Set(results.map((r) => r.stdout.trim())).size).toBe(1);
    await m.sandbox.waitForStderr(/POST \/oauth2\/token 200/);
    expect(tokenRequests() - before).toBe(1);
  }, 60_000);

  it('a closed stdout pipe mid-command (`svc --debug token get --force 2>&1 | head -3`) leaves no lock: the next one does not wait', async () => {
    const piped = await execa('bash', ['-c', `node ${svcBin} --debug token get --force 2>&1 | head -3`], {
      env: { ...process.env, NO_COLOR: '1', SVC_CONFIG_DIR: m.home.configDir, SVC_STATE_DIR: m.home.stateDir, SVC_SECRET_STORE: 'file', ...m.env },
      reject: false,
    });
    expect(piped.stdout.split('\n')).toHaveLength(3);
    const started = Date.now();
    const next = await runSvc(['token', 'get', '--force'], { home: m.home, env: m.env });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('waiting for');
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 60_000);
});
