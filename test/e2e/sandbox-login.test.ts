// CI logins: `svc sandbox login` against a sandbox started with --auto-approve (the real
// grant flow through svc's own loopback listener, no browser), refused elsewhere; and
// `svc auth login` failing at once when nobody can approve or the service does not answer.
import { symlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { makeSvcHome, runSvc, startSandbox, svcEnv, tempDirs, type SandboxProcess } from './helpers.js';
import { fixtureWithOwnRedirect, type OAuthFixture } from './oauth-fixture.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const dirs = tempDirs();
let auto: SandboxProcess;
let manual: SandboxProcess;
let fixture: OAuthFixture;
beforeAll(async () => {
  fixture = await fixtureWithOwnRedirect(dirs);
  auto = await startSandbox(['--fixture', fixture.path, '--auto-approve']);
  manual = await startSandbox(['--fixture', fixture.path]);
});
afterAll(async () => {
  await auto?.stop();
  await manual?.stop();
  await dirs.cleanup();
});

async function homeWithRedirect() {
  const home = await makeSvcHome(dirs);
  const set = await runSvc(['config', 'set', 'redirect-uri', fixture.redirectUri], { home });
  expect(set.exitCode, set.stderr).toBe(0);
  return home;
}

describe('svc sandbox login', () => {
  it('under CI=true: exit 0 with the Grants stored, and the profile works', async () => {
    const home = await homeWithRedirect();
    const login = await runSvc(['sandbox', 'login'], { home, env: { SVC_BASE_URL: auto.url, CI: 'true' } });
    expect(login.exitCode, login.stderr).toBe(0);
    // Nobody is asked to open anything: the sandbox approves by itself.
    expect(login.stderr).toContain('The sandbox approved this at once');
    expect(login.stderr).not.toMatch(/open this URL in a browser|opened it in your browser/);
    const grants = await runSvc(['grants', 'list', '--json'], { home, env: { SVC_BASE_URL: auto.url } });
    expect((JSON.parse(grants.stdout) as unknown[]).length).toBeGreaterThan(0);
    const check = await runSvc(['auth', 'status', '--check'], { home, env: { SVC_BASE_URL: auto.url } });
    expect(check.exitCode, check.stdout + check.stderr).toBe(0);
  });

  it("--debug: the redirect's Location shows the code and state redacted, as the token exchange does", async () => {
    const login = await runSvc(['sandbox', 'login', '--debug'], { home: await homeWithRedirect(), env: { SVC_BASE_URL: auto.url, CI: 'true' } });
    expect(login.exitCode, login.stderr).toBe(0);
    const location = login.stderr.split('\n').find((line) => /^< location: /i.test(line));
    expect(location, login.stderr).toBeDefined();
    expect(location).toContain('code=[redacted]');
    expect(location).toContain('state=[redacted]');
    // No line of the trace carries a code or state other than redacted.
    expect(login.stderr).not.toMatch(/[?&#](code|state)=(?!\[redacted\])/);
  });

  it('a sandbox without --auto-approve: exit 2 naming the flag', async () => {
    const login = await runSvc(['sandbox', 'login', '--timeout', '5'], { home: await homeWithRedirect(), env: { SVC_BASE_URL: manual.url, CI: 'true' } });
    expect(login.exitCode).toBe(2);
    expect(login.stderr).toContain('svc sandbox start --auto-approve');
    // Nothing said of an approval that did not happen.
    expect(login.stderr).not.toMatch(/approve[sd] this at once/);
  });

  it('a service that is not a sandbox: refused (exit 2)', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not_found","error_description":"no such path"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const login = await runSvc(['sandbox', 'login'], { home: await homeWithRedirect(), env: { SVC_BASE_URL: url, CI: 'true' } });
      expect(login.exitCode).toBe(2);
      expect(login.stderr).toContain('is not a svc sandbox');
    } finally {
      server.close();
    }
  });
});

describe('svc sandbox login holds no port', () => {
  it('eight at once in eight profiles all succeed, while something else holds the redirect URI\'s port and never answers', async () => {
    // What a hung login (or anything else) would do to a fixed callback port.
    const squatter = createServer(() => undefined);
    await new Promise<void>((resolve) => squatter.listen(Number(new URL(fixture.redirectUri).port), '127.0.0.1', resolve));
    try {
      const homes = await Promise.all(Array.from({ length: 8 }, () => homeWithRedirect()));
      const logins = await Promise.all(homes.map((home) => runSvc(['sandbox', 'login'], { home, env: { SVC_BASE_URL: auto.url, CI: 'true' }, timeout: 90_000 })));
      for (const login of logins) expect(login.exitCode, login.stderr).toBe(0);
      const grants = await Promise.all(homes.map(async (home) => JSON.parse((await runSvc(['grants', 'list', '--json'], { home, env: { SVC_BASE_URL: auto.url } })).stdout) as unknown[]));
      for (const list of grants) expect(list.length).toBeGreaterThan(0);
    } finally {
      squatter.close();
    }
  });

  it('--port N the sandbox has not registered: says so, not that a person is asked to approve', async () => {
    const login = await runSvc(['sandbox', 'login', '--port', String(await freeLoopbackPort())], { home: await homeWithRedirect(), env: { SVC_BASE_URL: auto.url, CI: 'true' } });
    expect(login.exitCode).toBe(2);
    expect(login.stderr).toContain('Redirect URI not registered');
    expect(login.stderr).not.toContain('a person is asked to approve');
  });
});

describe('svc auth login with nobody to approve', () => {
  it('under CI=true without --no-browser: exit 2 at once, naming the alternatives', async () => {
    const started = Date.now();
    const login = await runSvc(['auth', 'login'], { home: await homeWithRedirect(), env: { SVC_BASE_URL: auto.url, CI: 'true' } });
    expect(login.exitCode).toBe(2);
    expect(login.stderr).toContain('svc sandbox login');
    expect(login.stderr).toContain('--no-browser');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  // A terminal on a machine with no browser to start (no xdg-open on PATH): the URL to open
  // is printed, and the failure says to open it, as gh does; not the spawn error alone.
  it('on a terminal with no browser to open: the URL on a line of its own, and what to do with it', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const home = await homeWithRedirect();
    const bin = await dirs.make('svc-node-only-');
    await symlink(process.execPath, join(bin, 'node'));
    const term = svcInTerminal('svc-login-no-browser', ['auth', 'login', '--timeout', '3'], svcEnv(home, { SVC_BASE_URL: manual.url, PATH: bin }), [120, 30]);
    try {
      await term.waitFor(/SVC-EXIT=\d+/, 'the end of the login', 30_000);
      const text = term.text();
      expect(text).toMatch(/To approve svc, open this URL in a browser:\n(http:\/\/127\.0\.0\.1:\d+\/oauth2\/authorize\?\S+)\n/);
      expect(text).toMatch(/^could not open a browser \(.+\): open the URL above yourself$/m);
    } finally {
      term.kill();
    }
  });

  it('a service that does not answer: exit 8 at once, before anyone is asked to approve', async () => {
    const login = await runSvc(['auth', 'login', '--no-browser'], { home: await homeWithRedirect(), env: { SVC_BASE_URL: `http://127.0.0.1:${await freeLoopbackPort()}` } });
    expect(login.exitCode).toBe(8);
    expect(login.stderr).not.toContain('Open this URL');
  });
});
