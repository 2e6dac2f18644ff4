// webhook listen --subscribe --all-grants / --grants FILE: the refusals, checked before any
// network call, and one listener for every company of a `sandbox start --companies 3`.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { repoRoot, runSvc, svcBin, svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';

describe('webhook listen --all-grants refusals', () => {
  it('--all-grants without --subscribe is a usage error naming --subscribe', async () => {
    const r = await runSvc(['webhook', 'listen', '--all-grants', '--port', '0']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--all-grants and --grants go with --subscribe');
  });

  it('--all-grants with --show-secret is a usage error pointing at --grant', async () => {
    const r = await runSvc(['webhook', 'listen', '--subscribe', '--all-grants', '--show-secret', '--port', '0']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--show-secret prints one secret');
    expect(r.stderr).toContain('--grant');
  });
});

describe('webhook listen --subscribe --all-grants on a sandbox of 3 companies', () => {
  const { merchant } = useMerchant(['--companies', '3']);

  it('subscribes each company on a path of its own, takes and verifies a delivery of a company not the default; a restart on the same port reuses each', async () => {
    const m = merchant();
    await m.svc(['keys', 'generate', '--upload']);
    const grants = await m.json<{ grant_id: string; company_legal_name: string; tax_id: string }[]>(['grants', 'list']);
    expect(grants.length).toBeGreaterThanOrEqual(3);
    const port = String(await freeLoopbackPort());
    const listen = async () => {
      const child = execa('node', [svcBin, 'webhook', 'listen', '--port', port, '--subscribe', '--all-grants', '--json'], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', forceKillAfterDelay: 5_000 });
      let stderr = '';
      let stdout = '';
      child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
      for (const deadline = Date.now() + 30_000; !/listening on /.test(stderr); ) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the listener did not start:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return { child, stderr: () => stderr, stdout: () => stdout };
    };
    const first = await listen();
    try {
      expect(first.stderr()).toMatch(new RegExp(`subscribed ${grants.length} companies \\(${grants.length} created, 0 reused\\)`));
      const paths = (await m.json<{ notificationUrl: string }[]>(['webhook', 'list', '--all-grants'])).map((s) => new URL(s.notificationUrl).pathname);
      expect(new Set(paths).size).toBe(grants.length);
      // A receipt and its return of the last company (not the profile's default).
      const other = grants.at(-1)!;
      const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--grant', other.tax_id, '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      const requestId = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
      for (const deadline = Date.now() + 20_000; !first.stdout().includes(requestId); ) {
        if (Date.now() > deadline) throw new Error(`no delivery for ${other.company_legal_name}:\n${first.stderr()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const line = first.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; verified: boolean; requestId?: string; error?: string }).find((e) => e.requestId === requestId);
      expect(line).toMatchObject({ event: 'RETURN_REQUESTED', verified: true });
      expect(line?.error).toBeUndefined();
      // The human line names the company.
      expect(first.stderr()).toContain(other.company_legal_name);
    } finally {
      first.child.kill('SIGTERM');
      await first.child;
    }
    const again = await listen();
    try {
      // Found stored here: listening at once, the check with the service in the background.
      expect(again.stderr()).toContain(`with the ${grants.length} subscriptions stored on this machine while it checks them with the service in the background`);
      const reused = new RegExp(`subscribed ${grants.length} companies \\(0 created, ${grants.length} reused\\)`);
      for (const deadline = Date.now() + 30_000; !reused.test(again.stderr()); ) {
        if (Date.now() > deadline) throw new Error(`no ${reused}:\n${again.stderr()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      again.child.kill('SIGTERM');
      await again.child;
    }
  }, 90_000);
});
