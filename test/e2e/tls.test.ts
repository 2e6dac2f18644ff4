// The service behind TLS with a private CA (a TLS front on loopback, certificates made by the
// test): untrusted, trusted through NODE_EXTRA_CA_CERTS, expired, made out to another name.
// A certificate problem is not the network being down: it names the problem and the fix,
// exits 1 (not 8, which invites a retry loop) and is tried once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { useMerchant } from './merchant.js';
import { makePrivateCa, type PrivateCa } from './private-ca.js';
import { requireTools } from './require-tools.js';

const { merchant, dirs } = useMerchant();
const missing = requireTools(['openssl']);
let ca: PrivateCa;
const fronts: FaultProxy[] = [];
const front = async (certificate: { key: string; cert: string; tls10Only?: boolean }) => {
  const started = await startFaultProxy(merchant().sandbox.url, undefined, { tls: certificate, host: 'localhost' });
  fronts.push(started);
  return started;
};

beforeAll(async () => {
  if (!missing) ca = await makePrivateCa(await dirs.make('svc-ca-'));
});
afterAll(() => Promise.all(fronts.map((f) => f.close())));

const poll = (url: string, env: Record<string, string> = {}) =>
  runSvc(['credit-note', 'poll', '--json'], { home: merchant().home, env: { SVC_BASE_URL: url, NODE_EXTRA_CA_CERTS: undefined as unknown as string, ...env } });

describe('a TLS front with a private CA', () => {
  it('untrusted: names the issuer problem and NODE_EXTRA_CA_CERTS, exit 1, one attempt', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const tls = await front(ca.valid);
    const run = await poll(tls.url);
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(`the certificate of ${tls.url} is not trusted: its issuer is not a certificate authority this machine trusts`);
    expect(run.stderr).toContain('NODE_EXTRA_CA_CERTS=');
    expect(run.stderr).not.toMatch(/sandbox running|network connection/);
    expect(tls.connections()).toBe(1);
  });

  it('a CA file given that does not hold the issuer: the hint names the variable and its file, not "give NODE_EXTRA_CA_CERTS"', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const tls = await front(ca.valid);
    const other = await makePrivateCa(await dirs.make('svc-other-ca-'));
    for (const name of ['NODE_EXTRA_CA_CERTS', 'SVC_CA_FILE']) {
      const run = await poll(tls.url, { [name]: other.caFile });
      expect(run.exitCode, run.stderr).toBe(1);
      expect(run.stderr).toContain(`the certificate of ${tls.url} is not trusted`);
      expect(run.stderr).toContain(`${name}=${other.caFile} is set, but no certificate authority in it issued this one`);
    }
  });

  it('trusted through NODE_EXTRA_CA_CERTS: the command works', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const tls = await front(ca.valid);
    const run = await poll(tls.url, { NODE_EXTRA_CA_CERTS: ca.caFile });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(tls.seen.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toContain('GET /credit-note');
  });

  it('trusted through SVC_CA_FILE: the command works; a file that cannot be read is exit 2 naming it', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const tls = await front(ca.valid);
    const run = await poll(tls.url, { SVC_CA_FILE: ca.caFile });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(tls.seen.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toContain('GET /credit-note');
    const unreadable = await poll(tls.url, { SVC_CA_FILE: `${ca.caFile}.missing` });
    expect(unreadable.exitCode, unreadable.stderr).toBe(2);
    expect(unreadable.stderr).toContain(`SVC_CA_FILE: cannot read ${ca.caFile}.missing (ENOENT)`);
  });

  it('expired: says so, exit 1, one attempt', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const tls = await front(ca.expired);
    const run = await poll(tls.url, { NODE_EXTRA_CA_CERTS: ca.caFile });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(`the certificate of ${tls.url} has expired`);
    expect(tls.connections()).toBe(1);
  });

  it('made out to another name: names the names, exit 1, one attempt', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const tls = await front(ca.otherName);
    const run = await poll(tls.url, { NODE_EXTRA_CA_CERTS: ca.caFile });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(`the certificate of ${tls.url} is made out to another name (DNS:other.example), not localhost`);
    expect(tls.connections()).toBe(1);
  });

  it('a server offering only TLS 1.0: names the protocol, exit 1, one attempt', async (ctx) => {
    if (missing) return ctx.skip(missing);
    const tls = await front({ ...ca.valid, tls10Only: true });
    const run = await poll(tls.url, { NODE_EXTRA_CA_CERTS: ca.caFile });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(`no TLS connection with ${tls.url}: it offers no TLS version svc accepts (1.2 or newer)`);
    expect(tls.connections()).toBe(1);
  });
});
