// OAuth end-to-end tests need a loopback redirect URI of their own: the fixture's default
// port (8765) would collide between test files running at once and with a developer's own
// `svc auth login`. This writes a copy of the fixture that also registers a free port.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { freeLoopbackPort } from '../../src/net-port.js';
import { repoRoot, runSvc, svcBin, svcEnv, type SvcHome, type SvcResult, type TempDirs } from './helpers.js';

export const CLIENT_ID = 'app_sandbox_pos';


export interface OAuthFixture {
  path: string;
  redirectUri: string;
  /**
   * More registered redirect URIs, each on a port that was free when the fixture was written:
   * a port free then can be taken (another test's socket) by the time a login listens on it.
   */
  spareRedirectUris: readonly string[];
  clientSecret: string;
}

export async function fixtureWithOwnRedirect(dirs: TempDirs): Promise<OAuthFixture> {
  const fixture = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'sandbox.json'), 'utf8')) as {
    clientApplications: { id: string; redirectUris: string[]; clientSecret: string | null }[];
  };
  const client = fixture.clientApplications.find((a) => a.id === CLIENT_ID);
  if (!client?.clientSecret) throw new Error(`the fixture has no approved ${CLIENT_ID}`);
  const [redirectUri, ...spareRedirectUris] = await Promise.all([0, 1, 2].map(async () => `http://127.0.0.1:${await freeLoopbackPort()}/callback`));
  client.redirectUris.push(redirectUri as string, ...spareRedirectUris);
  const path = join(await dirs.make('svc-fixture-'), 'sandbox.json');
  await writeFile(path, JSON.stringify(fixture));
  return { path, redirectUri: redirectUri as string, spareRedirectUris, clientSecret: client.clientSecret };
}

/**
 * `svc auth login --no-browser` against a sandbox started with --auto-approve, the test
 * playing the browser: it GETs the printed URL and follows the redirect to the CLI's
 * loopback listener. Returns the CLI's output and the code the sandbox issued.
 */
/** Starts `svc auth login --no-browser` and resolves once it has printed the authorization URL. */
export async function startLogin(
  home: SvcHome,
  sandboxUrl: string,
  fixture: OAuthFixture,
  args: readonly string[] = [],
): Promise<{ child: ResultPromise; url: string; stderr(): string; redirectUri: string }> {
  // The next registered redirect URI when the port of one was taken meanwhile (EADDRINUSE).
  for (const [i, redirectUri] of [fixture.redirectUri, ...fixture.spareRedirectUris].entries()) {
    try {
      return await startLoginAt(home, sandboxUrl, redirectUri, args);
    } catch (error) {
      if (!(error instanceof PortTakenError) || i === fixture.spareRedirectUris.length) throw error;
    }
  }
  throw new Error('unreachable');
}

class PortTakenError extends Error {}

async function startLoginAt(home: SvcHome, sandboxUrl: string, redirectUri: string, args: readonly string[]): Promise<{ child: ResultPromise; url: string; stderr(): string; redirectUri: string }> {
  const set = await runSvc(['config', 'set', 'redirect-uri', redirectUri], { home });
  if (set.exitCode !== 0) throw new Error(`config set failed: ${set.stderr}`);
  const child = execa('node', [svcBin, 'auth', 'login', '--no-browser', '--timeout', '60', ...args], {
    env: svcEnv(home, { SVC_BASE_URL: sandboxUrl }),
    extendEnv: false,
    cwd: repoRoot,
    reject: false,
    stdin: 'ignore',
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const line = stderr.split('\n').find((l) => l.startsWith('http'));
      if (line) resolve(line.trim());
    });
    void child.then(() => reject(new (/EADDRINUSE/.test(stderr) ? PortTakenError : Error)(`login ended before printing the URL:\n${stderr}`)));
  });
  return { child, url, stderr: () => stderr, redirectUri };
}

/**
 * A login against a sandbox started with --auto-approve, the test playing the browser: it
 * GETs the printed URL and follows the redirect to the CLI's loopback listener. Returns the
 * CLI's output and the code the sandbox issued.
 */
export async function loginAutoApproved(
  home: SvcHome,
  sandboxUrl: string,
  fixture: OAuthFixture,
  args: readonly string[] = [],
): Promise<{ result: SvcResult; code: string }> {
  const { child, url } = await startLogin(home, sandboxUrl, fixture, args);
  const consent = await fetch(url, { redirect: 'manual' });
  const callback = consent.headers.get('location') ?? '';
  const code = new URL(callback).searchParams.get('code') ?? '';
  await (await fetch(callback)).text();
  const done = await child;
  return {
    result: { exitCode: done.exitCode, signal: done.signal, stdout: String(done.stdout), stderr: String(done.stderr), timedOut: done.timedOut },
    code,
  };
}
