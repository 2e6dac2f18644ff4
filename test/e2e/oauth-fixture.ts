// OAuth end-to-end tests need a loopback redirect URI of their own: the fixture's default
// port (8765) would collide between test files running at once and with a developer's own
// `svc auth login`. This writes a copy of the fixture that also registers a free port.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { repoRoot, runSvc, svcBin, svcEnv, type SvcHome, type SvcResult, type TempDirs } from './helpers.js';

export const CLIENT_ID = 'app_sandbox_pos';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface OAuthFixture {
  path: string;
  redirectUri: string;
  clientSecret: string;
}

export async function fixtureWithOwnRedirect(dirs: TempDirs): Promise<OAuthFixture> {
  const fixture = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'sandbox.json'), 'utf8')) as {
    clientApplications: { id: string; redirectUris: string[]; clientSecret: string | null }[];
  };
  const client = fixture.clientApplications.find((a) => a.id === CLIENT_ID);
  if (!client?.clientSecret) throw new Error(`the fixture has no approved ${CLIENT_ID}`);
  const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  client.redirectUris.push(redirectUri);
  const path = join(await dirs.make('svc-fixture-'), 'sandbox.json');
  await writeFile(path, JSON.stringify(fixture));
  return { path, redirectUri, clientSecret: client.clientSecret };
}

/**
 * `svc auth login --no-browser` against a sandbox started with --auto-approve, the test
 * playing the browser: it GETs the printed URL and follows the redirect to the CLI's
 * loopback listener. Returns the CLI's output and the code the sandbox issued.
 */
export async function loginAutoApproved(
  home: SvcHome,
  sandboxUrl: string,
  fixture: OAuthFixture,
  args: readonly string[] = [],
): Promise<{ result: SvcResult; code: string }> {
  const set = await runSvc(['config', 'set', 'redirect-uri', fixture.redirectUri], { home });
  if (set.exitCode !== 0) throw new Error(`config set failed: ${set.stderr}`);
  const child = execa('node', [svcBin, 'auth', 'login', '--no-browser', '--timeout', '30', ...args], {
    env: svcEnv(home, { SVC_BASE_URL: sandboxUrl }),
    extendEnv: false,
    cwd: repoRoot,
    reject: false,
    stdin: 'ignore',
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const line = stderr.split('\n').find((l) => l.startsWith('http'));
      if (line) resolve(line.trim());
    });
    void child.then(() => reject(new Error(`login ended early:\n${stderr}`)));
  });
  const consent = await fetch(url, { redirect: 'manual' });
  const callback = consent.headers.get('location') ?? '';
  const code = new URL(callback).searchParams.get('code') ?? '';
  await (await fetch(callback)).text();
  const done = await child;
  return {
    result: { exitCode: done.exitCode, signal: done.signal, stdout: done.stdout, stderr: done.stderr, timedOut: done.timedOut },
    code,
  };
}
