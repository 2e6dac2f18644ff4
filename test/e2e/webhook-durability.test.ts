// The built `svc webhook listen` killed with SIGKILL in the middle of a burst of signed
// deliveries, then restarted while the sender retries what got no 2xx: nothing that was
// acknowledged is lost, and every delivery is processed exactly once.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
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
  /** The ids of the event lines it printed on stdout, duplicates left out. */
  shown(): string[];
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
  // Read stdout as it comes, so that a full pipe never blocks the listener.
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  for (const deadline = Date.now() + 15_000; ; ) {
    const url = /listening on (\S+)/.exec(stderr)?.[1];
    if (url) return { child, url, stderr: () => stderr, shown: () => shownIds(stdout) };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the listener did not start:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The ids of complete `--json` event lines that are not duplicates. */
function shownIds(stdout: string): string[] {
  return stdout
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as { id: string; duplicate: boolean })
    .filter((e) => !e.duplicate)
    .map((e) => e.id);
}

function returnRequestedBody(i: number, publicKey: string, items = 1): Buffer {
  const plaintext = {
    serviceReceiptId: `sr-${i}`,
    receiptId: `R-${i}`,
    lineItems: Array.from({ length: items }, (_, k) => ({ productId: `sku-${k + 1}`, quantity: 1, reasonCode: 'DAMAGED' })),
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

/** A home with the webhook secret and a private key file: the listener's env, and its journal. */
async function listenerHome(): Promise<{ home: SvcHome; env: Record<string, string>; journalPath: string; publicKeyB64: string }> {
  const home = await makeSvcHome(dirs);
  const keyDir = await dirs.make('svc-key-');
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = join(keyDir, 'key.pem');
  await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  return {
    home,
    env: { SVC_WEBHOOK_SECRET: SECRET, SVC_PRIVATE_KEY_FILE: keyFile },
    journalPath: join(home.stateDir, 'local', 'webhooks', 'journal.ndjson'),
    publicKeyB64: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
}

describe('svc webhook listen under SIGKILL', () => {
  it('keeps every acknowledged delivery and processes every delivery exactly once after a restart', async () => {
    const { home, env, journalPath, publicKeyB64 } = await listenerHome();
    const bodies = Array.from({ length: DELIVERIES }, (_, i) => returnRequestedBody(i, publicKeyB64));
    const ids = bodies.map((b) => bodyId(b));

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

describe('svc webhook listen whose reader stops reading', () => {
  it('journals a delivery as processed only once its line was handed to the pipe: killed (-9) with lines unread, the next start shows the rest', async () => {
    const { home, env, journalPath, publicKeyB64 } = await listenerHome();
    // Lines of about 2 KB each: 600 KB in all, many times what a pipe and its reader's buffer hold.
    const bodies = Array.from({ length: DELIVERIES }, (_, i) => returnRequestedBody(i, publicKeyB64, 40));
    const ids = bodies.map((b) => bodyId(b));

    // The reader (a pipeline's next stage) takes its first lines and then stops reading: the
    // pipe fills, and the listener's event lines wait in it. A SIGKILL then loses those.
    const child = spawn('node', [svcBin, 'webhook', 'listen', '--port', '0', '--json'], { env: svcEnv(home, env), cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const agent = new Agent({ connections: 32 });
    try {
      let url: string | undefined;
      for (const deadline = Date.now() + 15_000; !(url = /listening on (\S+)/.exec(stderr)?.[1]); ) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the listener did not start:\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const statuses = await Promise.all(bodies.map((body) => send(agent, url, body)));
      expect(statuses.every((s) => s === 200), JSON.stringify(statuses)).toBe(true);
      // Processing goes as far as it goes: until the journal's processed count stands still.
      let marked = -1;
      for (let still = 0; still < 10; ) {
        const now = (await readJournal(journalPath)).processed.size;
        still = now === marked ? still + 1 : 0;
        marked = now;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      child.kill('SIGKILL');
      const chunks: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.stdout.resume();
      await once(child.stdout, 'end');
      const shownFirst = shownIds(Buffer.concat(chunks).toString('utf8'));
      // The pipe held only part of the lines, or this test shows nothing.
      expect(shownFirst.length).toBeGreaterThan(0);
      expect(shownFirst.length).toBeLessThan(DELIVERIES);
      // Journalled as processed: only what the reader could get.
      const { processed } = await readJournal(journalPath);
      for (const id of processed.keys()) expect(shownFirst, `${id.slice(0, 12)} journalled as processed but never shown`).toContain(id);

      // The next start shows what the reader never got.
      const second = await startListener(home, env, '0');
      try {
        for (const deadline = Date.now() + 30_000; new Set([...shownFirst, ...second.shown()]).size < DELIVERIES; ) {
          if (Date.now() > deadline) throw new Error(`shown ${new Set([...shownFirst, ...second.shown()]).size} of ${DELIVERIES}:\n${second.stderr()}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        second.child.kill('SIGTERM');
        expect((await second.child).exitCode, second.stderr()).toBe(0);
      }
      expect(new Set([...shownFirst, ...second.shown()])).toEqual(new Set(ids));
    } finally {
      child.kill('SIGKILL');
      await agent.close();
    }
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
