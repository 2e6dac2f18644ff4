// OAuth end-to-end tests need a loopback redirect URI of their own: the fixture's default
// port (8765) would collide between test files running at once and with a developer's own
// `svc auth login`. This writes a copy of the fixture that also registers a free port.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { repoRoot, type TempDirs } from './helpers.js';

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
