// The whole login and token flow with --debug, in both flows: no client secret, code,
// verifier, access token or refresh token may appear in stdout or stderr, except the
// token that `svc token get` exists to print. And `svc auth logout --all` takes every one
// of them out of the file store again, leaving the key pairs.
import { cachedTokenRows } from './token-file.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, startSandbox, tempDirs, type SandboxProcess, type SvcHome, type SvcResult } from './helpers.js';
import { fixtureWithOwnRedirect, loginAutoApproved, type OAuthFixture } from './oauth-fixture.js';

const dirs = tempDirs();
let sandbox: SandboxProcess;
let fixture: OAuthFixture;

beforeAll(async () => {
  fixture = await fixtureWithOwnRedirect(dirs);
  sandbox = await startSandbox(['--fixture', fixture.path, '--auto-approve']);
});
afterAll(async () => {
  await sandbox?.stop();
  await dirs.cleanup();
});

/** Every value the file backend holds: tokens, refresh tokens, private keys. */
async function storedSecrets(home: SvcHome): Promise<string[]> {
  const values: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string') {
      try {
        collect(JSON.parse(v));
      } catch {
        if (v.length >= 16) values.push(v);
      }
    } else if (v && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v)) if (!['expires_at', 'scope', 'token_type'].includes(k)) collect(inner);
    }
  };
  // In the grant flow against the sandbox nothing may be in the secret file (a built-in client, tokens apart).
  collect(JSON.parse(await readFile(join(home.configDir, 'secrets.json'), 'utf8').catch(() => '{}')));
  // Access tokens are kept apart from the secrets, in the profile's token file.
  for (const row of await cachedTokenRows(home)) collect(row.token);
  return values;
}

function expectNoSecrets(outputs: readonly SvcResult[], secrets: readonly string[]) {
  for (const out of outputs) {
    for (const secret of secrets) {
      expect(out.stdout.includes(secret), `a secret leaked to stdout:\n${out.stdout}`).toBe(false);
      expect(out.stderr.includes(secret), `a secret leaked to stderr:\n${out.stderr}`).toBe(false);
    }
    // The verifier is never known outside the CLI: it may only appear redacted.
    expect(out.stderr).not.toMatch(/code_verifier"?\s*[:=]\s*"?(?!\[redacted\])[A-Za-z0-9_~.-]{43}/);
  }
}

describe('no secret reaches stdout or stderr, even with --debug', () => {
  it.each(['grant', 'code'] as const)('%s flow: login, token, grants, validate, status, refresh', async (flow) => {
    const home = await makeSvcHome(dirs);
    const env = { SVC_BASE_URL: sandbox.url };
    const { result: loggedIn, code } = await loginAutoApproved(home, sandbox.url, fixture, ['--flow', flow, '--debug']);
    expect(loggedIn.exitCode, loggedIn.stderr).toBe(0);
    expect(code.length).toBeGreaterThan(8);
    expect(loggedIn.stderr).toContain('> POST'); // the trace is really on

    const tokenGet = await runSvc(['token', 'get', '--debug'], { home, env });
    expect(tokenGet.exitCode, tokenGet.stderr).toBe(0);
    const token = tokenGet.stdout.trim();
    expect(token.length).toBeGreaterThan(16);
    const others = [
      loggedIn,
      { ...tokenGet, stdout: '' }, // token get's own stdout is the token itself
      await runSvc(['token', 'validate', '--debug'], { home, env }),
      await runSvc(['grants', 'list', '--debug'], { home, env }),
      await runSvc(['auth', 'status', '--debug'], { home, env }),
      await runSvc(['auth', 'refresh', '--debug'], { home, env }),
      await runSvc(['token', 'get', '--json', '--debug'], { home, env }).then((r) => ({ ...r, stdout: '' })),
    ];
    for (const r of others) expect(r.exitCode, r.stderr).toBe(0);
    const stored = await storedSecrets(home);
    // Tokens (and in the code flow, refresh tokens) really were stored: the check below has teeth.
    expect(stored.length).toBeGreaterThanOrEqual(flow === 'code' ? 2 : 1);
    const secrets = [fixture.clientSecret, code, token, ...stored];
    expectNoSecrets(others, secrets);
  });
});

