// A CI job whose credentials did not arrive: a secret the job is not given (a pull request
// from a fork, a misspelt secret name) reaches svc as a variable set to the empty string, or
// only half of the client's pair is set. On a runner with no keychain the job must hear
// which variable is at fault (exit 4, "authentication needed"), not that D-Bus cannot be
// reached (exit 1) with a hint to store secrets in a file it never meant to use.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, tempDirs, type SvcHome } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';
import { CLIENT_ID } from './oauth-fixture.js';

const dirs = tempDirs();
let m: Merchant | undefined;
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

/** `svc receipt send` on a fresh runner: no secret store chosen, no D-Bus, a profile of its own. */
async function onRunner(extra: Record<string, string>, baseUrl = 'http://127.0.0.1:9') {
  const receipt = join(repoRoot, 'fixtures', 'receipts', 'groceries.json');
  return runSvc(['receipt', 'send', '--file', receipt, '--email', 'alice@example.com', '--json'], {
    home: await makeSvcHome(dirs),
    env: {
      SVC_SECRET_STORE: undefined,
      DBUS_SESSION_BUS_ADDRESS: undefined,
      HOME: await dirs.make('svc-home-'),
      CI: 'true',
      SVC_PROFILE: 'ci',
      // By default nothing listens there: a command that got as far as a request would exit 8.
      SVC_BASE_URL: baseUrl,
      ...extra,
    },
  });
}

function jsonError(stderr: string): { code: string; message: string; hint: string; exitCode: number } {
  const last = stderr.trim().split('\n').at(-1) ?? '';
  return (JSON.parse(last) as { error: { code: string; message: string; hint: string; exitCode: number } }).error;
}

describe('CI credentials that did not arrive, on a runner with no keychain', () => {
  it('a variable set but empty is named, exit 4: SVC_CLIENT_SECRET, SVC_API_KEY, SVC_TOKEN', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ SVC_CLIENT_ID: 'app_ci', SVC_CLIENT_SECRET: '', SVC_GRANT_ID: 'g-1' }, 'SVC_CLIENT_SECRET is set but empty'],
      [{ SVC_API_KEY: '' }, 'SVC_API_KEY is set but empty'],
      [{ SVC_TOKEN: '' }, 'SVC_TOKEN is set but empty'],
      [{ SVC_CLIENT_ID: '', SVC_CLIENT_SECRET: '', SVC_GRANT_ID: '' }, 'SVC_CLIENT_ID, SVC_CLIENT_SECRET and SVC_GRANT_ID are set but empty'],
    ];
    for (const [env, said] of cases) {
      const run = await onRunner(env);
      expect(run.exitCode, `${JSON.stringify(env)}\n${run.stderr}`).toBe(4);
      expect(run.stdout).toBe('');
      const error = jsonError(run.stderr);
      expect(error.code).toBe('authentication_required');
      expect(error.message).toContain(said);
      expect(error.hint).toContain('pull request from a fork');
      expect(error.hint).toContain('SVC_SECRET_STORE=file');
    }
  }, 60_000);

  it('no credential variable at all: exit 4 naming the variables a job can set, and SVC_SECRET_STORE=file', async () => {
    const run = await onRunner({});
    expect(run.exitCode, run.stderr).toBe(4);
    const error = jsonError(run.stderr);
    expect(error.code).toBe('authentication_required');
    expect(error.message).toContain('no credentials');
    for (const name of ['SVC_API_KEY', 'SVC_CLIENT_SECRET', 'SVC_GRANT_ID', 'SVC_TOKEN']) expect(error.message + error.hint).toContain(name);
    expect(error.hint).toContain('SVC_SECRET_STORE=file');
  });

  it('SVC_CLIENT_ID without SVC_CLIENT_SECRET: the missing half is named, exit 4', async () => {
    const run = await onRunner({ SVC_CLIENT_ID: 'app_ci', SVC_GRANT_ID: 'g-1' });
    expect(run.exitCode, run.stderr).toBe(4);
    const error = jsonError(run.stderr);
    expect(error.message).toContain('SVC_CLIENT_ID is set but SVC_CLIENT_SECRET is not');
    expect(error.hint).toContain('SVC_CLIENT_SECRET');
  });
});

