// The listener tells the truth: after `svc sandbox clock advance 1d` every delivery is signed
// a day ahead of this machine's clock, and `webhook listen` says so for each one (stderr, and
// an NDJSON line under --json) and counts them when it stops, instead of showing nothing.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { repoRoot, runSvc, svcBin, svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';

const { merchant } = useMerchant();

describe('webhook listen, deliveries refused', () => {
  it('a sandbox clock a day ahead: each delivery refused, with the skew and who is ahead; a summary at stop', async () => {
    const m = merchant();
    const port = await freeLoopbackPort();
    const child = execa('node', [svcBin, 'webhook', 'listen', '--port', String(port), '--subscribe', '--json'], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
    let stderr = '';
    let stdout = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    try {
      for (const deadline = Date.now() + 20_000; !stderr.includes('listening on'); ) {
        if (Date.now() > deadline) throw new Error(`the listener did not start:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await m.svc(['sandbox', 'clock', 'advance', '1d']);
      const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
      // stderr and stdout are separate pipes: wait for both lines.
      for (const deadline = Date.now() + 20_000; !stderr.includes('refused a delivery') || !stdout.includes('"rejected":true'); ) {
        if (Date.now() > deadline) throw new Error(`no refusal was reported:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(stderr).toMatch(/refused a delivery: 400 signature from the future: signed 864\d\d s after this clock's now \(tolerance 300 s\); the sender's clock is ahead/);
      const line = stdout.split('\n').find((l) => l.includes('"rejected":true'));
      expect(JSON.parse(line ?? '{}')).toMatchObject({ rejected: true, status: 400, error: 'invalid_signature' });
    } finally {
      child.kill('SIGTERM');
      await child;
    }
    expect(stderr).toMatch(/refused (\d+) deliver(y|ies) while listening: \1 × signed in the future\n/);
  });
});

describe('webhook listen beyond loopback', () => {
  it('--host 0.0.0.0 needs --public (exit 2 naming it); with it, a warning names the exposure', async () => {
    const m = merchant();
    const refused = await runSvc(['webhook', 'listen', '--host', '0.0.0.0', '--port', '0'], { home: m.home, env: { ...m.env, SVC_WEBHOOK_SECRET: 'whsec_ZTJlLXB1YmxpYy1zZWNyZXQtMTIzNDU2Nzg5MDEyMzQ=' } });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--public');
    const child = execa('node', [svcBin, 'webhook', 'listen', '--host', '0.0.0.0', '--public', '--port', '0'], {
      env: svcEnv(m.home, { ...m.env, SVC_WEBHOOK_SECRET: 'whsec_ZTJlLXB1YmxpYy1zZWNyZXQtMTIzNDU2Nzg5MDEyMzQ=' }),
      extendEnv: false,
      cwd: repoRoot,
      reject: false,
      stdin: 'ignore',
    });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      for (const deadline = Date.now() + 20_000; !stderr.includes('listening on'); ) {
        if (Date.now() > deadline) throw new Error(`the listener did not start:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(stderr).toContain('warning: listening on 0.0.0.0: reachable from other machines');
    } finally {
      child.kill('SIGTERM');
      await child;
    }
  });
});
