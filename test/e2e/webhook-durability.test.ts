// The built `svc webhook listen` killed with SIGKILL in the middle of a burst of signed
// deliveries, then restarted while the sender retries what got no 2xx: nothing that was
// acknowledged is lost, and every delivery is processed exactly once.
import { generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { bodyId } from '../../src/crypto/hash.js';
import { encryptJson } from '../../src/crypto/hybrid.js';
import { signPayload } from '../../src/webhook/signature.js';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv, tempDirs, type SvcHome } from './helpers.js';

const SECRET = 'whsec_ZTJlLWR1cmFiaWxpdHktc2VjcmV0LWUyZS1kdXJhYmk=';
const DELIVERIES = 300;
const KILL_AFTER_ACKS = 80;

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

interface Listener {
  child: ResultPromise;
  url: string;
  stderr(): string;
}

async function startListener(home: SvcHome, env: Record<string, string>, port: string): Promise<Listener> {
  const child = execa('node', [svcBin, 'webhook', 'listen', '--port', port, '--json'], {
    env: svcEnv(home, env),
    extendEnv: false,
    cwd: repoRoot,
    reject: false,
    stdin: 'ignore',
    forceKillAfterDelay: 5_000,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  // Drain stdout so that a full pipe never blocks the listener.
  child.stdout.resume();
  for (const deadline = Date.now() + 15_000; ; ) {
    const url = /listening on (\S+)/.exec(stderr)?.[1];
    if (url) return { child, url, stderr: () => stderr };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the listener did not start:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function returnRequestedBody(i: number, publicKey: string): Buffer {
  const plaintext = {
    serviceReceiptId: `sr-${i}`,
    receiptId: `R-${i}`,
    lineItems: [{ productId: 'sku-1', quantity: 1, reasonCode: 'DAMAGED' }],
    refundPreference: 'STORE_CREDIT',
  };
  const sealed = encryptJson(plaintext, publicKey);
  const item = {
    created_at: new Date().toISOString(),
    serviceReceiptId: `sr-${i}`,
    publicKey,
    encryptedCreditNoteInitiationRequest: sealed.ciphertext,
    encryptedSymmetricKey: sealed.wrappedKey,
  };
  return Buffer.from(JSON.stringify({ event: 'RETURN_REQUESTED', data: { creditNoteInitiationRequest: item } }));
}

/** One attempt as the sender makes it: a fresh signature time on the identical body. */
async function send(agent: Agent, url: string, body: Buffer): Promise<number | undefined> {
  try {
    const res = await request(url, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, body, Math.floor(Date.now() / 1000)) },
      body,
    });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return undefined;
  }
}

interface JournalLines {
  deliveries: Map<string, number>;
  processed: Map<string, { count: number; ok: boolean }>;
}

async function readJournal(path: string): Promise<JournalLines> {
  const deliveries = new Map<string, number>();
  const processed = new Map<string, { count: number; ok: boolean }>();
  for (const text of (await readFile(path, 'utf8')).split('\n')) {
    let line: { type?: string; id?: string; ok?: boolean };
    try {
      line = JSON.parse(text) as typeof line;
    } catch {
      // The torn tail a SIGKILL may leave: never acknowledged.
      continue;
    }
    if (line.type === 'delivery' && line.id) deliveries.set(line.id, (deliveries.get(line.id) ?? 0) + 1);
    if (line.type === 'processed' && line.id) processed.set(line.id, { count: (processed.get(line.id)?.count ?? 0) + 1, ok: line.ok === true });
  }
  return { deliveries, processed };
}

describe('svc webhook listen under SIGKILL', () => {
  it('keeps every acknowledged delivery and processes every delivery exactly once after a restart', async () => {
    const home = await makeSvcHome(dirs);
    const keyDir = await dirs.make('svc-key-');
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = join(keyDir, 'key.pem');
    await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const env = { SVC_WEBHOOK_SECRET: SECRET, SVC_PRIVATE_KEY_FILE: keyFile };
    const publicKeyB64 = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const bodies = Array.from({ length: DELIVERIES }, (_, i) => returnRequestedBody(i, publicKeyB64));
    const ids = bodies.map((b) => bodyId(b));
    const journalPath = join(home.stateDir, 'local', 'webhooks', 'journal.ndjson');

    const first = await startListener(home, env, '0');
    const port = new URL(first.url).port;
    const agent = new Agent({ connections: 32 });
    const acked = new Set<number>();
    let killed = false;
    try {
      // The burst: every delivery in flight at once over 32 connections; SIGKILL part-way.
      await Promise.all(
        bodies.map(async (body, i) => {
          const status = await send(agent, first.url, body);
          if (status !== undefined && status >= 200 && status < 300) acked.add(i);
          if (!killed && acked.size >= KILL_AFTER_ACKS) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        }),
      );
      const died = await first.child;
      expect(died.signal).toBe('SIGKILL');
      expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
      expect(acked.size).toBeLessThan(DELIVERIES);

      // Every 2xx promised the delivery was on disk.
      const afterKill = await readJournal(journalPath);
      for (const i of acked) expect(afterKill.deliveries.get(ids[i]!), `acknowledged delivery ${i}`).toBe(1);

      // The restart, and the sender retrying everything that got no 2xx until it does.
      const second = await startListener(home, env, port);
      try {
        let pending = bodies.map((_, i) => i).filter((i) => !acked.has(i));
        for (let round = 0; pending.length > 0; round++) {
          expect(round, 'retry rounds').toBeLessThan(20);
          const statuses = await Promise.all(pending.map((i) => send(agent, second.url, bodies[i]!)));
          pending = pending.filter((_, k) => !(statuses[k]! >= 200 && statuses[k]! < 300));
        }
        for (const deadline = Date.now() + 30_000; ; ) {
          const { processed } = await readJournal(journalPath);
          if (processed.size === DELIVERIES) break;
          if (Date.now() > deadline) throw new Error(`only ${processed.size} of ${DELIVERIES} processed:\n${second.stderr()}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        second.child.kill('SIGTERM');
        const stopped = await second.child;
        expect(stopped.exitCode, second.stderr()).toBe(0);
      }
    } finally {
      if (!killed) first.child.kill('SIGKILL');
      await agent.close();
    }

    const { deliveries, processed } = await readJournal(journalPath);
    for (const [i, id] of ids.entries()) {
      expect(deliveries.get(id), `delivery ${i} journalled once`).toBe(1);
      expect(processed.get(id), `delivery ${i} processed once`).toEqual({ count: 1, ok: true });
    }
    expect(deliveries.size).toBe(DELIVERIES);

    const listed = await runSvc(['webhook', 'events', '--json', '--limit', String(DELIVERIES + 10)], { home, env });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const events = JSON.parse(listed.stdout) as { id: string; processed: boolean; error?: string }[];
    expect(events).toHaveLength(DELIVERIES);
    expect(events.every((e) => e.processed && e.error === undefined)).toBe(true);
  });
});

describe('one listener per journal', () => {
  it('a second `webhook listen` on the profile is refused (exit 7) naming the first; once the first is killed, a new one starts at once', async () => {
    const home = await makeSvcHome(dirs);
    const env = { SVC_WEBHOOK_SECRET: SECRET };
    const first = await startListener(home, env, '0');
    try {
      const second = await runSvc(['webhook', 'listen', '--port', '0'], { home, env, timeout: 15_000 });
      expect(second.exitCode, second.stderr).toBe(7);
      expect(second.stderr).toContain(`another \`svc webhook listen\` (pid ${first.child.pid} since `);
      expect(second.stderr).toContain(`listening on ${first.url}) is using the webhook journal`);
      // Another profile has its own journal: no conflict.
      const other = await startListener(home, { ...env, SVC_PROFILE: 'second' }, '0');
      other.child.kill('SIGTERM');
      await other.child;
    } finally {
      first.child.kill('SIGKILL');
      await first.child;
    }
    const third = await startListener(home, env, '0');
    third.child.kill('SIGTERM');
    expect((await third.child).exitCode).toBe(0);
  });
});
