// `webhook listen --subscribe --all-grants` as a service, started during an outage of the
// service (every API request answered 503) with the companies' subscriptions stored here: it
// says at once that it listens with them while it checks them with the service in the
// background, logs `listening` and `ready` before any delivery, and then one warning for the
// companies it could not check (not an error, not "something on this machine"), and a
// `subscribed` line with its counts as fields. The delivery of a company then still arrives.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { repoRoot, svcBin, svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';

const COMPANIES = 12;

interface Line {
  level: string;
  msg: string;
  [field: string]: unknown;
}

describe(`webhook listen --subscribe --all-grants started during an outage (${COMPANIES} companies)`, () => {
  const { merchant } = useMerchant(['--companies', String(COMPANIES)]);

  it('listens at once with the stored subscriptions, checks them in the background, and says what it could not check once, as a warning', async () => {
    const m = merchant();
    const port = String(await freeLoopbackPort());
    const start = () => {
      const child = execa('node', [svcBin, 'webhook', 'listen', '--port', port, '--admin-port', '0', '--log-format', 'json', '--subscribe', '--all-grants'], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', forceKillAfterDelay: 5_000 });
      let stderr = '';
      child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
      const lines = () => stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);
      const until = async (what: (l: Line) => boolean, ms: number) => {
        for (const deadline = Date.now() + ms; !lines().some(what); ) {
          if (child.exitCode !== null || Date.now() > deadline) throw new Error(`not seen within ${ms} ms:\n${stderr}`);
          await new Promise((r) => setTimeout(r, 25));
        }
        return lines().find(what)!;
      };
      return { child, lines, until, stderr: () => stderr };
    };
    // Every company subscribed once, with the service up.
    const first = start();
    await first.until((l) => l.msg === 'listening', 60_000);
    first.child.kill('SIGTERM');
    await first.child;

    await m.svc(['sandbox', 'trigger', 'outage', '--requests', '1000', '--retry-after', '1']);
    const second = start();
    try {
      const started = Date.now();
      const listening = await second.until((l) => l.msg === 'listening', 20_000);
      // At once, not once every company was asked: the check is under way in the background.
      expect(Date.now() - started, second.stderr()).toBeLessThan(8_000);
      expect(second.lines().some((l) => l.msg === 'subscribed'), second.stderr()).toBe(false);
      expect(listening).toMatchObject({ level: 'info', url: `http://127.0.0.1:${port}/webhooks`, stored: COMPANIES, checking: true });
      expect(String(listening.detail)).toContain(`with the ${COMPANIES} subscriptions stored on this machine while it checks them with the service in the background`);
      const ready = await second.until((l) => l.msg === 'ready', 5_000);
      expect(String(ready.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/readyz$/);

      // The check ends: every company unchecked (503s), one warning, no error line.
      const subscribed = await second.until((l) => l.msg === 'subscribed', 120_000);
      expect(subscribed).toMatchObject({ level: 'info', companies: COMPANIES, created: 0, reused: 0, unchecked: COMPANIES, failed: 0, url: `http://127.0.0.1:${port}/webhooks` });
      const all = second.lines();
      const warnings = all.filter((l) => l.level === 'warn' && l.msg.startsWith('could not check'));
      expect(warnings, second.stderr()).toHaveLength(1);
      expect(warnings[0]!.msg).toContain(`could not check ${COMPANIES} companies' subscriptions with the service`);
      expect(warnings[0]!.msg).toContain('503');
      expect(warnings[0]!.msg).toContain('listening with the secrets stored on this machine for them');
      expect(all.filter((l) => l.level === 'error'), second.stderr()).toEqual([]);
      expect(second.stderr()).not.toContain('something on this machine');
      // The order that happened: admin, listening, ready, then the check's outcome.
      const order = all.map((l) => l.msg);
      expect(order.indexOf('admin')).toBeLessThan(order.indexOf('listening'));
      expect(order.indexOf('listening')).toBeLessThan(order.indexOf('ready'));
      expect(order.indexOf('ready')).toBeLessThan(order.indexOf('subscribed'));

      // The service back: a delivery of the default company is taken with its stored secret.
      await m.svc(['sandbox', 'trigger', 'outage', '--requests', '0']);
      const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
      await second.until((l) => l.msg === 'processed' && l.event === 'RETURN_REQUESTED', 30_000);
      const after = second.lines().map((l) => l.msg);
      expect(after.indexOf('listening')).toBeLessThan(after.indexOf('delivery'));
    } finally {
      second.child.kill('SIGTERM');
      await second.child;
      await m.svc(['sandbox', 'trigger', 'outage', '--requests', '0']);
    }
  }, 240_000);
});
