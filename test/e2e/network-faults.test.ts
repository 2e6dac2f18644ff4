// One glitch must not fail a command where trying again is safe: a fault-injecting front
// (fault-proxy.ts) before the merchant's sandbox, counting what reaches it. The token request
// (client credentials, on every run here: no cache without a keychain), the queue download
// broken or stalled half-way, silence, compressed answers, redirects, a long Retry-After and
// the sandbox-login approval step.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv } from './helpers.js';
import { startFaultProxy, type Fault, type FaultProxy, type FaultRequest } from './fault-proxy.js';
import { useMerchant } from './merchant.js';
import { CLIENT_ID } from './oauth-fixture.js';
import { requireTools } from './require-tools.js';

const { merchant, dirs } = useMerchant();
let grantId: string;
const proxies: FaultProxy[] = [];
beforeAll(async () => {
  const [grant] = await merchant().json<{ grant_id: string }[]>(['grants', 'list']);
  if (!grant) throw new Error('the merchant has no Grant');
  grantId = grant.grant_id;
  // A return request, so that the queue's answer has a body to break.
  const { serviceReceiptId } = await merchant().json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await merchant().newReceiptFile(), '--email', 'alice@example.com']);
  await merchant().svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
});
afterAll(() => Promise.all(proxies.map((p) => p.close())));

async function front(fault: (req: FaultRequest) => Fault | undefined): Promise<FaultProxy> {
  const proxy = await startFaultProxy(merchant().sandbox.url, fault);
  proxies.push(proxy);
  return proxy;
}

/** `svc ARGS` through `proxy` with client credentials from the environment: a token request on every run. */
async function svcVia(proxy: FaultProxy, args: string[], env: Record<string, string> = {}) {
  return runSvc(args, {
    home: await makeSvcHome(dirs),
    env: {
      SVC_BASE_URL: proxy.url,
      SVC_CLIENT_ID: CLIENT_ID,
      SVC_CLIENT_SECRET: merchant().fixture.clientSecret,
      SVC_GRANT_ID: grantId,
      SVC_PRIVATE_KEY_FILE: await privateKeyFile(),
      ...env,
    },
  });
}

let keyFile: string | undefined;
async function privateKeyFile(): Promise<string> {
  if (keyFile) return keyFile;
  const seed = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'sandbox.json'), 'utf8')) as { companies: { encryptionKey: { privateKeyPem: string } | null }[] };
  const pem = seed.companies[0]?.encryptionKey?.privateKeyPem;
  if (!pem) throw new Error('the fixture company has no encryption key');
  const file = join(await dirs.make('svc-key-'), 'company.pem');
  await (await import('node:fs/promises')).writeFile(file, pem, { mode: 0o600 });
  return (keyFile = file);
}

const once = (method: string, path: string, fault: Fault) => (req: FaultRequest) =>
  req.method === method && req.path.split('?')[0] === path && req.attempt === 1 ? fault : undefined;

describe('the client-credentials token request', () => {
  for (const fault of [{ kind: 'status', status: 503 }, { kind: 'reset' }] as const) {
    it(`a ${fault.kind === 'reset' ? 'reset' : '503'} once: asked again, and the command succeeds`, async () => {
      const proxy = await front(once('POST', '/oauth2/token', fault));
      const run = await svcVia(proxy, ['credit-note', 'poll', '--json']);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(proxy.attempts('POST', '/oauth2/token')).toBe(2);
      expect(proxy.attempts('GET', '/credit-note')).toBe(1);
    });
  }

  it('a 503 on every attempt: 4 attempts, then exit 8 naming the token request', async () => {
    const proxy = await front((req) => (req.path === '/oauth2/token' ? { kind: 'status', status: 503 } : undefined));
    const run = await svcVia(proxy, ['credit-note', 'poll']);
    expect(run.exitCode, run.stderr).toBe(8);
    expect(run.stderr).toContain('after 4 attempts (POST /oauth2/token) [503 http_503]');
    expect(proxy.attempts('POST', '/oauth2/token')).toBe(4);
    expect(proxy.attempts('GET', '/credit-note')).toBe(0);
  });
});

