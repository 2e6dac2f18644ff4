// `svc sandbox trigger outage`: the sandbox answers the next N API requests 503 with a
// Retry-After, as a service restarting does. svc's retries ride it out (docs/networks.md):
// a receipt issued through two 503s is issued once, a longer outage ends in exit 8 after
// 4 attempts, the sandbox's own endpoints keep answering, and --requests 0 ends it.
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { freeLoopbackPort } from '../../src/net-port.js';
import { repoRoot, runSvc, svcBin, svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';

const { merchant } = useMerchant();

const outageLines = () => merchant().sandbox.stderr().split('\n').filter((l) => /outage: [A-Z]+ \S+ answered 503/.test(l));

describe('sandbox trigger outage', () => {
  it('two 503s on the way: the receipt is issued once, and a re-run finds it', async () => {
    const m = merchant();
    const before = outageLines().length;
    const trigger = await m.svc(['sandbox', 'trigger', 'outage', '--requests', '2']);
    expect(trigger.stdout).toContain('the next 2 requests to the API are answered 503, Retry-After 1 s');
    const file = await m.newReceiptFile();
    const first = await m.svc(['receipt', 'send', '--file', file, '--email', 'alice@example.com']);
    await m.sandbox.waitForStderr(/answered 503 \(0 more to come\)/);
    expect(outageLines().length - before).toBe(2);
    const again = await m.svc(['receipt', 'send', '--file', file, '--email', 'alice@example.com']);
    expect(again.stdout.trim()).toBe(first.stdout.trim());
  });

  it('longer than svc waits: exit 8 after 4 attempts; its own endpoints still answer; --requests 0 ends it', async () => {
    const m = merchant();
    await m.svc(['sandbox', 'trigger', 'outage', '--requests', '50', '--retry-after', '0']);
    const failed = await runSvc(['credit-note', 'poll'], { home: m.home, env: m.env });
    expect(failed.exitCode, failed.stderr).toBe(8);
    expect(failed.stderr).toMatch(/after 4 attempts/);
    // The service's words, then svc's, each a clause of its own (not "retry after 0 s after 4 attempts").
    expect(failed.stderr).toContain('(sandbox trigger outage); retry after 0 s; gave up after 4 attempts (GET /credit-note) [503 server_error]');
    await m.svc(['sandbox', 'outbox']);
    const over = await m.svc(['sandbox', 'trigger', 'outage', '--requests', '0']);
    expect(over.stdout).toContain('the outage is over');
    await m.svc(['credit-note', 'poll']);
  });

  it('webhook listen --subscribe while the service is down: listens with the subscription and secret this machine holds (a warning says so) instead of exiting 8', async () => {
    const m = merchant();
    const port = String(await freeLoopbackPort());
    const listen = () => execa('node', [svcBin, 'webhook', 'listen', '--port', port, '--subscribe'], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', forceKillAfterDelay: 5_000 });
    const until = async (child: ReturnType<typeof listen>, seen: () => string, what: RegExp) => {
      for (const deadline = Date.now() + 20_000; !what.test(seen()); ) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${what}:\n${seen()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    // Subscribed once, with the service up.
    const first = listen();
    let firstErr = '';
    first.stderr?.on('data', (c: Buffer) => (firstErr += c.toString()));
    await until(first, () => firstErr, /listening on/);
    const id = /(?:subscribed|reusing subscription) (whsub_\S+)/.exec(firstErr)?.[1];
    expect(id, firstErr).toBeDefined();
    first.kill('SIGTERM');
    await first;

    await m.svc(['sandbox', 'trigger', 'outage', '--requests', '50', '--retry-after', '0']);
    const second = listen();
    let err = '';
    second.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    try {
      await until(second, () => err, /listening on/);
      expect(err).toContain(`warning: could not check subscription ${id} with the service (`);
      expect(err).toContain('listening with the secret stored for it');
      // The service back: its deliveries, signed with that secret, are verified and taken.
      await m.svc(['sandbox', 'trigger', 'outage', '--requests', '0']);
      const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
      await until(second, () => err, /--> RETURN_REQUESTED/);
      expect(err).not.toContain('refused a delivery');
    } finally {
      second.kill('SIGTERM');
      await second;
      await m.svc(['sandbox', 'trigger', 'outage', '--requests', '0']);
    }
  }, 60_000);

  it('a count that is not a whole number: exit 2 naming the flag', async () => {
    const m = merchant();
    const bad = await runSvc(['sandbox', 'trigger', 'outage', '--requests', 'lots'], { home: m.home, env: m.env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--requests: "lots" is not a whole number from 0 to 1000');
  });
});