/** `svc credit-note poll` (or ARGS) on a fresh machine whose `local` profile has a secret store (a file; the keychain when there is one). */
async function withStore(extra: Record<string, string>, store: 'file' | 'the local profile\'s own', baseUrl = 'http://127.0.0.1:9', args = ['credit-note', 'poll', '--json'], home?: SvcHome) {
  return runSvc(args, {
    home: home ?? (await makeSvcHome(dirs)),
    env: {
      CI: 'true',
      SVC_BASE_URL: baseUrl,
      // No keychain: the local profile keeps its secrets in a file by itself.
      ...(store === 'file' ? {} : { SVC_SECRET_STORE: undefined, DBUS_SESSION_BUS_ADDRESS: undefined, HOME: await dirs.make('svc-home-') }),
      ...extra,
    },
  });
}

describe('CI credentials that did not arrive, where the profile has a secret store', () => {
  it('a variable set but empty is named, exit 4, never a login CI cannot do', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ SVC_CLIENT_SECRET: '' }, 'SVC_CLIENT_SECRET is set but empty'],
      [{ SVC_API_KEY: '' }, 'SVC_API_KEY is set but empty'],
      [{ SVC_TOKEN: '' }, 'SVC_TOKEN is set but empty'],
      [{ SVC_GRANT_ID: '', SVC_CLIENT_ID: 'app_ci', SVC_CLIENT_SECRET: 'cs_ci' }, 'SVC_GRANT_ID is set but empty'],
    ];
    for (const store of ['file', "the local profile's own"] as const) {
      for (const [env, said] of cases) {
        const run = await withStore(env, store);
        expect(run.exitCode, `${store} ${JSON.stringify(env)}\n${run.stderr}`).toBe(4);
        expect(run.stdout).toBe('');
        const error = jsonError(run.stderr);
        expect(error.code).toBe('authentication_required');
        expect(error.message).toContain(said);
        expect(error.message).not.toContain('svc auth login');
        expect(error.hint).toContain('pull request from a fork');
        expect(run.stderr).not.toContain('cs_ci');
      }
    }
  }, 60_000);

  it('the grants commands too: an empty variable is named, exit 4, never the stored Grants in its place', async () => {
    m ??= await startMerchant(dirs);
    const [grant] = await m.json<{ grant_id: string }[]>(['grants', 'list']);
    const cases: [Record<string, string>, string][] = [
      [{ SVC_API_KEY: '' }, 'SVC_API_KEY is set but empty'],
      [{ SVC_GRANT_ID: '' }, 'SVC_GRANT_ID is set but empty'],
    ];
    for (const args of [['grants', 'list', '--json'], ['grants', 'list', '--details', '--json'], ['grants', 'show', grant!.grant_id, '--json'], ['grants', 'use', grant!.grant_id, '--json']]) {
      for (const [env, said] of cases) {
        const run = await withStore(env, 'file', m.sandbox.url, args, m.home);
        expect(run.exitCode, `${args.join(' ')} ${JSON.stringify(env)}\n${run.stderr}`).toBe(4);
        expect(run.stdout).toBe('');
        const error = jsonError(run.stderr);
        expect(error.code).toBe('authentication_required');
        expect(error.message).toContain(said);
        expect(error.hint).toContain('pull request from a fork');
      }
    }
  }, 60_000);

  it('SVC_CLIENT_ID alone: what is missing is named (the secret and the Grant; the Grant when the secret is the built-in one), exit 4', async () => {
    const alone = await withStore({ SVC_CLIENT_ID: 'app_ci' }, 'file');
    expect(alone.exitCode, alone.stderr).toBe(4);
    expect(jsonError(alone.stderr).message).toContain('SVC_CLIENT_ID is set but SVC_CLIENT_SECRET and SVC_GRANT_ID are not');
    const withGrant = await withStore({ SVC_CLIENT_ID: 'app_ci', SVC_GRANT_ID: 'g-1' }, 'file');
    expect(withGrant.exitCode, withGrant.stderr).toBe(4);
    expect(jsonError(withGrant.stderr).message).toContain('SVC_CLIENT_ID is set but SVC_CLIENT_SECRET is not');
    const builtin = await withStore({ SVC_CLIENT_ID: CLIENT_ID }, 'file');
    expect(builtin.exitCode, builtin.stderr).toBe(4);
    const error = jsonError(builtin.stderr);
    expect(error.message).toContain('SVC_CLIENT_ID is set but SVC_GRANT_ID is not');
    expect(error.hint).toContain('SVC_GRANT_ID');
  });

  it('SVC_GRANT_ID and SVC_CLIENT_ID with SVC_CLIENT_SECRET empty: refused naming it, not run on the built-in sandbox secret', async () => {
    m ??= await startMerchant(dirs);
    const [grant] = await m.json<{ grant_id: string }[]>(['grants', 'list']);
    const run = await withStore({ SVC_GRANT_ID: grant!.grant_id, SVC_CLIENT_ID: CLIENT_ID, SVC_CLIENT_SECRET: '' }, 'file', m.sandbox.url);
    expect(run.exitCode, run.stderr).toBe(4);
    expect(run.stdout).toBe('');
    expect(jsonError(run.stderr).message).toContain('SVC_CLIENT_SECRET is set but empty');
  }, 60_000);
});

