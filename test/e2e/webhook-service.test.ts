// `svc webhook listen` run as a service: the admin port (/healthz, /readyz, /metrics parsed
// strictly against what was sent), nothing of it on the delivery port, JSON logs with no
// secret, signature or customer data, a drain on SIGTERM during slow forwards (readiness 503
// at once, nothing lost, exit 0), routing by event with the Svc-* headers, and readiness
// following a PostgreSQL stop and start, with every journalled delivery processed soon after.
import { generateKeyPairSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyId } from '../../src/crypto/hash.js';
import { encryptJson } from '../../src/crypto/hybrid.js';
import { signPayload } from '../../src/webhook/signature.js';
import { postgresSkipReason, startPostgres, type PgServer } from '../postgres-server.js';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv, tempDirs, type SvcHome } from './helpers.js';
import { startMerchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const SECRET = 'whsec_c2VydmljZS1zZWNyZXQtZTJlLXNlcnZpY2Utc2VjcmV0LTEyMzQ1Njc4OQ==';
const CUSTOMER_PRODUCT = 'sku-PRIVATE-CUSTOMER-7781';
const dirs = tempDirs();
let keyFile: string;
let publicKey: string;

beforeAll(async () => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  keyFile = join(await dirs.make('svc-key-'), 'key.pem');
  await writeFile(keyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  publicKey = pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
});
afterAll(() => dirs.cleanup());

interface Listener {
  child: ResultPromise;
  home: SvcHome;
  url: string;
  admin: string;
  stderr(): string;
  stdout(): string;
}

async function startListener(env: Record<string, string>, args: string[] = [], given?: SvcHome): Promise<Listener> {
  const home = given ?? (await makeSvcHome(dirs));
  const child = execa('node', [svcBin, 'webhook', 'listen', '--port', '0', '--admin-port', '0', ...args], {
    env: svcEnv(home, { SVC_WEBHOOK_SECRET: SECRET, SVC_PRIVATE_KEY_FILE: keyFile, ...env }),
    extendEnv: false,
    cwd: repoRoot,
    reject: false,
    stdin: 'ignore',
    forceKillAfterDelay: 5_000,
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  for (const deadline = Date.now() + 20_000; ; ) {
    const url = /listening on (http:\/\/[^\s"]+)/.exec(stderr)?.[1];
    const admin = /admin endpoints on (http:\/\/[^\s"]+)/.exec(stderr)?.[1];
    if (url && admin) return { child, home, url, admin, stderr: () => stderr, stdout: () => stdout };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the listener did not start:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function returnBody(i: number, companyId = 'company-1'): Buffer {
  const sealed = encryptJson({ serviceReceiptId: `sr-${i}`, receiptId: `R-${i}`, lineItems: [{ productId: CUSTOMER_PRODUCT, quantity: 1, reasonCode: 'DAMAGED' }], refundPreference: 'STORE_CREDIT' }, publicKey);
  const item = { created_at: new Date().toISOString(), serviceReceiptId: `sr-${i}`, companyId, publicKey, encryptedCreditNoteInitiationRequest: sealed.ciphertext, encryptedSymmetricKey: sealed.wrappedKey };
  return Buffer.from(JSON.stringify({ event: 'RETURN_REQUESTED', data: { creditNoteInitiationRequest: item }, n: i }));
}

function otherEventBody(event: string, i: number): Buffer {
  return Buffer.from(JSON.stringify({ event, data: { n: i } }));
}

const agent = new Agent({ connections: 16 });
afterAll(() => agent.close());

async function send(url: string, raw: Buffer, signature = signPayload(SECRET, raw, Math.floor(Date.now() / 1000))): Promise<number | undefined> {
  try {
    const res = await request(url, { dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body: raw });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return undefined;
  }
}

async function get(url: string): Promise<{ status: number; type: string; text: string }> {
  const res = await request(url, { dispatcher: agent });
  return { status: res.statusCode, type: String(res.headers['content-type']), text: await res.body.text() };
}

/** Prometheus text format 0.0.4, strictly: every line a HELP, a TYPE or a sample of a declared family. */
function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const types = new Map<string, string>();
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.slice(0, -1).split('\n')) {
    // The format ignores empty lines (prom-client puts one between families).
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(meta[3]);
        types.set(meta[2] as string, meta[3] as string);
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (-?[0-9.e+-]+|NaN|[+-]Inf)( -?[0-9]+)?$/.exec(line);
    expect(sample, `not a sample line: ${line}`).not.toBeNull();
    const name = sample![1] as string;
    const family = [...types.keys()].find((t) => name === t || name === `${t}_bucket` || name === `${t}_sum` || name === `${t}_count` || name === `${t}_total`);
    expect(family, `sample of an undeclared family: ${line}`).toBeDefined();
    samples.set(`${name}${sample![2] ?? ''}`, Number(sample![3]));
  }
  return samples;
}

function jsonLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const value = JSON.parse(l) as Record<string, unknown>;
      expect(typeof value.time).toBe('string');
      expect(['info', 'warn', 'error']).toContain(value.level);
      expect(typeof value.msg).toBe('string');
      return value;
    });
}

async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  for (const deadline = Date.now() + ms; ; ) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface App {
  url: string;
  received: { path: string; headers: IncomingHttpHeaders; id: string }[];
  /** Requests read whole, answered or not yet. */
  arrived(): number;
  close(): Promise<void>;
}

async function startApp(answer: (path: string) => { status: number; delayMs?: number } = () => ({ status: 200 })): Promise<App> {
  const received: App['received'] = [];
  let arrived = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      arrived++;
      const { status, delayMs = 0 } = answer(path);
      setTimeout(() => {
        if (status < 300) received.push({ path, headers: req.headers, id: bodyId(Buffer.concat(chunks)) });
        res.statusCode = status;
        res.end('ok');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    arrived: () => arrived,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('webhook listen as a service', () => {
  it('admin port: /healthz and /readyz 200, /metrics strict and matching what was sent, nothing of it on the delivery port; JSON logs carry no secret, signature or customer data', async () => {
    const l = await startListener({}, ['--log-format', 'json', '--json']);
    try {
      expect((await get(`${l.admin}/healthz`)).status).toBe(200);
      const ready = await get(`${l.admin}/readyz`);
      expect(ready.status, ready.text).toBe(200);
      const origin = new URL(l.url).origin;
      for (const path of ['/healthz', '/readyz', '/metrics']) expect((await get(`${origin}${path}`)).status, path).toBe(404);

      const bodies = Array.from({ length: 5 }, (_, i) => returnBody(i));
      const signatures = bodies.map((b) => signPayload(SECRET, b, Math.floor(Date.now() / 1000)));
      for (const [i, b] of bodies.entries()) expect(await send(l.url, b, signatures[i])).toBe(200);
      expect(await send(l.url, bodies[0] as Buffer)).toBe(200); // duplicate
      expect(await send(l.url, bodies[1] as Buffer)).toBe(200); // duplicate
      for (let i = 0; i < 3; i++) expect(await send(l.url, returnBody(100 + i), signPayload('whsec_d3Jvbmc=', returnBody(100 + i), Math.floor(Date.now() / 1000)))).toBe(400);
      const old = returnBody(200);
      expect(await send(l.url, old, signPayload(SECRET, old, Math.floor(Date.now() / 1000) - 3600))).toBe(400);
      // From the future: the sender's clock ahead, counted apart from a wrong secret.
      const ahead = returnBody(201);
      expect(await send(l.url, ahead, signPayload(SECRET, ahead, Math.floor(Date.now() / 1000) + 3600))).toBe(400);

      const metrics = await until('5 processed', async () => {
        const m = await get(`${l.admin}/metrics`);
        expect(m.type).toContain('text/plain; version=0.0.4');
        const parsed = parseMetrics(m.text);
        return parsed.get('svc_webhook_processed_total{event="RETURN_REQUESTED",outcome="ok"}') === 5 && parsed;
      });
      expect(metrics.get('svc_webhook_deliveries_total{outcome="accepted"}')).toBe(5);
      expect(metrics.get('svc_webhook_deliveries_total{outcome="duplicate"}')).toBe(2);
      expect(metrics.get('svc_webhook_deliveries_total{outcome="bad_signature"}')).toBe(3);
      expect(metrics.get('svc_webhook_deliveries_total{outcome="stale"}')).toBe(1);
      expect(metrics.get('svc_webhook_deliveries_total{outcome="future"}')).toBe(1);
      expect(metrics.get('svc_webhook_deliveries_total{outcome="unavailable"}')).toBe(0);
      // The three probes at the delivery port were no deliveries: not counted as malformed ones.
      expect(metrics.get('svc_webhook_deliveries_total{outcome="off_route"}')).toBe(3);
      expect(metrics.get('svc_webhook_deliveries_total{outcome="malformed"}')).toBe(0);
      expect(metrics.get('svc_webhook_ack_seconds_count')).toBe(7);
      expect(metrics.get('svc_webhook_backlog')).toBe(0);
      expect(metrics.has('process_cpu_user_seconds_total')).toBe(true);
      expect([...metrics.keys()].some((k) => k.startsWith('process_resident_memory_bytes'))).toBe(true);

      l.child.kill('SIGTERM');
      const result = await l.child;
      expect(result.exitCode, l.stderr()).toBe(0);
      const lines = jsonLines(l.stderr());
      const msgs = lines.map((x) => x.msg);
      for (const step of ['listening', 'ready', 'draining', 'stopped']) expect(msgs).toContain(step);
      // A detail that would only repeat the step is left out.
      expect(lines.filter((x) => x.detail === x.msg)).toEqual([]);
      const accepted = lines.filter((x) => x.msg === 'delivery' && x.outcome === 'accepted');
      expect(accepted.map((x) => x.deliveryId).sort()).toEqual(bodies.map((b) => bodyId(b)).sort());
      expect(accepted.every((x) => x.event === 'RETURN_REQUESTED')).toBe(true);
      // The company each delivery is of, read from its envelope at the acknowledgement: an
      // operator of a listener for many companies finds a company's deliveries in the log.
      expect(accepted.map((x) => x.companyId)).toEqual(bodies.map(() => 'company-1'));
      expect(lines.filter((x) => x.msg === 'delivery' && x.outcome === 'duplicate').map((x) => x.companyId)).toEqual(['company-1', 'company-1']);
      // And the duplicate's own `processed` line names it too: a filter by company finds every line of it.
      expect(lines.filter((x) => x.msg === 'processed' && x.outcome === 'duplicate').map((x) => x.companyId)).toEqual(['company-1', 'company-1']);
      // A refused delivery's body is not read: no company is named for it.
      expect(lines.filter((x) => x.outcome === 'bad_signature' || x.outcome === 'stale').every((x) => !('companyId' in x))).toBe(true);
      const processed = lines.filter((x) => x.msg === 'processed' && x.outcome === 'ok');
      expect(processed).toHaveLength(5);
      expect(processed.every((x) => x.companyId === 'company-1' && /^[0-9a-f]{64}$/.test(String(x.deliveryId)))).toBe(true);
      expect(lines.filter((x) => x.outcome === 'bad_signature')).toHaveLength(3);
      expect(lines.filter((x) => x.outcome === 'stale')).toHaveLength(1);
      expect(lines.filter((x) => x.outcome === 'future').map((x) => [x.msg, x.level, x.status])).toEqual([['delivery', 'warn', 400]]);
      const probes = lines.filter((x) => x.outcome === 'off_route');
      expect(probes.map((x) => [x.msg, x.level, x.status])).toEqual([['request', 'info', 404], ['request', 'info', 404], ['request', 'info', 404]]);
      expect(lines.filter((x) => x.msg === 'delivery' && x.level === 'warn')).toHaveLength(5);
      const everything = l.stderr();
      expect(everything).not.toContain(SECRET);
      expect(everything).not.toContain(SECRET.slice(6, 30));
      for (const s of signatures) expect(everything).not.toContain(s.split('v1=')[1] as string);
      expect(everything).not.toContain(CUSTOMER_PRODUCT);
      expect(everything).not.toContain('R-3');
    } finally {
      l.child.kill('SIGKILL');
    }
  }, 60_000);

  it('routes by event: EVENTS=URL targets only those events, a bare URL every event, each forward with Svc-Event, Svc-Delivery-Id, Svc-Company-Id; a failing target is counted and stalls nothing', async () => {
    let brokenRequests = 0;
    const app = await startApp((path) => {
      if (path === '/broken') brokenRequests++;
      return { status: path === '/broken' ? 500 : 200 };
    });
    const l = await startListener({}, [
      '--forward-to', `RETURN_REQUESTED=${app.url}/returns`,
      '--forward-to', `CREDIT_NOTE_CREATED=${app.url}/credits`,
      '--forward-to', `${app.url}/all`,
      '--forward-to', `CREDIT_NOTE_CREATED=${app.url}/broken`,
    ]);
    try {
      const r = returnBody(1, 'company-77');
      // Forwarded by the event they name, whether or not their data can be opened.
      const o1 = otherEventBody('CREDIT_NOTE_CREATED', 1);
      const o2 = otherEventBody('CREDIT_NOTE_CREATED', 2);
      const o3 = otherEventBody('CREDIT_NOTE_CREATED', 3);
      // An event svc does not know: only a bare URL takes it.
      const unknown = otherEventBody('OTHER_EVENT', 4);
      for (const b of [r, o1, o2, o3, unknown]) expect(await send(l.url, b)).toBe(200);
      await until('every forward', () => app.received.length >= 1 + 3 + 5);
      const at = (path: string) => app.received.filter((x) => x.path === path);
      expect(at('/returns').map((x) => x.id)).toEqual([bodyId(r)]);
      expect(at('/credits').map((x) => x.id).sort()).toEqual([o1, o2, o3].map((b) => bodyId(b)).sort());
      expect(at('/all')).toHaveLength(5);
      expect(at('/all').map((x) => x.id)).toContain(bodyId(unknown));
      const returned = at('/returns')[0]!.headers;
      expect(returned['svc-event']).toBe('RETURN_REQUESTED');
      expect(returned['svc-delivery-id']).toBe(bodyId(r));
      expect(returned['svc-company-id']).toBe('company-77');
      expect(returned['x-service-signature']).toMatch(/^t=\d+,v1=/);
      expect(at('/credits')[0]!.headers['svc-event']).toBe('CREDIT_NOTE_CREATED');
      const metrics = await until('the broken target counted', async () => {
        const parsed = parseMetrics((await get(`${l.admin}/metrics`)).text);
        return parsed.get(`svc_webhook_forwarded_total{target="${app.url}/broken",status_class="5xx"}`) === 3 && parsed;
      });
      expect(metrics.get(`svc_webhook_forwarded_total{target="${app.url}/all",status_class="2xx"}`)).toBe(5);
      // Every request sent counted, the retries of the broken target among them: what the app saw.
      expect(brokenRequests).toBeGreaterThan(3);
      expect(metrics.get(`svc_webhook_forward_attempts_total{target="${app.url}/broken",status_class="5xx"}`)).toBe(brokenRequests);
      expect(metrics.get(`svc_webhook_forward_attempts_total{target="${app.url}/all",status_class="2xx"}`)).toBe(5);
      expect(l.stderr()).toContain(`${app.url}/broken: 500`);
    } finally {
      l.child.kill('SIGTERM');
      await l.child;
      await app.close();
    }
  }, 60_000);

  it('SIGHUP (the terminal gone, a supervisor reloading) drains as SIGTERM does: the delivery acknowledged is processed, `stopped`, exit 0', async () => {
    const l = await startListener({}, ['--log-format', 'json']);
    try {
      expect(await send(l.url, returnBody(500))).toBe(200);
      l.child.kill('SIGHUP');
      const result = await l.child;
      expect(result.signal, l.stderr()).toBeUndefined();
      expect(result.exitCode, l.stderr()).toBe(0);
      const lines = jsonLines(l.stderr());
      expect(lines.find((x) => x.msg === 'draining')).toMatchObject({ signal: 'SIGHUP' });
      // The admin endpoints' address as a field, not only in words.
      expect(lines.find((x) => x.msg === 'admin')).toMatchObject({ level: 'info', url: l.admin });
      expect(lines.filter((x) => x.msg === 'processed' && x.outcome === 'ok')).toHaveLength(1);
      expect(lines.at(-1)).toMatchObject({ msg: 'stopped', drained: true });
    } finally {
      l.child.kill('SIGKILL');
    }
  }, 30_000);

  it('--log-format json: every line on stderr is a log object, the notes of --subscribe and of the secret store among them', async () => {
    const m = await startMerchant(dirs);
    try {
      await m.svc(['keys', 'generate', '--upload']);
      const child = execa('node', [svcBin, 'webhook', 'listen', '--port', '0', '--subscribe', '--log-format', 'json'], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', forceKillAfterDelay: 5_000 });
      let stderr = '';
      child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
      await until('listening', () => stderr.includes('"msg":"listening"') || undefined, 20_000);
      child.kill('SIGTERM');
      const result = await child;
      expect(result.exitCode, stderr).toBe(0);
      const lines = jsonLines(stderr);
      const msgs = lines.map((x) => String(x.msg));
      // Its parts as fields, as `listening` has its url.
      expect(lines.find((x) => x.msg === 'subscribed'), stderr).toMatchObject({
        level: 'info',
        subscriptionId: expect.stringMatching(/^whsub_/),
        reused: false,
        events: ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED'],
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/),
        detail: expect.stringMatching(/^subscribed whsub_/),
      });
      void msgs;
      // The secret store's own warning, written by a part made before the listener ran.
      expect(lines.find((x) => String(x.msg).includes('stored in plain text')), stderr).toMatchObject({ level: 'warn' });
    } finally {
      await m.sandbox.stop();
    }
  }, 60_000);

  it('a target that hangs holds up only its own forwards: the other target gets every later delivery at once, and each is processed', async () => {
    // /hung never answers (the forward times out after 10 s); /fast answers at once.
    const app = await startApp((path) => ({ status: 200, delayMs: path === '/hung' ? 60_000 : 0 }));
    const l = await startListener({}, ['--forward-to', `RETURN_REQUESTED=${app.url}/hung`, '--forward-to', `CREDIT_NOTE_CREATED=${app.url}/fast`, '--json']);
    try {
      const hung = returnBody(500);
      expect(await send(l.url, hung)).toBe(200);
      const others = Array.from({ length: 5 }, (_, i) => otherEventBody('CREDIT_NOTE_CREATED', 500 + i));
      for (const b of others) expect(await send(l.url, b)).toBe(200);
      // Before the hung forward's 10 s timeout (the first batch also starts the decrypting thread, slow on a loaded machine).
      await until('the fast target got every later delivery', () => app.received.filter((x) => x.path === '/fast').length === others.length || undefined, 9_000);
      const processed = () => l.stdout().split('\n').filter(Boolean).map((x) => (JSON.parse(x) as { id: string }).id);
      await until('each later delivery processed', () => others.every((b) => processed().includes(bodyId(b))) || undefined, 9_000);
      expect(processed()).not.toContain(bodyId(hung));
    } finally {
      l.child.kill('SIGKILL');
      await l.child;
      await app.close();
    }
  }, 60_000);

  it('two targets of one delivery: the one that answers is counted at once, not when the one that hangs gives up', async () => {
    const app = await startApp((path) => ({ status: 200, delayMs: path === '/hung' ? 60_000 : 0 }));
    const l = await startListener({}, ['--forward-to', `${app.url}/hung`, '--forward-to', `${app.url}/fast`]);
    try {
      expect(await send(l.url, otherEventBody('CREDIT_NOTE_CREATED', 600))).toBe(200);
      // Well before the hung forward's 10 s timeout.
      await until('the fast target counted', async () => parseMetrics((await get(`${l.admin}/metrics`)).text).get(`svc_webhook_forwarded_total{target="${app.url}/fast",status_class="2xx"}`) === 1 || undefined, 8_000);
      expect(parseMetrics((await get(`${l.admin}/metrics`)).text).get(`svc_webhook_forwarded_total{target="${app.url}/hung",status_class="error"}`) ?? 0).toBe(0);
    } finally {
      l.child.kill('SIGKILL');
      await l.child;
      await app.close();
    }
  }, 60_000);

  it('SIGTERM during slow forwards: /readyz 503 at once, new deliveries refused, every acknowledged delivery forwarded and journalled processed, exit 0', async () => {
    // Forwards run side by side: each slow enough that the drain outlasts the checks below.
    const app = await startApp(() => ({ status: 200, delayMs: 3_000 }));
    const l = await startListener({}, ['--forward-to', `${app.url}/slow`, '--drain-timeout', '30s', '--log-format', 'json']);
    try {
      const bodies = Array.from({ length: 4 }, (_, i) => returnBody(300 + i));
      for (const b of bodies) expect(await send(l.url, b)).toBe(200);
      await until('the slow forwards under way', () => app.arrived() === bodies.length || undefined, 10_000);
      l.child.kill('SIGTERM');
      await until('draining', () => l.stderr().includes('"msg":"draining"'));
      const ready = await get(`${l.admin}/readyz`).catch(() => ({ status: 0, text: 'closed' }));
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.text).reasons.map((r: { check: string }) => r.check)).toContain('draining');
      expect(await send(l.url, returnBody(399))).not.toBe(200);
      const result = await l.child;
      expect(result.exitCode, l.stderr()).toBe(0);
      expect(app.received.map((x) => x.id).sort()).toEqual(bodies.map((b) => bodyId(b)).sort());
      const lines = jsonLines(l.stderr());
      expect(lines.filter((x) => x.msg === 'processed').map((x) => x.deliveryId).sort()).toEqual(bodies.map((b) => bodyId(b)).sort());
      expect(lines.at(-1)).toMatchObject({ msg: 'stopped', drained: true });
    } finally {
      l.child.kill('SIGKILL');
      await app.close();
    }
  }, 60_000);

  it('a second SIGTERM during the drain quits at once with exit 3, saying what is left for the next start', async () => {
    const app = await startApp(() => ({ status: 200, delayMs: 20_000 }));
    const l = await startListener({}, ['--forward-to', `${app.url}/stuck`]);
    try {
      expect(await send(l.url, returnBody(400))).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      l.child.kill('SIGTERM');
      await until('draining', () => l.stderr().includes('finishing the deliveries'));
      l.child.kill('SIGTERM');
      const result = await l.child;
      expect(result.exitCode, l.stderr()).toBe(3);
      // Said before the exit, and not lost among lines held for the end of the turn (src/io/turn-batch.ts).
      expect(l.stderr()).toContain('SIGTERM again: stopping at once, without finishing the drain; 1 journalled delivery is left for the next start');
    } finally {
      l.child.kill('SIGKILL');
      await app.close();
    }
  }, 60_000);

  it('a drain that runs out of time aborts the forwards in flight, logs nothing after `stopped` and exits 0 at once; the delivery stays journalled for the next start', async () => {
    // Reads the forward and never answers.
    const app = await startApp(() => ({ status: 200, delayMs: 60_000 }));
    const l = await startListener({}, ['--log-format', 'json', '--drain-timeout', '1s', '--forward-to', `RETURN_REQUESTED=${app.url}/r`]);
    try {
      const body = returnBody(600);
      expect(await send(l.url, body)).toBe(200);
      await until('the forward under way', () => app.arrived() === 1 || undefined, 10_000);
      // Journalled and not processed: a delivery being forwarded is part of the backlog.
      expect(parseMetrics((await get(`${l.admin}/metrics`)).text).get('svc_webhook_backlog')).toBe(1);
      const signalled = Date.now();
      l.child.kill('SIGTERM');
      const result = await l.child;
      const took = Date.now() - signalled;
      expect(result.exitCode, l.stderr()).toBe(0);
      // The 1 s drain and a little more, not the forward's 10 s timeout.
      expect(took, l.stderr()).toBeLessThan(2_500);
      const lines = jsonLines(l.stderr());
      expect(lines.at(-1), l.stderr()).toMatchObject({ msg: 'stopped', drained: false });
      expect(lines.filter((x) => x.msg === 'processed')).toEqual([]);
      // One request sent, and said in words: no retry once the listener is stopping.
      expect(lines.filter((x) => x.msg === 'forward failed')).toEqual([
        expect.objectContaining({ deliveryId: bodyId(body), attempts: 1, detail: 'aborted: the listener stopped before the app answered' }),
      ]);
      expect(app.arrived()).toBe(1);
      expect(lines.map((x) => x.msg)).toContain('1 journalled delivery is left for the next start');
      const events = await runSvc(['webhook', 'events', '--json'], { home: l.home });
      expect(JSON.parse(events.stdout)).toEqual([expect.objectContaining({ id: bodyId(body), processed: false })]);
    } finally {
      l.child.kill('SIGKILL');
      await app.close();
    }
  }, 60_000);

  it('a catch-up of 24 forwarded deliveries under --log-format json: every stderr line a log object, no Node warning (one abort signal per forward); `forward failed` names the company', async () => {
    const COUNT = 24;
    // First a listener whose app never answers, killed: 24 journalled, none processed.
    const hung = await startApp(() => ({ status: 200, delayMs: 60_000 }));
    const first = await startListener({}, ['--forward-to', `${hung.url}/hang`]);
    const bodies = Array.from({ length: COUNT }, (_, i) => returnBody(700 + i, `company-${700 + i}`));
    try {
      expect(await Promise.all(bodies.map((b) => send(first.url, b)))).toEqual(bodies.map(() => 200));
    } finally {
      first.child.kill('SIGKILL');
      await first.child;
      await hung.close();
    }
    // The next start catches up on all of them at once: a slow app takes every one, another answers 503.
    const app = await startApp((path) => ({ status: path === '/down' ? 503 : 200, delayMs: 300 }));
    const l = await startListener({}, ['--log-format', 'json', '--forward-to', `${app.url}/all`, '--forward-to', `${app.url}/down`], first.home);
    try {
      await until('every delivery processed', () => jsonLines(l.stderr()).filter((x) => x.msg === 'processed').length === COUNT || undefined, 45_000);
      expect(app.received.filter((x) => x.path === '/all')).toHaveLength(COUNT);
      expect(l.stderr()).not.toMatch(/MaxListenersExceededWarning|\(node:\d+\)/);
      // jsonLines parses every line: a raw Node warning would throw.
      const failed = jsonLines(l.stderr()).filter((x) => x.msg === 'forward failed');
      expect(failed).toHaveLength(COUNT);
      // Whose each was, as its envelope names it.
      expect(new Set(failed.map((x) => x.companyId))).toEqual(new Set(bodies.map((_, i) => `company-${700 + i}`)));
      for (const x of failed) expect(x.deliveryId).toBe(bodyId(bodies[Number(String(x.companyId).slice('company-'.length)) - 700]!));
    } finally {
      l.child.kill('SIGTERM');
      await l.child;
      await app.close();
    }
    expect(l.stderr()).not.toMatch(/Warning/);
    jsonLines(l.stderr());
  }, 90_000);

  it('a forward that failed every attempt: `webhook events` says processed and not forwarded, naming the target and its answer, until a replay the app takes', async () => {
    let broken = true;
    const app = await startApp(() => ({ status: broken ? 500 : 200 }));
    const l = await startListener({}, ['--forward-to', `${app.url}/hooks`, '--json']);
    try {
      const body = returnBody(700);
      expect(await send(l.url, body)).toBe(200);
      const id = bodyId(body);
      await until('processed', async () => {
        const listed = JSON.parse((await runSvc(['webhook', 'events', '--json'], { home: l.home })).stdout) as { processed: boolean }[];
        return listed[0]?.processed === true;
      });
      const events = await runSvc(['webhook', 'events', '--json'], { home: l.home });
      expect(JSON.parse(events.stdout)).toEqual([{ id, event: 'RETURN_REQUESTED', receivedAt: expect.any(String), processed: true, forwardFailed: [`${app.url}/hooks: 500 Internal Server Error (4 attempts)`] }]);
      const table = await runSvc(['webhook', 'events'], { home: l.home });
      expect(table.stdout).toContain(`processed; not forwarded to ${app.url}/hooks: 500 Internal Server Error (4 attempts)`);
      // On a terminal, at 80 columns: the cell says it, and where to and the answer are under the table, whole.
      if (requireTools(['tmux']) === undefined) {
        const term = svcInTerminal('svc-events-forward', ['webhook', 'events'], { ...svcEnv(l.home), NO_COLOR: '1' }, [80, 20]);
        try {
          await term.waitFor('SVC-EXIT=0');
          const text = term.text();
          expect(text).toMatch(new RegExp(`^${id.slice(0, 12)} +RETURN_REQUESTED .* processed; forward failed$`, 'm'));
          expect(text.replace(/\n +/g, ' ')).toContain(`${id.slice(0, 12)} not forwarded to ${app.url}/hooks: 500 Internal Server Error (4 attempts)`);
        } finally {
          term.kill();
        }
      } else if (process.env.CI === 'true') throw new Error('CI must run this check: missing tmux');
      broken = false;
      const replayed = await runSvc(['webhook', 'replay', id.slice(0, 12), '--forward-to', `${app.url}/hooks`], { home: l.home });
      expect(replayed.exitCode, replayed.stderr).toBe(0);
      const after = await runSvc(['webhook', 'events', '--json'], { home: l.home });
      expect(JSON.parse(after.stdout)).toEqual([{ id, event: 'RETURN_REQUESTED', receivedAt: expect.any(String), processed: true }]);
    } finally {
      l.child.kill('SIGTERM');
      await l.child;
      await app.close();
    }
  }, 60_000);

  it('a replay --forward-to an app that is not running: exit 8 (a network failure, as elsewhere), with a hint; a 4xx answer: exit 1', async () => {
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/hooks`;
    await new Promise((resolve) => closed.close(resolve));
    const app = await startApp(() => ({ status: 422 }));
    const l = await startListener({});
    try {
      const body = returnBody(800);
      expect(await send(l.url, body)).toBe(200);
      const id = bodyId(body).slice(0, 12);
      const refused = await runSvc(['webhook', 'replay', id, '--forward-to', gone], { home: l.home });
      expect(refused.exitCode, refused.stderr).toBe(8);
      expect(refused.stderr).toContain(`error: the app at ${gone} did not accept ${id} (failed: ECONNREFUSED)`);
      expect(refused.stderr).toMatch(/^hint: is the app running\? the delivery stays in the journal/m);
      const json = await runSvc(['webhook', 'replay', id, '--forward-to', gone, '--json'], { home: l.home });
      expect(json.exitCode).toBe(8);
      expect(json.stdout).toBe('');
      expect(JSON.parse(json.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { code: 'unavailable', exitCode: 8 } });
      const answered = await runSvc(['webhook', 'replay', id, '--forward-to', `${app.url}/hooks`], { home: l.home });
      expect(answered.exitCode, answered.stderr).toBe(1);
      expect(answered.stderr).toContain('(422 Unprocessable Entity)');
      expect(`${refused.stderr}${json.stderr}${answered.stderr}`).not.toContain(SECRET);
    } finally {
      l.child.kill('SIGTERM');
      await l.child;
      await app.close();
    }
  }, 60_000);

  it('webhook verify of a signature that does not verify: exit 2 naming --signature, the reason and what to check; {"valid": false} on stdout with --json; never the secret', async () => {
    const dir = await dirs.make('svc-verify-');
    const file = join(dir, 'body.json');
    const body = returnBody(801);
    await writeFile(file, body);
    const env = { SVC_WEBHOOK_SECRET: SECRET };
    const good = await runSvc(['webhook', 'verify', '--file', file, '--signature', signPayload(SECRET, body, Math.floor(Date.now() / 1000))], { env });
    expect(good.exitCode, good.stderr).toBe(0);
    const other = signPayload('whsec_b3RoZXItc2VjcmV0LW9mLWFub3RoZXItc3Vic2NyaXB0aW9uLTEyMzQ1Ng==', body, Math.floor(Date.now() / 1000));
    const bad = await runSvc(['webhook', 'verify', '--file', file, '--signature', other], { env });
    expect(bad.exitCode, bad.stderr).toBe(2);
    expect(bad.stderr).toContain('error: --signature: invalid signature (no_match)');
    expect(bad.stderr).toMatch(/^hint: check the body saved byte for byte \(--file\) and the secret/m);
    const json = await runSvc(['webhook', 'verify', '--file', file, '--signature', other, '--json'], { env });
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ valid: false, reason: 'no_match' });
    expect(JSON.parse(json.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { code: 'usage', exitCode: 2, hint: expect.stringContaining('--secret-stdin') } });
    const stale = await runSvc(['webhook', 'verify', '--file', file, '--signature', signPayload(SECRET, body, Math.floor(Date.now() / 1000) - 3600)], { env });
    expect(stale.exitCode).toBe(2);
    expect(stale.stderr).toContain('invalid signature (stale)');
    expect(`${bad.stdout}${bad.stderr}${json.stdout}${json.stderr}${stale.stderr}`).not.toContain(SECRET);
  });

  it('refuses a route for an event it does not know (exit 2, before listening), naming it and the known ones', async () => {
    const result = await runSvc(['webhook', 'listen', '--port', '0', '--forward-to', 'RETURN_REQESTED=http://127.0.0.1:3912/r'], { env: { SVC_WEBHOOK_SECRET: SECRET }, timeout: 10_000 });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain('error: --forward-to: RETURN_REQESTED is not an event svc knows (RETURN_REQUESTED, CREDIT_NOTE_CREATED)');
    // Every event, those svc does not know yet among them: the URL alone.
    expect(result.stderr).toContain('--forward-to http://127.0.0.1:3912/r');
    expect(result.stderr).not.toContain('listening on');
  }, 30_000);

  it('a port in use at start: the flag, exit 7 (another process holds it), and no Node warning, under --log-format json too; a bad --admin-port or --admin-host is named, exit 2', async () => {
    const busy = createNetServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = String((busy.address() as AddressInfo).port);
    try {
      for (const [flags, error] of [
        [['--port', '0', '--admin-port', port], `--admin-port: port ${port} is in use`],
        [['--port', port, '--admin-port', '0'], `--port: port ${port} is in use`],
      ] as const) {
        const result = await runSvc(['webhook', 'listen', ...flags, '--log-format', 'json'], { env: { SVC_WEBHOOK_SECRET: SECRET }, timeout: 15_000 });
        expect(result.exitCode, result.stderr).toBe(7);
        expect(result.stderr).not.toMatch(/\(node:\d+\)|TimeoutOverflowWarning/);
        // Every line a log object, the failure among them (level error), and no `stopped` for a listener that never listened.
        const lines = jsonLines(result.stderr);
        expect(lines.filter((x) => x.level === 'error')).toEqual([expect.objectContaining({ msg: 'failed', error, code: 'conflict', exitCode: 7, hint: expect.stringContaining('0 picks a free one') })]);
        expect(lines.map((x) => x.msg)).not.toContain('stopped');
        expect(lines.filter((x) => x.msg === 'admin' || String(x.detail ?? x.msg).startsWith('admin endpoints'))).toEqual([]);
        // The same failure without JSON logs: svc's own error text.
        const text = await runSvc(['webhook', 'listen', ...flags], { env: { SVC_WEBHOOK_SECRET: SECRET }, timeout: 15_000 });
        expect(text.exitCode, text.stderr).toBe(7);
        expect(text.stderr).toContain(`error: ${error}`);
        expect(text.stderr).not.toContain('stopped');
      }
      // A failure after both ports are bound (--subscribe with no Grant): the error is the last
      // line, and the listener that never listened logs no `stopped`.
      const subscribing = await runSvc(['webhook', 'listen', '--port', '0', '--admin-port', '0', '--subscribe', '--log-format', 'json'], { env: { SVC_WEBHOOK_SECRET: SECRET }, timeout: 15_000 });
      expect(subscribing.exitCode, subscribing.stderr).toBe(4);
      const said = jsonLines(subscribing.stderr);
      expect(said.at(-1)).toMatchObject({ level: 'error', msg: 'failed', code: 'authentication_required', exitCode: 4 });
      expect(said.map((x) => x.msg)).not.toContain('stopped');
      // A warning about an exposure that never happened is not given: the bind failed first.
      const unbound = await runSvc(['webhook', 'listen', '--port', '0', '--host', '192.0.2.1'], { env: { SVC_WEBHOOK_SECRET: SECRET }, timeout: 15_000 });
      expect(unbound.exitCode, unbound.stderr).toBe(2);
      expect(unbound.stderr).toContain('error: --host: 192.0.2.1 is not an address of this machine');
      expect(unbound.stderr).not.toContain('reachable from other machines');
      // TEST-NET-1 (RFC 5737) is no machine's address.
      for (const [flags, error, hint] of [
        [['--admin-port', '-1'], 'error: --admin-port: "-1" is not a port number from 0 to 65535', '--admin-port 0 picks a free port'],
        [['--admin-port', '0', '--admin-host', '192.0.2.1'], 'error: --admin-host: 192.0.2.1 is not an address of this machine', 'use --admin-host 127.0.0.1'],
      ] as const) {
        const result = await runSvc(['webhook', 'listen', '--port', '0', ...flags], { env: { SVC_WEBHOOK_SECRET: SECRET }, timeout: 15_000 });
        expect(result.exitCode, result.stderr).toBe(2);
        expect(result.stderr).toContain(error);
        expect(result.stderr).toContain(hint);
      }
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  }, 60_000);

  it('runs as docs/systemd/svc-webhook-listen.service runs it: its Environment= and flags, a home it cannot write (ProtectHome): listens, journals under its StateDirectory, drains on SIGTERM', async () => {
    const { readFile, readdir } = await import('node:fs/promises');
    const text = await readFile(join(repoRoot, 'docs/systemd/svc-webhook-listen.service'), 'utf8');
    // /var/lib/svc and /var/cache/svc are what StateDirectory= and CacheDirectory= make writable.
    const lib = await dirs.make('svc-unit-lib-');
    const cache = await dirs.make('svc-unit-cache-');
    const local = (value: string) => value.replaceAll('/var/lib/svc', lib).replaceAll('/var/cache/svc', cache);
    const env: Record<string, string> = {};
    for (const [, name, value] of text.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)) env[name!] = local(value!);
    expect(text).toMatch(/^StateDirectory=svc$/m);
    expect(text).toMatch(/^CacheDirectory=svc$/m);
    const home = join(cache, 'home-is-a-file');
    await writeFile(home, '');
    const exec = /^ExecStart=\/usr\/bin\/svc (.*)$/m.exec(text)![1]!.split(' ');
    const args = exec.map((a, i) => (exec[i - 1] === '--port' || exec[i - 1] === '--admin-port' ? '0' : a));
    const child = execa('node', [svcBin, ...args], {
      // What EnvironmentFile= holds, and a home ProtectHome= hides: a file, so that nothing can be made under it (root included).
      env: { PATH: process.env.PATH ?? '', HOME: home, ...env, SVC_WEBHOOK_SECRET: SECRET, SVC_PRIVATE_KEY_FILE: keyFile },
      extendEnv: false,
      cwd: repoRoot,
      reject: false,
      stdin: 'ignore',
      forceKillAfterDelay: 5_000,
    });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      const port = await until('listening', () => /"msg":"listening".*?:(\d+)\/webhooks/.exec(stderr)?.[1] ?? (child.exitCode !== null ? 'exited' : undefined), 20_000);
      expect(port, stderr).not.toBe('exited');
      expect(await send(`http://127.0.0.1:${port}/webhooks`, returnBody(900))).toBe(200);
      await until('processed', () => stderr.includes('"msg":"processed"') || undefined);
    } finally {
      child.kill('SIGTERM');
    }
    const result = await child;
    expect(result.exitCode, stderr).toBe(0);
    expect(jsonLines(stderr).at(-1)).toMatchObject({ msg: 'stopped', drained: true });
    // The journal is in the state directory systemd keeps, and the code cache in its cache directory.
    expect((await readdir(join(lib, 'state'), { recursive: true })).some((f) => String(f).endsWith('.ndjson')), stderr).toBe(true);
    expect((await readdir(join(cache, 'svc'), { recursive: true })).length).toBeGreaterThan(0);
  }, 60_000);

  it('docs/systemd/svc-webhook-listen.service passes systemd-analyze verify', async () => {
    let analyze: string | undefined;
    try {
      analyze = execFileSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' }).trim();
    } catch {
      if (process.env.CI === 'true') throw new Error('CI must run this test: missing systemd-analyze (apt-get install systemd)');
      return;
    }
    const unitDir = await dirs.make('svc-unit-');
    const unit = join(unitDir, 'svc-webhook-listen.service');
    const { readFile } = await import('node:fs/promises');
    // The unit names /usr/bin/svc; verify checks that its ExecStart exists, so point it at this checkout's node.
    await writeFile(unit, (await readFile(join(repoRoot, 'docs/systemd/svc-webhook-listen.service'), 'utf8')).replaceAll('/usr/bin/svc', process.execPath));
    const result = await execa(analyze, ['verify', unit], { reject: false });
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stderr).not.toMatch(/Unknown (key|section)|Failed to parse|Invalid/i);
  });
});

const skip = postgresSkipReason();
describe.skipIf(skip !== undefined)(`webhook listen readiness on PostgreSQL${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.drop();
  });

  it('a forward that failed every attempt shows in `webhook events` from the shared journal too, processed and not forwarded', async () => {
    const url = await server.database('webhooks_forward');
    const app = await startApp(() => ({ status: 503 }));
    const l = await startListener({ SVC_DATABASE_URL: url }, ['--forward-to', `${app.url}/hooks`]);
    try {
      const body = returnBody(800);
      expect(await send(l.url, body)).toBe(200);
      const listed = await until('processed', async () => {
        const rows = JSON.parse((await runSvc(['webhook', 'events', '--json'], { home: l.home, env: { SVC_DATABASE_URL: url } })).stdout) as { processed: boolean }[];
        return rows[0]?.processed === true && rows;
      });
      expect(listed).toEqual([{ id: bodyId(body), event: 'RETURN_REQUESTED', receivedAt: expect.any(String), processed: true, forwardFailed: [`${app.url}/hooks: 503 Service Unavailable (4 attempts)`] }]);
    } finally {
      l.child.kill('SIGTERM');
      await l.child;
      await app.close();
    }
  }, 60_000);

  it('/readyz follows the database (503 naming it while stopped, 200 once back); every journalled delivery processed within 15 s of its return', async () => {
    const url = await server.database('webhooks_ready');
    const l = await startListener({ SVC_DATABASE_URL: url, SVC_WEBHOOK_CLAIM_SECONDS: '2' }, ['--json']);
    try {
      expect((await get(`${l.admin}/readyz`)).status).toBe(200);
      const bodies = Array.from({ length: 150 }, (_, i) => returnBody(500 + i));
      const acked = new Set<number>();
      let stopped = false;
      await Promise.all(
        bodies.map(async (b, i) => {
          if (i === 60 && !stopped) {
            stopped = true;
            server.stop();
          }
          if ((await send(l.url, b)) === 200) acked.add(i);
        }),
      );
      if (!stopped) server.stop();
      const down = await until('readyz 503', async () => {
        const r = await get(`${l.admin}/readyz`);
        return r.status === 503 && r;
      });
      const reasons = JSON.parse(down.text).reasons as { check: string; detail: string }[];
      expect(reasons.map((r) => r.check)).toContain('database');
      expect(down.text).not.toContain(server.password);
      await new Promise((r) => setTimeout(r, 4_000));
      server.start();
      const back = Date.now();
      await until('readyz 200', async () => (await get(`${l.admin}/readyz`)).status === 200, 30_000);
      // The sender retries what got no 2xx.
      for (let round = 0; acked.size < bodies.length; round++) {
        expect(round).toBeLessThan(40);
        await Promise.all(bodies.map(async (b, i) => !acked.has(i) && (await send(l.url, b)) === 200 && acked.add(i)));
      }
      const ids = bodies.map((b) => bodyId(b));
      await until('every delivery processed', async () => {
        const m = parseMetrics((await get(`${l.admin}/metrics`)).text);
        const done = new Set(l.stdout().split('\n').filter(Boolean).map((x) => JSON.parse(x) as { id: string; duplicate: boolean }).filter((e) => !e.duplicate).map((e) => e.id));
        return ids.every((id) => done.has(id)) && m.get('svc_webhook_backlog') === 0;
      }, 15_000).catch((error: unknown) => {
        throw new Error(`${String(error)} (${Math.round((Date.now() - back) / 1000)} s after the database returned)\n${l.stderr()}`);
      });
    } finally {
      l.child.kill('SIGTERM');
      await l.child;
    }
  }, 120_000);
});