describe('svc token validate TOKEN', () => {
  it("a token that begins with '-' (base64url) is taken as the token, never echoed in an unknown-option error", async () => {
    const home = await makeSvcHome(dirs);
    const env = { SVC_BASE_URL: sandbox.url };
    const { result } = await loginAutoApproved(home, sandbox.url, fixture);
    expect(result.exitCode, result.stderr).toBe(0);
    const forged = '-ce6xEaLt-mw84OUnvoLNWR_npsPgUDOokqCS0xxtkg';
    const checked = await runSvc(['token', 'validate', forged], { home, env });
    expect(checked.exitCode, checked.stderr).toBe(4);
    expect(checked.stderr + checked.stdout).not.toContain(forged);
    const real = (await runSvc(['token', 'get'], { home, env })).stdout.trim();
    expect((await runSvc(['token', 'validate', '-'], { home, env, input: real })).exitCode).toBe(0);
  });
});

describe('svc auth logout --all', () => {
  it("removes every profile's tokens, refresh tokens and client secret from the file store, and keeps the keys", async () => {
    const home = await makeSvcHome(dirs);
    const storedKeys = async () => Object.keys(JSON.parse(await readFile(join(home.configDir, 'secrets.json'), 'utf8')) as object).sort();
    const svc = async (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) => {
      const result = await runSvc(args, { home, ...opts });
      expect(result.exitCode, `svc ${args.join(' ')}\n${result.stderr}`).toBe(0);
      return result;
    };
    // `local`: a grant-flow and a code-flow login, and a key pair.
    for (const flow of ['grant', 'code']) {
      const { result } = await loginAutoApproved(home, sandbox.url, fixture, ['--flow', flow]);
      expect(result.exitCode, result.stderr).toBe(0);
    }
    await svc(['token', 'get'], { env: { SVC_BASE_URL: sandbox.url } });
    await svc(['keys', 'generate']);
    // `shop` (in the config file) and the built-in `sandbox` (not in it, no base URL): a client secret each.
    await svc(['--profile', 'shop', 'config', 'set', 'base-url', 'https://shop.example']);
    await svc(['--profile', 'shop', 'auth', 'set-secret', '--stdin'], { input: 'cs_shop_e2e_0123456789' });
    await svc(['--profile', 'sandbox', 'auth', 'set-secret', '--stdin'], { input: 'cs_sandbox_e2e_0123456789' });

    const before = await storedKeys();
    const login = (key: string) => /^[^/]+\/(token|refresh-token)\/|^[^/]+\/client-secret$/.test(key);
    // The check below has teeth: there were tokens (in the token file), a refresh token and client secrets.
    const tokens = new Set((await cachedTokenRows(home)).map((row) => row.id)).size;
    expect(tokens).toBeGreaterThanOrEqual(2);
    expect(before).toEqual(expect.arrayContaining(['shop/client-secret', 'sandbox/client-secret']));
    expect(before.filter((k) => k.startsWith('local/refresh-token/')).length).toBeGreaterThanOrEqual(2);
    const keys = before.filter((k) => k.startsWith('local/private-key/') || k === 'local/keys-index');
    expect(keys).toHaveLength(2);

    const loggedIn = (JSON.parse((await svc(['grants', 'list', '--json'])).stdout) as unknown[]).length;
    const refreshTokens = before.filter((k) => k.startsWith('local/refresh-token/')).length;

    const out = await svc(['auth', 'logout', '--all']);
    expect(out.stdout).toBe('');
    const lines = out.stderr.split('\n').filter((l) => l.startsWith('logged out'));
    expect(lines).toEqual([
      `logged out of profile "local": removed ${loggedIn} Grants, cached tokens of ${tokens} Grants, ${refreshTokens} refresh tokens, no stored client secret`,
      'logged out of profile "shop": removed 0 Grants, cached tokens of 0 Grants, the client secret',
      'logged out of profile "sandbox": removed 0 Grants, cached tokens of 0 Grants, the client secret',
    ]);
    const after = await storedKeys();
    expect(after.filter(login)).toEqual([]);
    expect(await cachedTokenRows(home)).toEqual([]);
    expect(after).toEqual(before.filter((k) => !login(k)));
    expect(after).toEqual(expect.arrayContaining(keys));

    const grants = JSON.parse((await svc(['grants', 'list', '--json'])).stdout) as unknown[];
    expect(grants).toEqual([]);
    expect((await svc(['keys', 'list', '--json'])).stdout).toContain(keys.find((k) => k.startsWith('local/private-key/'))!.slice('local/private-key/'.length));
  });
});