describe('credit-note poll, the download broken half-way', () => {
  it('reset mid-body once: downloaded again, the queue shown whole', async () => {
    const proxy = await front(once('GET', '/credit-note', { kind: 'cut' }));
    const run = await svcVia(proxy, ['credit-note', 'poll', '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as unknown[]).length).toBeGreaterThan(0);
    expect(proxy.attempts('GET', '/credit-note')).toBe(2);
  });

  it('stalled mid-body once (SVC_HTTP_TIMEOUT=1): downloaded again after 1 s of silence', async () => {
    const proxy = await front(once('GET', '/credit-note', { kind: 'stall' }));
    const run = await svcVia(proxy, ['credit-note', 'poll', '--json'], { SVC_HTTP_TIMEOUT: '1' });
    expect(run.exitCode, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as unknown[]).length).toBeGreaterThan(0);
    expect(proxy.attempts('GET', '/credit-note')).toBe(2);
  });
});

describe('silence', () => {
  it('4 attempts of SVC_HTTP_TIMEOUT each, then exit 8 saying how long it waited, in words', async () => {
    const proxy = await front((req) => (req.path.startsWith('/credit-note') ? { kind: 'silence' } : undefined));
    const run = await svcVia(proxy, ['credit-note', 'poll'], { SVC_HTTP_TIMEOUT: '1' });
    expect(run.exitCode, run.stderr).toBe(8);
    expect(run.stderr).toContain(`cannot reach the service at ${proxy.url} (no answer within 1 s) after 4 attempts`);
    expect(run.stderr).not.toContain('UND_ERR');
    // The service took the connection: it is running, only slow; the hint is the setting.
    expect(run.stderr).toContain('SVC_HTTP_TIMEOUT=');
    expect(run.stderr).not.toContain('is the sandbox running');
    expect(proxy.attempts('GET', '/credit-note')).toBe(4);
  });

  it('SVC_HTTP_TIMEOUT that is not a number of seconds: exit 2 naming it', async () => {
    const proxy = await front(() => undefined);
    const run = await svcVia(proxy, ['credit-note', 'poll'], { SVC_HTTP_TIMEOUT: 'soon' });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('SVC_HTTP_TIMEOUT: "soon" is not a number of seconds');
    expect(proxy.seen).toHaveLength(0);
  });

  it('on a terminal, the first retry of a slow request says so on stderr', async (ctx) => {
    const missing = requireTools(['script']);
    if (missing) return ctx.skip(missing);
    const proxy = await front(once('GET', '/credit-note', { kind: 'silence' }));
    const env = svcEnv(await makeSvcHome(dirs), {
      SVC_BASE_URL: proxy.url,
      SVC_CLIENT_ID: CLIENT_ID,
      SVC_CLIENT_SECRET: merchant().fixture.clientSecret,
      SVC_GRANT_ID: grantId,
      SVC_PRIVATE_KEY_FILE: await privateKeyFile(),
      SVC_HTTP_TIMEOUT: '1',
      TERM: 'xterm-256color',
    });
    const command = `stty cols 100 rows 40; exec node ${svcBin} credit-note poll --json`;
    const run = await execa('script', ['-qec', command, '/dev/null'], { env, extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', timeout: 30_000 });
    expect(run.exitCode, String(run.stdout)).toBe(0);
    const host = new URL(proxy.url).host;
    expect(String(run.stdout)).toContain(`no answer from ${host} after 1 s, trying again (2 of 4)`);
    expect(proxy.attempts('GET', '/credit-note')).toBe(2);
  });
});

describe('compressed answers', () => {
  for (const encoding of ['gzip', 'br'] as const) {
    it(`${encoding}: asked for, and poll and svc api read it decompressed`, async () => {
      const proxy = await front((req) => (req.path.startsWith('/credit-note') ? { kind: 'encode', encoding } : undefined));
      const polled = await svcVia(proxy, ['credit-note', 'poll', '--json']);
      expect(proxy.seen.find((r) => r.path.startsWith('/credit-note'))?.headers['accept-encoding']).toBe('gzip, br');
      expect(polled.exitCode, polled.stderr).toBe(0);
      expect((JSON.parse(polled.stdout) as unknown[]).length).toBeGreaterThan(0);
      const api = await svcVia(proxy, ['api', 'GET', '/credit-note']);
      expect(api.exitCode, api.stderr).toBe(0);
      expect(Array.isArray(JSON.parse(api.stdout))).toBe(true);
      // One attempt each: a compressed answer is an answer, not a failure retried.
      expect(proxy.attempts('GET', '/credit-note')).toBe(2);
    });
  }
});

describe('an answer labelled compressed that does not decompress', () => {
  it('poll and svc api: an unexpected answer (exit 1) saying so, not "cannot reach the service", asked once', async () => {
    const proxy = await front((req) => (req.path.startsWith('/credit-note') ? { kind: 'garble' } : undefined));
    for (const args of [['credit-note', 'poll'], ['api', 'GET', '/credit-note']]) {
      const before = proxy.attempts('GET', '/credit-note');
      const run = await svcVia(proxy, args);
      expect(run.exitCode, run.stderr).toBe(1);
      expect(run.stderr).toContain('unexpected response from the service for GET /credit-note: its body (content-encoding gzip) does not decompress');
      expect(run.stderr).not.toContain('cannot reach');
      expect(proxy.attempts('GET', '/credit-note') - before).toBe(1);
    }
  });
});

describe('redirects', () => {
  it('to the same origin, for a read: followed', async () => {
    const proxy = await front((req) => (req.path === '/credit-note' ? { kind: 'status', status: 301, headers: { location: '/credit-note?moved=1' } } : undefined));
    const run = await svcVia(proxy, ['credit-note', 'poll', '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(proxy.seen.filter((r) => r.path.startsWith('/credit-note')).map((r) => r.path)).toEqual(['/credit-note', '/credit-note?moved=1']);
  });

  it('to another origin: not followed, no credentials carried there, the Location named (exit 1)', async () => {
    const elsewhere = await front(() => undefined);
    const proxy = await front((req) => (req.path.startsWith('/credit-note') ? { kind: 'status', status: 307, headers: { location: `${elsewhere.url}/credit-note` } } : undefined));
    const run = await svcVia(proxy, ['credit-note', 'poll']);
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(`the service answered 307 Temporary Redirect to GET /credit-note, pointing to ${elsewhere.url}/credit-note`);
    expect(run.stderr).toContain(`svc follows redirects only within ${proxy.url}`);
    expect(elsewhere.seen).toHaveLength(0);
    expect(proxy.attempts('GET', '/credit-note')).toBe(1);
  });
});

describe('Retry-After', () => {
  it('longer than svc waits: fails at once, saying how long the service asked for', async () => {
    const proxy = await front((req) => (req.path.startsWith('/credit-note') ? { kind: 'status', status: 503, headers: { 'retry-after': '120' } } : undefined));
    const run = await svcVia(proxy, ['credit-note', 'poll']);
    expect(run.exitCode, run.stderr).toBe(8);
    expect(run.stderr).toContain('the service asks to try again in 2m (Retry-After), longer than svc waits (30 s) (GET /credit-note) [503 http_503]');
    expect(proxy.attempts('GET', '/credit-note')).toBe(1);
  });

  it('as an HTTP date beyond the budget: the same, the wait given in words', async () => {
    const at = new Date(Date.now() + 3_600_000).toUTCString();
    const proxy = await front((req) => (req.path.startsWith('/credit-note') ? { kind: 'status', status: 429, headers: { 'retry-after': at } } : undefined));
    const run = await svcVia(proxy, ['credit-note', 'poll']);
    expect(run.exitCode, run.stderr).toBe(8);
    expect(run.stderr).toMatch(/the service asks to try again in (59m 5\ds|1h)\b.*\(Retry-After\), longer than svc waits \(30 s\)/);
    expect(proxy.attempts('GET', '/credit-note')).toBe(1);
  });

  it('as an HTTP date within the budget: waited for, then the command succeeds', async () => {
    const proxy = await front((req) =>
      req.path.startsWith('/credit-note') && req.attempt === 1 ? { kind: 'status', status: 429, headers: { 'retry-after': new Date(Date.now() + 1_000).toUTCString() } } : undefined,
    );
    const run = await svcVia(proxy, ['credit-note', 'poll', '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(proxy.attempts('GET', '/credit-note')).toBe(2);
  });
});

describe('sandbox login, the approval step', () => {
  const login = async (fault: Fault) => {
    const proxy = await front(once('GET', '/oauth2/authorize', fault));
    const home = await makeSvcHome(dirs);
    const set = await runSvc(['config', 'set', 'redirect-uri', merchant().fixture.redirectUri], { home });
    expect(set.exitCode, set.stderr).toBe(0);
    return { proxy, home };
  };

  for (const fault of [{ kind: 'status', status: 503 }, { kind: 'reset' }] as const) {
    it(`a ${fault.kind === 'reset' ? 'reset' : '503'} once on the consent page: asked again, and the login succeeds`, async () => {
      const { proxy, home } = await login(fault);
      const run = await runSvc(['sandbox', 'login'], { home, env: { SVC_BASE_URL: proxy.url, CI: 'true' } });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(proxy.attempts('GET', '/oauth2/authorize')).toBe(2);
    });
  }

  it('silence once on the consent page (SVC_HTTP_TIMEOUT=1): asked again after 1 s, and the login succeeds', async () => {
    const { proxy, home } = await login({ kind: 'silence' });
    const run = await runSvc(['sandbox', 'login'], { home, env: { SVC_BASE_URL: proxy.url, CI: 'true', SVC_HTTP_TIMEOUT: '1' } });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(proxy.attempts('GET', '/oauth2/authorize')).toBe(2);
  });

  it('a 503 on every attempt: 4 attempts, then exit 8 naming the 503 (not "a person is asked to approve")', async () => {
    const proxy = await front((req) => (req.path.startsWith('/oauth2/authorize') ? { kind: 'status', status: 503 } : undefined));
    const home = await makeSvcHome(dirs);
    expect((await runSvc(['config', 'set', 'redirect-uri', merchant().fixture.redirectUri], { home })).exitCode).toBe(0);
    const run = await runSvc(['sandbox', 'login'], { home, env: { SVC_BASE_URL: proxy.url, CI: 'true' } });
    expect(run.exitCode, run.stderr).toBe(8);
    expect(run.stderr).toContain('after 4 attempts (GET /oauth2/authorize) [503 http_503]');
    expect(run.stderr).not.toContain('a person is asked to approve');
    expect(proxy.attempts('GET', '/oauth2/authorize')).toBe(4);
  });
});