describe('CI credentials the service refuses or that name no Grant', () => {
  it('a wrong SVC_CLIENT_SECRET: exit 4 naming the variable, not `svc auth set-secret` (a stored secret would not be used)', async () => {
    m ??= await startMerchant(dirs);
    const [grant] = await m.json<{ grant_id: string }[]>(['grants', 'list']);
    const run = await onRunner({ SVC_CLIENT_ID: CLIENT_ID, SVC_CLIENT_SECRET: 'cs_wrong', SVC_GRANT_ID: grant!.grant_id }, m.sandbox.url);
    expect(run.exitCode, run.stderr).toBe(4);
    const error = jsonError(run.stderr);
    expect(error.message).toContain('SVC_CLIENT_SECRET');
    expect(error.hint).toContain('SVC_CLIENT_SECRET');
    expect(error.hint).not.toContain('svc auth set-secret');
    expect(run.stderr).not.toContain('cs_wrong');
  }, 60_000);

  it('an SVC_GRANT_ID the service does not know: exit 4 naming SVC_GRANT_ID, not a sandbox restart', async () => {
    const run = await onRunner({ SVC_CLIENT_ID: CLIENT_ID, SVC_CLIENT_SECRET: m!.fixture.clientSecret, SVC_GRANT_ID: 'not-a-grant' }, m!.sandbox.url);
    expect(run.exitCode, run.stderr).toBe(4);
    const error = jsonError(run.stderr);
    expect(error.message).toContain('Grant not-a-grant in SVC_GRANT_ID');
    expect(error.message).not.toMatch(/no longer knows|holds data only since/);
    expect(error.hint).toContain('SVC_GRANT_ID');
    expect(run.stderr).not.toContain(m!.fixture.clientSecret);
  });

  it('SVC_CLIENT_ID and SVC_CLIENT_SECRET without SVC_GRANT_ID: exit 4, the hint names SVC_GRANT_ID', async () => {
    const run = await onRunner({ SVC_CLIENT_ID: 'app_ci', SVC_CLIENT_SECRET: 'cs_ci' });
    expect(run.exitCode, run.stderr).toBe(4);
    const error = jsonError(run.stderr);
    expect(error.message).toContain('no Grant');
    expect(error.hint).toContain('SVC_GRANT_ID');
  });
});
