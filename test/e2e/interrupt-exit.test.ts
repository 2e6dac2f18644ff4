// Ctrl-C (SIGINT) is a cancel, exit 3, as `svc help exit-codes` says: a login waiting for its
// browser, a command waiting on the service. Before, Node's default made it 130 (a death by
// signal), so a script could not tell a cancel from a crash.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, startSandbox, svcBin, svcEnv, tempDirs, type SandboxProcess } from './helpers.js';
import { fixtureWithOwnRedirect, startLogin } from './oauth-fixture.js';

describe('Ctrl-C is exit 3 (cancelled), as svc help exit-codes says', () => {
  const dirs = tempDirs();
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandbox(['--fixture', (await fixtureWithOwnRedirect(dirs)).path]);
  });
  afterAll(async () => {
    await sandbox?.stop();
    await dirs.cleanup();
  });

  it('auth login waiting for the browser', async () => {
    const home = await makeSvcHome(dirs);
    const fixture = await fixtureWithOwnRedirect(dirs);
    const login = await startLogin(home, sandbox.url, fixture);
    login.child.kill('SIGINT');
    const result = await login.child;
    expect(result.signal, login.stderr()).toBeUndefined();
    expect(result.exitCode, login.stderr()).toBe(3);
    expect(login.stderr()).toMatch(/interrupted/);
  });

  it('a command waiting for the service (--json: the cancel as a JSON error)', async () => {
    const home = await makeSvcHome(dirs);
    // A listener that accepts and never answers: the command waits on it.
    const { createServer } = await import('node:net');
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const child = execa('node', [svcBin, 'api', 'GET', '/credit-note', '--json'], {
        env: svcEnv(home, { SVC_BASE_URL: `http://127.0.0.1:${port}`, SVC_TOKEN: 'x' }), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore',
      });
      let connected = false;
      silent.on('connection', () => (connected = true));
      for (const deadline = Date.now() + 20_000; !connected; ) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error('svc never reached the service');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      child.kill('SIGINT');
      const result = await child;
      expect(result.exitCode, result.stderr).toBe(3);
      expect(JSON.parse(result.stderr.trim())).toMatchObject({ error: { code: 'cancelled', exitCode: 3 } });
    } finally {
      silent.close();
    }
  });
});
