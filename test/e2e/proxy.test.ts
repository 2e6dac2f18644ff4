// Proxies from the environment, as curl, npm and gh take them. The service is reached by a
// name only the proxy knows (svc.test, mapped to a TLS front before the sandbox, with a CA of
// the test's own): without the proxy nothing works, as on a network where only the proxy gets
// out. Every request goes through it (the token request, the queue, sandbox login's approval),
// loopback never does, NO_PROXY is obeyed, credentials come from the proxy URL and are never
// shown, and a proxy that is down or wants credentials is named as such.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { startConnectProxy, type ConnectProxy } from './connect-proxy.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { execa } from 'execa';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';
import { CLIENT_ID } from './oauth-fixture.js';
import { makePrivateCa, type PrivateCa } from './private-ca.js';
import { requireTools } from './require-tools.js';

const { merchant, dirs } = useMerchant();
const missing = requireTools(['openssl']);
let tls: FaultProxy;
let caFile: string;
let ca: PrivateCa;
let serviceUrl: string;
let open: ConnectProxy;
let guarded: ConnectProxy;
let grantId: string;
let keyFile: string;
const PASSWORD = 'p@ss:w0rd';

beforeAll(async () => {
  if (missing) return;
  ca = await makePrivateCa(await dirs.make('svc-ca-'), ['svc.test']);
  caFile = ca.caFile;
  tls = await startFaultProxy(merchant().sandbox.url, undefined, { tls: ca.valid, host: 'localhost' });
  const port = new URL(tls.url).port;
  serviceUrl = `https://svc.test:${port}`;
  const routes = { [`svc.test:${port}`]: `127.0.0.1:${port}` };
  open = await startConnectProxy({ routes });
  guarded = await startConnectProxy({ routes, credentials: { user: 'alice', password: PASSWORD } });
  const [grant] = await merchant().json<{ grant_id: string }[]>(['grants', 'list']);
  if (!grant) throw new Error('the merchant has no Grant');
  grantId = grant.grant_id;
  const seed = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'sandbox.json'), 'utf8')) as { companies: { encryptionKey: { privateKeyPem: string } | null }[] };
  keyFile = join(await dirs.make('svc-key-'), 'company.pem');
  await writeFile(keyFile, seed.companies[0]?.encryptionKey?.privateKeyPem ?? '', { mode: 0o600 });
});
afterAll(async () => {
  await tls?.close();
  await open?.close();
  await guarded?.close();
});

/** `svc ARGS` with client credentials from the environment (a token request on every run) and the CA trusted. */
async function svc(args: string[], env: Record<string, string | undefined>) {
  return runSvc(args, { home: await makeSvcHome(dirs), env: svcVariables(env) });
}

function svcVariables(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return {
      SVC_BASE_URL: serviceUrl,
      SVC_CLIENT_ID: CLIENT_ID,
      SVC_CLIENT_SECRET: merchant().fixture.clientSecret,
      SVC_GRANT_ID: grantId,
      SVC_PRIVATE_KEY_FILE: keyFile,
      NODE_EXTRA_CA_CERTS: caFile,
      HTTPS_PROXY: undefined,
      https_proxy: undefined,
      HTTP_PROXY: undefined,
      http_proxy: undefined,
      NO_PROXY: undefined,
      no_proxy: undefined,
      ALL_PROXY: undefined,
      all_proxy: undefined,
      ...env,
  };
}

const target = () => `svc.test:${new URL(serviceUrl).port}`;

