// `svc webhook listen` on a profile keeping 10,000 subscriptions, each delivering to a path of
// its own (a platform subscribed every company with `--own-path`): it starts within a
// 300 MB heap and takes a real, signed delivery from the sandbox. It loaded every secret by
// reading the whole secret file once per subscription, all at once, and ran out of memory.
// The 9,999 other subscriptions are laid down as the whole-file records an older svc kept
// (the cheapest way to 10,000; creating them through the sandbox takes far longer in CI).
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, svcBin, svcEnv, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';

const SUBSCRIPTIONS = 10_000;
const dirs = tempDirs();
let m: Merchant;

beforeAll(async () => {
  m = await startMerchant(dirs);
  const ownPath = (grantId: string) => `/webhooks/g${createHash('sha256').update(grantId).digest('hex').slice(0, 24)}`;
  const subscriptions = Array.from({ length: SUBSCRIPTIONS - 1 }, (_, i) => ({
    id: `whsub_scale_${i}`,
    name: `scale ${i}`,
    notificationUrl: `http://127.0.0.1:9${ownPath(`grant-${i}`)}`,
    events: ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED'],
    createdAt: new Date().toISOString(),
    grantId: `grant-${i}`,
  }));
  const webhooks = join(m.home.stateDir, 'local', 'webhooks');
  await mkdir(webhooks, { recursive: true, mode: 0o700 });
  await writeFile(join(webhooks, 'subscriptions.json'), JSON.stringify({ version: 1, subscriptions }), { mode: 0o600 });
  const secretsFile = join(m.home.configDir, 'secrets.json');
  const secrets = JSON.parse(await readFile(secretsFile, 'utf8')) as Record<string, string>;
  for (const s of subscriptions) secrets[`local/webhook-secret/${s.id}`] = `whsec_${randomBytes(32).toString('base64')}`;
  await writeFile(secretsFile, JSON.stringify(secrets), { mode: 0o600 });
}, 60_000);
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

describe('svc webhook listen with 10,000 subscriptions', () => {
  it('starts within a 300 MB heap and verifies a delivery from the sandbox', async () => {
    const started = Date.now();
    const child = execa('node', ['--max-old-space-size=300', svcBin, 'webhook', 'listen', '--port', '0', '--subscribe', '--json'], {
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
      for (const deadline = Date.now() + 60_000; !seen(); ) {
        if (Date.now() > deadline || child.exitCode !== null || child.signalCode !== null) throw new Error(`no ${what} (exit ${child.exitCode ?? child.signalCode}):\n${stderr.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    try {
      await until(() => /listening on http:\/\/\S+/.test(stderr), 'listening line');
      const ready = Date.now() - started;
      const { serviceReceiptId } = JSON.parse((await m.svc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--json'])).stdout) as { serviceReceiptId: string };
      await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
      const events = () => stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { event: string; verified: boolean; error?: string });
      await until(() => events().some((e) => e.event === 'RETURN_REQUESTED'), 'RETURN_REQUESTED');
      expect(events().find((e) => e.event === 'RETURN_REQUESTED')).toMatchObject({ verified: true });
      expect(stderr).not.toMatch(/rejected/);
      // Loose for a loaded CI machine; on an idle one it listens within a second.
      expect(ready).toBeLessThan(30_000);
    } finally {
      child.kill('SIGTERM');
      await child;
    }
  }, 120_000);
});
