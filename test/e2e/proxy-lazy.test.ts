// The proxy code (undici's ProxyAgent and svc's transport over it) is loaded only when a
// request goes through a proxy: a command without a proxy variable, or one whose target is
// loopback, pays nothing for it at start-up. Seen from inside the process: the files Node's
// loader compiled (--enable-source-maps makes svc load its bundle through it), listed at exit.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { runSvc, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

/** `svc api GET /x` with a token handed in (one request, no login); the files loaded by its end. */
async function loaded(env: Record<string, string | undefined>): Promise<{ exitCode: number | undefined; stderr: string; files: string[] }> {
  const dir = await dirs.make('svc-lazy-');
  const hook = join(dir, 'hook.cjs');
  const list = join(dir, 'loaded.txt');
  await writeFile(hook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join('\\n')));\n`);
  const run = await runSvc(['api', 'GET', '/x'], {
    env: { SVC_TOKEN: 'not-a-real-token', NODE_OPTIONS: `--enable-source-maps --require ${hook}`, HTTPS_PROXY: undefined, https_proxy: undefined, HTTP_PROXY: undefined, http_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined, ALL_PROXY: undefined, all_proxy: undefined, ...env },
  });
  return { exitCode: run.exitCode, stderr: run.stderr, files: (await readFile(list, 'utf8')).split('\n') };
}

const proxyCode = (files: string[]) => files.filter((f) => /undici/.test(f));

describe('the proxy code at start-up', () => {
  it('not loaded without a proxy variable, nor for a loopback target with one; loaded when a request goes through the proxy', async () => {
    const closed = `http://127.0.0.1:${await freeLoopbackPort()}`;
    const direct = await loaded({ SVC_BASE_URL: closed });
    expect(direct.exitCode, direct.stderr).toBe(8);
    expect(direct.files.length).toBeGreaterThan(10);
    expect(proxyCode(direct.files)).toEqual([]);

    const loopback = await loaded({ SVC_BASE_URL: closed, HTTPS_PROXY: closed, HTTP_PROXY: closed });
    expect(loopback.exitCode, loopback.stderr).toBe(8);
    expect(loopback.stderr).toContain('cannot reach the service');
    expect(proxyCode(loopback.files)).toEqual([]);

    const proxied = await loaded({ SVC_BASE_URL: 'https://svc.example', HTTPS_PROXY: closed });
    expect(proxied.exitCode, proxied.stderr).toBe(8);
    expect(proxied.stderr).toContain(`cannot reach the proxy ${closed}`);
    expect(proxyCode(proxied.files)).not.toEqual([]);
  });
});
