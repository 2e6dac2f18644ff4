// No subscription leaks: `webhook listen --subscribe` run again and again on one URL reuses
// the profile's subscription (so each event is delivered once, not once per run), and
// `webhook unsubscribe` removes it on the service (DELETE, a sandbox extension) and here.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { repoRoot, runSvc, svcBin, svcEnv } from './helpers.js';
import { useMerchant, type Merchant } from './merchant.js';

const { merchant } = useMerchant();

interface Row { id: string; notificationUrl: string; onService: boolean | null; secretStored: boolean }

/** Runs `webhook listen --subscribe` until it listens, calls `during`, then stops it. */
async function listenOnce(m: Merchant, port: number, during: (stderr: () => string) => Promise<void> = async () => {}): Promise<string> {
  const child = execa('node', [svcBin, 'webhook', 'listen', '--port', String(port), '--subscribe'], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  try {
    for (const deadline = Date.now() + 20_000; !stderr.includes('listening on'); ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the listener did not start:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await during(() => stderr);
  } finally {
    child.kill('SIGTERM');
    await child;
  }
  return stderr;
}

describe('webhook subscriptions without leaks', () => {
  it('listen --subscribe five times: one subscription, and one delivery per event', async () => {
    const m = merchant();
    const port = await freeLoopbackPort();
    const url = `http://127.0.0.1:${port}/webhooks`;
    const first = await listenOnce(m, port);
    expect(first).toMatch(/subscribed whsub_\S+ to RETURN_REQUESTED, CREDIT_NOTE_CREATED/);
    for (let run = 2; run <= 4; run++) expect(await listenOnce(m, port)).toMatch(/reusing subscription whsub_/);

    const rows = () => m.json<Row[]>(['webhook', 'list']).then((all) => all.filter((r) => r.notificationUrl === url));
    expect(await rows()).toHaveLength(1);
    const [subscription] = await rows();
    expect(subscription).toMatchObject({ onService: true, secretStored: true });

    // The fifth run receives an event: exactly one delivery to this URL, verified.
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const fifth = await listenOnce(m, port, async (stderr) => {
      await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
      for (const deadline = Date.now() + 20_000; !stderr().includes('RETURN_REQUESTED'); ) {
        if (Date.now() > deadline) throw new Error(`no event arrived:\n${stderr()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    expect(fifth).toMatch(/reusing subscription/);
    expect(fifth).not.toContain('refused a delivery');
    expect(await rows()).toHaveLength(1);
    const attempts = (await (await fetch(`${m.sandbox.url}/sandbox/webhook-deliveries?subscriptionId=${subscription!.id}`)).json()) as { event: string }[];
    expect(attempts.filter((a) => a.event === 'RETURN_REQUESTED')).toHaveLength(1);
  });

  it('webhook subscribe twice with the same URL and events reuses; other events make another', async () => {
    const m = merchant();
    const url = `http://127.0.0.1:${await freeLoopbackPort()}/hooks`;
    const a = await m.svc(['webhook', 'subscribe', '--url', url, '--events', 'RETURN_REQUESTED']);
    const b = await m.svc(['webhook', 'subscribe', '--url', url, '--events', 'RETURN_REQUESTED']);
    expect(b.stdout).toBe(a.stdout);
    expect(b.stderr).toContain('reusing');
    const c = await m.svc(['webhook', 'subscribe', '--url', url, '--events', 'RETURN_REQUESTED,CREDIT_NOTE_CREATED']);
    expect(c.stdout).not.toBe(a.stdout);
    // It overlaps the first on RETURN_REQUESTED, which would now arrive twice: said.
    expect(c.stderr).toContain(`warning: ${a.stdout.trim()} already sends some of these events to ${url}`);
    expect(b.stderr).not.toContain('warning');
  });

  it('unsubscribe by a prefix removes it on the service and here; an unknown or short ID is refused', async () => {
    const m = merchant();
    const url = `http://127.0.0.1:${await freeLoopbackPort()}/gone`;
    const id = (await m.svc(['webhook', 'subscribe', '--url', url])).stdout.trim();
    // Too short to name it (exit 2), whatever it starts; a prefix of nothing is not found (exit 6).
    const short = await runSvc(['webhook', 'unsubscribe', id.slice(0, 'whsub_'.length + 2)], { home: m.home, env: m.env });
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toContain('at least 6');
    const unknown = await runSvc(['webhook', 'unsubscribe', 'whsub_zz'], { home: m.home, env: m.env });
    expect(unknown.exitCode).toBe(6);

    const removed = await m.svc(['webhook', 'unsubscribe', id.slice('whsub_'.length, 'whsub_'.length + 10)]);
    expect(removed.stdout.trim()).toBe(id);
    expect(removed.stderr).toContain(`unsubscribed ${id}`);
    const rows = await m.json<Row[]>(['webhook', 'list']);
    expect(rows.find((r) => r.id === id)).toBeUndefined();

    const again = await runSvc(['webhook', 'unsubscribe', id], { home: m.home, env: m.env });
    expect(again.exitCode).toBe(6);
    expect(again.stderr).toContain(`no webhook subscription ${id}`);
  });

  it('unsubscribe --url removes every subscription of this company to that URL, as webhooks.md says (the ones --port 0 runs left behind); other URLs stay', async () => {
    const m = merchant();
    const url = `http://127.0.0.1:${await freeLoopbackPort()}/left`;
    const other = `http://127.0.0.1:${await freeLoopbackPort()}/kept`;
    const first = (await m.svc(['webhook', 'subscribe', '--url', url, '--events', 'RETURN_REQUESTED'])).stdout.trim();
    const second = (await m.svc(['webhook', 'subscribe', '--url', url, '--events', 'CREDIT_NOTE_CREATED'])).stdout.trim();
    const kept = (await m.svc(['webhook', 'subscribe', '--url', other])).stdout.trim();
    const removed = await runSvc(['webhook', 'unsubscribe', '--url', url], { home: m.home, env: m.env });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(removed.stdout.trim().split('\n').sort()).toEqual([first, second].sort());
    expect(removed.stderr).toContain(`unsubscribed 2 subscriptions to ${url}`);
    const ids = (await m.json<Row[]>(['webhook', 'list'])).map((r) => r.id);
    expect(ids).toContain(kept);
    expect(ids).not.toContain(first);
    expect(ids).not.toContain(second);
    const none = await runSvc(['webhook', 'unsubscribe', '--url', url], { home: m.home, env: m.env });
    expect(none.exitCode).toBe(6);
    expect(none.stderr).toContain(`no webhook subscription to ${url} on the service`);
  });
});