describe('a CONNECT proxy from the environment', () => {
  it('without it the service is out of reach (the name resolves nowhere else)', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const run = await svc(['credit-note', 'poll'], {});
    expect(run.exitCode).toBe(8);
    expect(run.stderr).toContain(`cannot reach the service at ${serviceUrl} (ENOTFOUND: no such host)`);
  });

  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'ALL_PROXY']) {
    it(`${name}: every request goes through it`, async (ctx) => {
      if (missing) return ctx.skip(missing);
      const before = open.connects.length;
      const run = await svc(['credit-note', 'poll', '--json'], { [name]: open.url });
      expect(run.exitCode, run.stderr).toBe(0);
      // The token request and the queue go through tunnels to the service and nowhere else:
      // one kept alive for both, or a second when the queue is asked for before the agent has
      // the first connection back (a matter of timing, not of where requests go).
      const tunnels = open.connects.slice(before);
      expect(tunnels.length).toBeGreaterThanOrEqual(1);
      expect(tunnels.length).toBeLessThanOrEqual(2);
      expect(new Set(tunnels)).toEqual(new Set([target()]));
      expect(tls.seen.some((r) => r.method === 'POST' && r.path === '/oauth2/token')).toBe(true);
    });
  }

  it('through the proxy, the private CA given by SVC_CA_FILE is trusted too', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const before = open.connects.length;
    const run = await svc(['credit-note', 'poll', '--json'], { HTTPS_PROXY: open.url, NODE_EXTRA_CA_CERTS: undefined, SVC_CA_FILE: caFile });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(open.connects.length - before).toBeGreaterThanOrEqual(1);
    expect(open.connects.length - before).toBeLessThanOrEqual(2);
  });

  it('an https:// proxy with a certificate of the private CA: trusted through SVC_CA_FILE as the service is; untrusted, the message names the proxy', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const secure = await startConnectProxy({ routes: { [target()]: `127.0.0.1:${new URL(serviceUrl).port}` }, tls: ca.valid });
    try {
      const run = await svc(['credit-note', 'poll', '--json'], { HTTPS_PROXY: secure.url, NODE_EXTRA_CA_CERTS: undefined, SVC_CA_FILE: caFile });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(secure.connects.length).toBeGreaterThanOrEqual(1);
      const untrusted = await svc(['credit-note', 'poll'], { HTTPS_PROXY: secure.url, NODE_EXTRA_CA_CERTS: undefined });
      expect(untrusted.exitCode, untrusted.stderr).toBe(1);
      expect(untrusted.stderr).toContain(`the certificate of the proxy ${secure.url} is not trusted`);
      // https:// given for a proxy that speaks plain HTTP: the proxy named, its scheme the hint.
      const plain = await svc(['credit-note', 'poll'], { HTTPS_PROXY: open.url.replace('http://', 'https://') });
      expect(plain.exitCode, plain.stderr).toBe(1);
      expect(plain.stderr).toContain(`no TLS connection with the proxy ${open.url.replace('http://', 'https://')}`);
      expect(plain.stderr).toContain('check HTTPS_PROXY: its scheme');
    } finally {
      await secure.close();
    }
  });

  it('credentials in the proxy URL are sent, and shown nowhere (not even with --debug)', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const before = guarded.connects.length;
    const run = await svc(['credit-note', 'poll', '--json', '--debug'], { HTTPS_PROXY: `http://alice:${encodeURIComponent(PASSWORD)}@127.0.0.1:${guarded.port}` });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(guarded.connects.length - before).toBeGreaterThanOrEqual(1);
    expect(guarded.connects.length - before).toBeLessThanOrEqual(2);
    expect(guarded.refused()).toBe(0);
    // --debug says which way each request went, naming the proxy without its credentials.
    expect(run.stderr).toContain(`* through the proxy http://127.0.0.1:${guarded.port}`);
    for (const shown of [PASSWORD, encodeURIComponent(PASSWORD), Buffer.from(`alice:${PASSWORD}`).toString('base64')]) {
      expect(run.stderr).not.toContain(shown);
      expect(run.stdout).not.toContain(shown);
    }
  });

  it('a user name without a password (a token as the user, as some proxies take it): sent as curl sends it, user:', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const tokenProxy = await startConnectProxy({ routes: { [target()]: `127.0.0.1:${new URL(serviceUrl).port}` }, credentials: { user: 'tok3n', password: '' } });
    try {
      const run = await svc(['credit-note', 'poll', '--json'], { HTTPS_PROXY: `http://tok3n@127.0.0.1:${tokenProxy.port}` });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(tokenProxy.refused()).toBe(0);
      expect(tokenProxy.connects.length).toBeGreaterThanOrEqual(1);
      expect(run.stderr).not.toContain('tok3n');
    } finally {
      await tokenProxy.close();
    }
  });

  it('407 (no or wrong credentials): names the proxy and how to give them, exit 1, asked once', async (ctx) => {
    if (missing) return ctx.skip(missing);
    for (const proxy of [guarded.url, `http://alice:wrong@127.0.0.1:${guarded.port}`]) {
      const before = guarded.connects.length;
      const seen = tls.seen.length;
      const run = await svc(['credit-note', 'poll', '--debug'], { HTTPS_PROXY: proxy });
      expect(run.exitCode, run.stderr).toBe(1);
      // The trace says what happened in svc's words, not undici's (UND_ERR_ABORTED).
      expect(run.stderr).toMatch(/! POST \/oauth2\/token failed after \d+ ms: the proxy answered 407\n/);
      expect(run.stderr).not.toContain('UND_ERR');
      expect(run.stderr).toContain(`the proxy ${guarded.url} wants credentials (407 Proxy Authentication Required) to reach ${serviceUrl}`);
      expect(run.stderr).toContain('HTTPS_PROXY=http://user:password@host:port');
      expect(run.stderr).not.toContain('wrong');
      // The first request (the token's) is refused, and no retry mends a 407.
      expect(guarded.connects.length - before).toBe(1);
      expect(tls.seen.length).toBe(seen);
    }
  });

  it('down: names the proxy, not the service, exit 8', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const closed = `http://127.0.0.1:${await freeLoopbackPort()}`;
    const run = await svc(['credit-note', 'poll'], { HTTPS_PROXY: `http://bob:secret@${closed.slice('http://'.length)}` });
    expect(run.exitCode, run.stderr).toBe(8);
    // Tried as a refused connection is anywhere but this machine's own service port: 4 times.
    expect(run.stderr).toContain(`cannot reach the proxy ${closed} for ${serviceUrl} (ECONNREFUSED) after 4 attempts`);
    expect(run.stderr).toContain('HTTPS_PROXY');
    expect(run.stderr).not.toContain('secret');
    // Given by ALL_PROXY alone, the hint names ALL_PROXY (it named HTTPS_PROXY / HTTP_PROXY, neither of them set).
    const all = await svc(['credit-note', 'poll'], { ALL_PROXY: closed });
    expect(all.exitCode, all.stderr).toBe(8);
    expect(all.stderr).toContain(`cannot reach the proxy ${closed} for ${serviceUrl}`);
    expect(all.stderr).toContain('check ALL_PROXY (is the proxy running?)');
  });

  it('cannot reach the service itself (502 to CONNECT): tried again, then exit 8 naming the proxy and its answer', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const unknown = 'https://unknown.test:1';
    const before = open.connects.length;
    const run = await svc(['credit-note', 'poll'], { SVC_BASE_URL: unknown, HTTPS_PROXY: open.url });
    expect(run.exitCode, run.stderr).toBe(8);
    expect(run.stderr).toContain(`the proxy ${open.url} could not connect to ${unknown} (502 Bad Gateway) after 4 attempts`);
    expect(open.connects.slice(before)).toEqual(Array(4).fill('unknown.test:1'));
  });

  it('takes the connection and never answers the CONNECT: no hang, exit 8 naming the proxy, 4 attempts of SVC_HTTP_TIMEOUT', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const accepted: Socket[] = [];
    const mute = createServer((socket) => void accepted.push(socket.on('error', () => undefined)));
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(mute.address() as AddressInfo).port}`;
    try {
      const started = Date.now();
      const run = await svc(['credit-note', 'poll'], { HTTPS_PROXY: url, SVC_HTTP_TIMEOUT: '1' });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(run.exitCode, run.stderr).toBe(8);
      expect(run.stderr).toContain(`cannot reach the proxy ${url} for ${serviceUrl} (no answer within 1 s) after 4 attempts`);
      expect(accepted).toHaveLength(4);
      // On a terminal, the line after the first silence names the proxy, not the service.
      const tty = requireTools(['script']);
      if (tty === undefined) {
        const onTerminal = await execa('script', ['-qec', `stty cols 100 rows 40; exec node ${svcBin} credit-note poll`, '/dev/null'], {
          env: svcEnv(await makeSvcHome(dirs), { ...svcVariables({ HTTPS_PROXY: url, SVC_HTTP_TIMEOUT: '1' }), TERM: 'xterm-256color' }),
          extendEnv: false,
          reject: false,
          stdin: 'ignore',
          timeout: 30_000,
        });
        expect(onTerminal.exitCode).toBe(8);
        expect(String(onTerminal.stdout)).toContain(`no answer from the proxy ${url} after 1 s, trying again (2 of 4)`);
      }
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => mute.close(resolve));
    }
  }, 60_000);

  it('NO_PROXY naming the host (or *, .suffix, host:port): not proxied', async (ctx) => {
    if (missing) return ctx.skip(missing);
    for (const noProxy of ['svc.test', '*', '.test', `example.com,${target()}`]) {
      const before = open.connects.length;
      const run = await svc(['credit-note', 'poll'], { HTTPS_PROXY: open.url, NO_PROXY: noProxy });
      expect(run.exitCode, `${noProxy}: ${run.stderr}`).toBe(8);
      expect(run.stderr).toContain('ENOTFOUND');
      expect(open.connects.length - before).toBe(0);
    }
    const before = open.connects.length;
    const other = await svc(['credit-note', 'poll', '--json'], { HTTPS_PROXY: open.url, NO_PROXY: 'svc.test:1,other.test' });
    expect(other.exitCode, other.stderr).toBe(0);
    expect(open.connects.length - before).toBeGreaterThanOrEqual(1);
    expect(open.connects.length - before).toBeLessThanOrEqual(2);
  });

  it('loopback is never proxied: the sandbox on this machine is reached directly', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const before = open.connects.length;
    const run = await svc(['credit-note', 'poll', '--json'], { SVC_BASE_URL: merchant().sandbox.url, HTTPS_PROXY: open.url, HTTP_PROXY: open.url });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(open.connects.length - before).toBe(0);
  });

  it('sandbox login: the approval step goes through the proxy too (the listener on loopback does not)', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const home = await makeSvcHome(dirs);
    const set = await runSvc(['config', 'set', 'redirect-uri', merchant().fixture.redirectUri], { home });
    expect(set.exitCode, set.stderr).toBe(0);
    const seen = tls.seen.length;
    const run = await runSvc(['sandbox', 'login'], { home, env: { SVC_BASE_URL: serviceUrl, HTTPS_PROXY: open.url, NODE_EXTRA_CA_CERTS: caFile, CI: 'true' } });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(tls.seen.slice(seen).map((r) => r.path.split('?')[0])).toContain('/oauth2/authorize');
  });

  it("sandbox login: a refusal's page (the sandbox's reason) is read through the proxy too", async (ctx) => {
    if (missing) return ctx.skip(missing);
    const home = await makeSvcHome(dirs);
    const set = await runSvc(['config', 'set', 'redirect-uri', 'http://127.0.0.1:9/not-registered'], { home });
    expect(set.exitCode, set.stderr).toBe(0);
    const before = open.connects.length;
    const run = await runSvc(['sandbox', 'login'], { home, env: { SVC_BASE_URL: serviceUrl, HTTPS_PROXY: open.url, NODE_EXTRA_CA_CERTS: caFile, CI: 'true' } });
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toContain('the sandbox refused the authorization request (400: Redirect URI not registered)');
    expect(new Set(open.connects.slice(before))).toEqual(new Set([target()]));
  });
});
