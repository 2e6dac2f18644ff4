// Issue 6 end to end on the built binary against the sandbox: `svc webhook listen
// --subscribe` creates a subscription pointing at itself, the sandbox's delivery worker
// signs with that subscription's secret, and the listener verifies, journals and decrypts
// RETURN_REQUESTED and CREDIT_NOTE_CREATED; `events`, `list` and `replay` see the same.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { repoRoot, runSvc, svcBin, svcEnv, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';

const dirs = tempDirs();
let m: Merchant;
const svc = (args: string[]) => m.svc(args);
const json = <T>(args: string[]) => m.json<T>(args);

beforeAll(async () => {
  m = await startMerchant(dirs);
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

interface ListenEvent {
  id: string;
  event: string;
  verified: boolean;
  duplicate: boolean;
  data: { serviceReceiptId?: string; lineItems?: unknown[]; envelopeVersion?: number; documents?: Record<string, unknown> } | null;
  error?: string;
  requestId?: string;
  companyId?: string;
  serviceReceiptId?: string;
}

interface Listener {
  url: string;
  stderr(): string;
  /** The event objects of --json so far. */
  events(): ListenEvent[];
  until(seen: () => boolean, what: string): Promise<void>;
  /** SIGTERM; expects a clean exit. */
  stop(): Promise<void>;
}

/** `svc webhook listen --port 0 --subscribe --json`, once it accepts deliveries. */
async function startListener(): Promise<Listener> {
  const child = execa('node', [svcBin, 'webhook', 'listen', '--port', '0', '--subscribe', '--json'], {
    env: svcEnv(m.home, m.env),
    extendEnv: false,
    cwd: repoRoot,
    reject: false,
    stdin: 'ignore',
    forceKillAfterDelay: 5_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const until = async (seen: () => boolean, what: string) => {
    for (const deadline = Date.now() + 20_000; !seen(); ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${what}:\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const stop = async () => {
    child.kill('SIGTERM');
    const stopped = await child;
    expect([stopped.exitCode, stopped.signal], stderr).toEqual([0, undefined]);
  };
  try {
    await until(() => /listening on http:\/\/\S+/.test(stderr), 'listening line');
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
  return {
    url: /listening on (\S+)/.exec(stderr)?.[1] ?? '',
    stderr: () => stderr,
    events: () =>
      stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as ListenEvent),
    until,
    stop,
  };
}

describe('svc webhook listen --subscribe against the sandbox', () => {
  it('receives, verifies, journals and decrypts the sandbox deliveries', async () => {
    const listener = await startListener();
    const { url, until, events, stderr } = listener;
    try {
      const subscriptions = await json<{ id: string; notificationUrl: string; secretStored: boolean; onService: boolean }[]>(['webhook', 'list']);
      expect(subscriptions).toEqual([expect.objectContaining({ notificationUrl: url, secretStored: true, onService: true })]);

      const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      const requested = await json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
      await until(() => events().some((e) => e.event === 'RETURN_REQUESTED'), 'RETURN_REQUESTED');
      const returned = events().find((e) => e.event === 'RETURN_REQUESTED');
      // The line names the request (looked up in the queue by its ciphertext), so it can be acted on.
      expect(returned).toMatchObject({ verified: true, duplicate: false, data: { serviceReceiptId }, requestId: requested.requestId });
      expect(returned?.error).toBeUndefined();
      // stderr is a pipe of its own: its line may reach this process after stdout's.
      const returnedLine = new RegExp(`--> RETURN_REQUESTED {2}[0-9a-f]{12} {2}request ${requested.requestId} {2}receipt ${serviceReceiptId} {2}1 item`);
      await until(() => returnedLine.test(stderr()), 'the RETURN_REQUESTED line on stderr');

      await svc(['credit-note', 'accept', requested.requestId]);
      const issued = await json<{ serviceReceiptId: string }>(['credit-note', 'issue', requested.requestId, '--yes']);
      await until(() => events().some((e) => e.event === 'CREDIT_NOTE_CREATED'), 'CREDIT_NOTE_CREATED');
      const created = events().find((e) => e.event === 'CREDIT_NOTE_CREATED');
      expect(created?.error).toBeUndefined();
      expect(created?.data?.envelopeVersion).toBe(1);
      // The JSON line names the credit note as the text line does.
      expect(created).toMatchObject({ serviceReceiptId: issued.serviceReceiptId });
      expect(Object.keys(created?.data?.documents ?? {}).sort()).toEqual(['SERVICE', 'UBL_CREDIT_NOTE']);
      await until(() => stderr().includes(`credit note ${issued.serviceReceiptId}  SERVICE, UBL_CREDIT_NOTE`), 'the CREDIT_NOTE_CREATED line on stderr');
      // Each line's delivery ID is the one the sandbox's event log gives beside its evt_ ID.
      const logged = (await (await fetch(`${m.sandbox.url}/sandbox/events`)).json()) as { id: string; event: string; deliveryId: string }[];
      for (const e of events().filter((x) => !x.duplicate)) {
        const match = logged.find((l) => l.deliveryId === e.id);
        expect(match, `event ${e.event} ${e.id}`).toMatchObject({ event: e.event, id: expect.stringMatching(/^evt_/) });
      }
    } finally {
      await listener.stop();
    }

    const journalled = await json<{ id: string; event: string; processed: boolean; error?: string }[]>(['webhook', 'events']);
    expect(journalled.map((e) => [e.event, e.processed, e.error])).toEqual([
      ['CREDIT_NOTE_CREATED', true, undefined],
      ['RETURN_REQUESTED', true, undefined],
    ]);
    const replayed = await json<ListenEvent>(['webhook', 'replay', journalled[1]!.id.slice(0, 12)]);
    expect(replayed).toMatchObject({ event: 'RETURN_REQUESTED', data: events()[0]?.data });
    // A replay says what the live line said that needs no service (it works offline): the company, the receipt.
    const live = events().find((e) => e.event === 'RETURN_REQUESTED')!;
    expect(replayed).toMatchObject({ companyId: live.companyId, serviceReceiptId: live.serviceReceiptId });
    expect(replayed).not.toHaveProperty('requestId');
    // Offline (the service unreachable): the replay asks it nothing, says nothing of it, and is done.
    const offline = await runSvc(['webhook', 'replay', journalled[1]!.id.slice(0, 12), '--json'], { home: m.home, env: { ...m.env, SVC_BASE_URL: `http://127.0.0.1:${await freeLoopbackPort()}` } });
    expect(offline.exitCode, offline.stderr).toBe(0);
    expect(offline.stderr).toMatch(/^--> RETURN_REQUESTED .*company Example Retail Ltd\n$/);
    expect(JSON.parse(offline.stdout)).toMatchObject({ event: 'RETURN_REQUESTED', companyId: live.companyId });
    expect(live.serviceReceiptId).toEqual(expect.any(String));
    // Customer data never reaches the journal: only ciphertext.
    const journal = await readFile(join(m.home.stateDir, 'local', 'webhooks', 'journal.ndjson'), 'utf8');
    expect(journal).not.toContain('4001234567890');
  });

  it('return requests moments apart: every RETURN_REQUESTED line names its request', async () => {
    const listener = await startListener();
    const { until, events } = listener;
    try {
      const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      const asked: string[] = [];
      // Within the second: the first line's queue listing predates the later requests.
      for (let i = 0; i < 4; i++) asked.push((await json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).requestId);
      await until(() => events().filter((e) => e.event === 'RETURN_REQUESTED' && (e.data?.serviceReceiptId === serviceReceiptId)).length === 4, 'four RETURN_REQUESTED');
      const named = events().filter((e) => e.event === 'RETURN_REQUESTED' && e.data?.serviceReceiptId === serviceReceiptId).map((e) => (e as { requestId?: string }).requestId);
      expect(named.sort()).toEqual([...asked].sort());
    } finally {
      await listener.stop();
    }
  });

  // Runs after the test above, so the profile has a subscription of an earlier listener too.
  it('decrypts a delivery for a key rotated in another terminal while it listens', async () => {
    const listener = await startListener();
    try {
      const rotated = await json<{ previousKeyId: string; keyId: string }>(['keys', 'rotate']);
      expect(rotated.keyId).not.toBe(rotated.previousKeyId);
      const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      await json(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
      await listener.until(() => listener.events().some((e) => e.event === 'RETURN_REQUESTED'), 'RETURN_REQUESTED');
      const returned = listener.events().find((e) => e.event === 'RETURN_REQUESTED');
      // Encrypted for the new key, which the listener did not have when it started.
      expect(returned?.error, listener.stderr()).toBeUndefined();
      expect(returned).toMatchObject({ verified: true, duplicate: false, data: { serviceReceiptId } });
    } finally {
      await listener.stop();
    }
  });
});
