// The straggler after a database outage: an INSERT of a delivery that PostgreSQL committed but
// whose answer the listener never got (the connection died with the commit's reply in
// flight) was answered 503; the row stayed claimed by this listener, which renewed the claim
// forever without ever processing it, took it for a duplicate when the sender retried, and
// never took it over itself (it passes over its own claims). Here a proxy lets one such
// INSERT through and cuts the connection before its reply: the delivery the sender retries and
// the one it never retries are both processed within a bound, and the backlog gauge (what the
// team journal holds unprocessed) shows them until then and 0 after.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyId } from '../../src/crypto/hash.js';
import { signPayload } from '../../src/webhook/signature.js';
import { postgresSkipReason, startPostgres, type PgServer } from '../postgres-server.js';
import { makeSvcHome, repoRoot, svcBin, svcEnv, tempDirs } from './helpers.js';

const SECRET = 'whsec_c3RyYWdnbGVyLXNlY3JldC1lMmUtc3RyYWdnbGVyLXNlY3JldC0xMjM0NTY=';
const skip = postgresSkipReason();
const dirs = tempDirs();

/** A TCP proxy to PostgreSQL that, once armed, lets the next message containing `match` through and cuts the connection before the server's reply reaches the client. */
async function startReplyDropper(port: number): Promise<{ url(base: string): string; arm(match: string): Promise<void>; close(): Promise<void> }> {
  let armed: { match: string; done(): void } | undefined;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    let cut = false;
    client.on('data', (chunk: Buffer) => {
      if (armed && chunk.includes(armed.match)) {
        cut = true;
        armed.done();
        armed = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!cut) return void client.write(chunk);
      client.destroy();
      upstream.destroy();
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const own = (server.address() as AddressInfo).port;
  return {
    url: (base) => base.replace(/@127\.0\.0\.1:\d+\//, `@127.0.0.1:${own}/`),
    arm: (match) => new Promise<void>((resolve) => (armed = { match, done: resolve })),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.skipIf(skip !== undefined)(`webhook listen: no straggler after a cut database connection${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.drop();
    await dirs.cleanup();
  });

  it('a delivery committed but answered 503 is processed within 10 s, whether the sender retries it or not; the backlog gauge shows it until then', async () => {
    const direct = await server.database('webhooks_straggler');
    const proxy = await startReplyDropper(server.port);
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = join(await dirs.make('svc-key-'), 'key.pem');
    await writeFile(keyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const home = await makeSvcHome(dirs);
    const child = execa('node', [svcBin, 'webhook', 'listen', '--port', '0', '--admin-port', '0', '--json'], {
      env: svcEnv(home, { SVC_WEBHOOK_SECRET: SECRET, SVC_PRIVATE_KEY_FILE: keyFile, SVC_DATABASE_URL: proxy.url(direct), SVC_WEBHOOK_CLAIM_SECONDS: '2' }),
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
    const agent = new Agent({ connections: 4 });
    const db = new pg.Client({ connectionString: direct });
    try {
      for (const deadline = Date.now() + 20_000; !/listening on /.test(stderr) || !/admin endpoints on /.test(stderr); ) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the listener did not start:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const url = /listening on (\S+)/.exec(stderr)![1] as string;
      const admin = /admin endpoints on (\S+)/.exec(stderr)![1] as string;
      const send = async (raw: Buffer) => {
        const res = await request(url, { dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, raw, Math.floor(Date.now() / 1000)) }, body: raw });
        await res.body.dump();
        return res.statusCode;
      };
      const backlog = async () => Number(/^svc_webhook_backlog (\S+)$/m.exec(await (await request(`${admin}/metrics`, { dispatcher: agent })).body.text())?.[1]);
      await db.connect();
      const processedAt = async (id: string) => (await db.query('SELECT processed_at FROM svc_webhook_deliveries WHERE id = $1', [id])).rows[0] as { processed_at: Date | null } | undefined;

      const retried = Buffer.from(JSON.stringify({ event: 'SOME_EVENT', data: { n: 1 } }));
      const abandoned = Buffer.from(JSON.stringify({ event: 'SOME_EVENT', data: { n: 2 } }));
      for (const raw of [retried, abandoned]) {
        const cut = proxy.arm('INSERT INTO svc_webhook_deliveries');
        expect(await send(raw)).toBe(503);
        await cut;
        // Committed although the listener heard nothing back.
        expect(await processedAt(bodyId(raw)), 'the row was committed').toMatchObject({ processed_at: null });
      }
      expect(await backlog()).toBeGreaterThanOrEqual(2);
      // The sender retries the first; it gave up on the second.
      for (let round = 0; (await send(retried)) !== 200; round++) {
        expect(round).toBeLessThan(20);
        await new Promise((r) => setTimeout(r, 250));
      }
      const started = Date.now();
      for (;;) {
        const done = await Promise.all([retried, abandoned].map(async (raw) => (await processedAt(bodyId(raw)))?.processed_at != null));
        if (done.every(Boolean) && (await backlog()) === 0) break;
        if (Date.now() - started > 10_000) throw new Error(`left unprocessed after 10 s: retried ${done[0] ? 'processed' : 'NOT processed'}, abandoned ${done[1] ? 'processed' : 'NOT processed'}, backlog ${await backlog()}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const lines = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; duplicate: boolean });
      const processed = lines.filter((e) => !e.duplicate).map((e) => e.id);
      expect(processed.sort()).toEqual([bodyId(retried), bodyId(abandoned)].sort());
    } finally {
      child.kill('SIGTERM');
      await child;
      await db.end().catch(() => undefined);
      await agent.close();
      await proxy.close();
    }
  }, 90_000);
});
