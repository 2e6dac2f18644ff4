// `svc webhook listen` behind a load balancer, on one real PostgreSQL journal: three
// listeners fed round-robin with every delivery sent twice (to two of them), one SIGKILLed
// mid-burst and started again — every delivery acknowledged with 2xx is in the database and
// processed, and none by two live listeners; and the database stopped mid-burst — 503 while
// it is down, nothing acknowledged lost, processing resumed once it is back.
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import pg from 'pg';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyId } from '../../src/crypto/hash.js';
import { encryptJson } from '../../src/crypto/hybrid.js';
import { signPayload } from '../../src/webhook/signature.js';
import { postgresSkipReason, startPostgres, type PgServer } from '../postgres-server.js';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv, tempDirs, type SvcHome } from './helpers.js';

const SECRET = 'whsec_ZTJlLXRlYW0tc2VjcmV0LWUyZS10ZWFtLXNlY3JldC0xMjM0NTY3OA==';
const skip = postgresSkipReason();
const dirs = tempDirs();
let server: PgServer;
let keyFile: string;
let publicKey: string;

beforeAll(async () => {
  if (skip) return;
  server = await startPostgres();
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  keyFile = join(await dirs.make('svc-key-'), 'key.pem');
  await writeFile(keyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  publicKey = pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}, 60_000);
afterAll(async () => {
  await server?.drop();
  await dirs.cleanup();
});

interface Listener {
  child: ResultPromise;
  url: string;
  /** Ids this listener processed (its NDJSON lines that are not duplicates). */
  processed(): string[];
  stderr(): string;
}

async function startListener(home: SvcHome, env: Record<string, string>, port = '0', args: string[] = []): Promise<Listener> {
  const child = execa('node', [svcBin, 'webhook', 'listen', '--port', port, '--json', ...args], { env: svcEnv(home, env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', forceKillAfterDelay: 5_000 });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  for (const deadline = Date.now() + 20_000; ; ) {
    const url = /listening on (\S+)/.exec(stderr)?.[1];
    if (url) {
      return {
        child,
        url,
        stderr: () => stderr,
        processed: () =>
          stdout
            .split('\n')
            .filter(Boolean)
            .flatMap((l) => {
              const e = JSON.parse(l) as { id: string; duplicate: boolean };
              return e.duplicate ? [] : [e.id];
            }),
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the listener did not start:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function body(i: number): Buffer {
  const sealed = encryptJson({ serviceReceiptId: `sr-${i}`, receiptId: `R-${i}`, lineItems: [{ productId: 'sku-1', quantity: 1, reasonCode: 'DAMAGED' }], refundPreference: 'STORE_CREDIT' }, publicKey);
  const item = { created_at: new Date().toISOString(), serviceReceiptId: `sr-${i}`, publicKey, encryptedCreditNoteInitiationRequest: sealed.ciphertext, encryptedSymmetricKey: sealed.wrappedKey };
  return Buffer.from(JSON.stringify({ event: 'RETURN_REQUESTED', data: { creditNoteInitiationRequest: item }, n: i }));
}

async function send(agent: Agent, url: string, raw: Buffer): Promise<number | undefined> {
  try {
    const res = await request(url, { dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, raw, Math.floor(Date.now() / 1000)) }, body: raw });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return undefined;
  }
}

async function rows(url: string): Promise<Map<string, boolean>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: found } = await client.query('SELECT id, processed_at IS NOT NULL AS processed FROM svc_webhook_deliveries');
    return new Map(found.map((r: { id: string; processed: boolean }) => [r.id, r.processed]));
  } finally {
    await client.end();
  }
}

async function untilProcessed(url: string, ids: readonly string[], what: () => string): Promise<void> {
  for (const deadline = Date.now() + 60_000; ; ) {
    const stored = await rows(url).catch(() => new Map<string, boolean>());
    if (ids.every((id) => stored.get(id) === true)) return;
    if (Date.now() > deadline) throw new Error(`not all processed: ${ids.filter((id) => stored.get(id) !== true).length} left\n${what()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(skip !== undefined)(`webhook listeners sharing a PostgreSQL journal${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('three listeners, every delivery sent to two of them, one killed (-9) mid-burst and restarted: every 2xx stored, each processed, none by two live listeners', async () => {
    const url = await server.database('webhooks_three');
    const home = await makeSvcHome(dirs);
    const env = { SVC_WEBHOOK_SECRET: SECRET, SVC_PRIVATE_KEY_FILE: keyFile, SVC_DATABASE_URL: url, SVC_WEBHOOK_CLAIM_SECONDS: '2' };
    const listeners = [await startListener(home, env), await startListener(home, env), await startListener(home, env)];
    const bodies = Array.from({ length: 240 }, (_, i) => body(i));
    const ids = bodies.map((b) => bodyId(b));
    const acked = new Set<number>();
    const agent = new Agent({ connections: 32 });
    let killed: Listener | undefined;
    let restarted: Listener | undefined;
    try {
      await Promise.all(
        bodies.map(async (raw, i) => {
          // Round-robin, and the same delivery again to the next listener (a retry after a lost answer).
          for (const k of [i % 3, (i + 1) % 3]) {
            const status = await send(agent, (listeners[k] as Listener).url, raw);
            if (status !== undefined && status >= 200 && status < 300) acked.add(i);
          }
          if (!killed && acked.size >= 80) {
            killed = listeners[0];
            killed?.child.kill('SIGKILL');
          }
        }),
      );
      expect(killed).toBeDefined();
      // Every 2xx promised a committed row.
      const stored = await rows(url);
      for (const i of acked) expect(stored.has(ids[i] as string), `acknowledged delivery ${i}`).toBe(true);
      // The killed listener comes back on its port; the sender retries what got no 2xx anywhere.
      restarted = await startListener(home, env, new URL((listeners[0] as Listener).url).port);
      const live = [restarted, listeners[1] as Listener, listeners[2] as Listener];
      let pending = bodies.map((_, i) => i).filter((i) => !acked.has(i));
      for (let round = 0; pending.length > 0; round++) {
        expect(round).toBeLessThan(20);
        const statuses = await Promise.all(pending.map((i) => send(agent, (live[i % 3] as Listener).url, bodies[i] as Buffer)));
        pending = pending.filter((_, k) => !((statuses[k] ?? 0) >= 200 && (statuses[k] ?? 0) < 300));
      }
      await untilProcessed(url, ids, () => live.map((l) => l.stderr()).join('\n---\n'));
      // Processed once: no delivery by two of the listeners that lived; the killed one may have
      // been part-way through some when it died, and those were taken over after its lease.
      const byLive = live.flatMap((l) => l.processed());
      const twice = byLive.filter((id, k) => byLive.indexOf(id) !== k);
      expect(twice, `processed twice by live listeners: ${twice.map((id) => `${id.slice(0, 12)} by ${live.flatMap((l, k) => l.processed().filter((p) => p === id).map(() => k)).join(', ')}`).join('; ')}\n${live.map((l) => l.stderr()).join('\n---\n')}`).toEqual([]);
      const all = new Set([...byLive, ...(killed as Listener).processed()]);
      for (const id of ids) expect(all.has(id)).toBe(true);
      // `webhook events` on any machine lists the shared journal.
      const events = await runSvc(['webhook', 'events', '--json', '--limit', '1000'], { home: await makeSvcHome(dirs), env: { SVC_DATABASE_URL: url } });
      expect(events.exitCode, events.stderr).toBe(0);
      const listed = JSON.parse(events.stdout) as { id: string; processed: boolean }[];
      expect(listed.map((e) => e.id).sort()).toEqual([...ids].sort());
      expect(listed.every((e) => e.processed)).toBe(true);
    } finally {
      for (const l of [...listeners, restarted]) if (l && l !== killed) l.child.kill('SIGTERM');
      for (const l of [...listeners, restarted]) if (l) await l.child;
      await agent.close();
    }
  }, 180_000);

  it('the database stopped mid-burst: 503 while it is down (said on stderr), nothing acknowledged lost, processing resumes', async () => {
    const url = await server.database('webhooks_restart');
    const home = await makeSvcHome(dirs);
    const env = { SVC_WEBHOOK_SECRET: SECRET, SVC_PRIVATE_KEY_FILE: keyFile, SVC_DATABASE_URL: url, SVC_WEBHOOK_CLAIM_SECONDS: '2' };
    const listener = await startListener(home, env);
    const agent = new Agent({ connections: 8 });
    const bodies = Array.from({ length: 60 }, (_, i) => body(1000 + i));
    const ids = bodies.map((b) => bodyId(b));
    try {
      const first = await Promise.all(bodies.slice(0, 20).map((raw) => send(agent, listener.url, raw)));
      expect(first.every((s) => s === 200)).toBe(true);
      server.stop();
      const whileDown = await Promise.all(bodies.slice(20, 40).map((raw) => send(agent, listener.url, raw)));
      expect(whileDown.every((s) => s === 503), JSON.stringify(whileDown)).toBe(true);
      expect(listener.stderr()).toMatch(/could not be journalled \(the database postgres:\/\/svc:\*\*\*@[^ ]+ is unreachable/);
      expect(listener.stderr()).not.toContain(server.password);
      server.start();
      let pending = bodies.map((_, i) => i).slice(20);
      for (let round = 0; pending.length > 0; round++) {
        expect(round).toBeLessThan(40);
        const statuses = await Promise.all(pending.map((i) => send(agent, listener.url, bodies[i] as Buffer)));
        pending = pending.filter((_, k) => statuses[k] !== 200);
        if (pending.length > 0) await new Promise((r) => setTimeout(r, 250));
      }
      // Processing paused while the database was down, and resumed: each delivery processed once.
      await untilProcessed(url, ids, () => listener.stderr());
      const processed = listener.processed();
      expect(processed.length - new Set(processed).size, 'processed twice').toBe(0);
      expect(listener.stderr()).not.toContain('could not journal');
    } finally {
      listener.child.kill('SIGTERM');
      await listener.child;
      await agent.close();
    }
  }, 120_000);

  it('three listeners forwarding to an app slower than the lease: claims renewed while deliveries wait, none processed twice', async () => {
    const url = await server.database('webhooks_slow');
    const home = await makeSvcHome(dirs);
    const seen = new Map<string, number>();
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = bodyId(Buffer.concat(chunks));
        seen.set(id, (seen.get(id) ?? 0) + 1);
        setTimeout(() => res.end('ok'), 1_500);
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
    // A lease of 1 s: a delivery waits 1.5 s per delivery ahead of it, far beyond its lease.
    const env = { SVC_WEBHOOK_SECRET: SECRET, SVC_PRIVATE_KEY_FILE: keyFile, SVC_DATABASE_URL: url, SVC_WEBHOOK_CLAIM_SECONDS: '1' };
    const listeners = [await startListener(home, env, '0', ['--forward-to', appUrl]), await startListener(home, env, '0', ['--forward-to', appUrl]), await startListener(home, env, '0', ['--forward-to', appUrl])];
    const agent = new Agent({ connections: 8 });
    const bodies = Array.from({ length: 12 }, (_, i) => body(2000 + i));
    const ids = bodies.map((b) => bodyId(b));
    try {
      const statuses = await Promise.all(bodies.map((raw, i) => send(agent, (listeners[i % 3] as Listener).url, raw)));
      expect(statuses.every((s) => s === 200), JSON.stringify(statuses)).toBe(true);
      await untilProcessed(url, ids, () => listeners.map((l) => l.stderr()).join('\n---\n'));
      const byListeners = listeners.flatMap((l) => l.processed());
      expect(byListeners.length - new Set(byListeners).size, `processed twice by live listeners\n${listeners.map((l) => l.stderr()).join('\n---\n')}`).toBe(0);
      expect([...seen.values()].filter((n) => n > 1), 'forwarded twice to the app').toEqual([]);
      expect(new Set(seen.keys())).toEqual(new Set(ids));
    } finally {
      for (const l of listeners) l.child.kill('SIGTERM');
      for (const l of listeners) await l.child;
      await agent.close();
      app.closeAllConnections();
      await new Promise((resolve) => app.close(resolve));
    }
  }, 120_000);
});
