// The listener tells the truth: after `svc sandbox clock advance 1d` every delivery is signed
// a day ahead of this machine's clock, and `webhook listen` says so for each one (stderr, and
// an NDJSON line under --json) and counts them when it stops, instead of showing nothing.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { signPayload } from '../../src/webhook/signature.js';
import { repoRoot, runSvc, svcBin, svcEnv } from './helpers.js';
import { useMerchant, type Merchant } from './merchant.js';

const { merchant } = useMerchant();

interface Listener {
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then waits for the exit (the summary is written then). */
  stop(): Promise<void>;
}

/** `svc webhook listen ARGS` in the background, resolved once it says it listens. */
async function listen(m: Merchant, args: readonly string[], env: Record<string, string> = {}): Promise<Listener> {
  const child = execa('node', [svcBin, 'webhook', 'listen', ...args], { env: svcEnv(m.home, { ...m.env, ...env }), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  const stop = async () => {
    child.kill('SIGTERM');
    await child;
  };
  for (const deadline = Date.now() + 20_000; !stderr.includes('listening on'); ) {
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the listener did not start:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { stdout: () => stdout, stderr: () => stderr, stop };
}

describe('webhook listen, deliveries refused', () => {
  it('a sandbox clock a day ahead: each delivery refused, with the skew and who is ahead; a summary at stop', async () => {
    const m = merchant();
    const port = await freeLoopbackPort();
    const listener = await listen(m, ['--port', String(port), '--subscribe', '--json']);
    try {
      await m.svc(['sandbox', 'clock', 'advance', '1d']);
      const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
      // stderr and stdout are separate pipes: wait for both lines.
      for (const deadline = Date.now() + 20_000; !listener.stderr().includes('refused a delivery') || !listener.stdout().includes('"rejected":true'); ) {
        if (Date.now() > deadline) throw new Error(`no refusal was reported:\n${listener.stderr()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // The line itself, so that a failure shows it (the skew is a day less the delivery's own delay).
      const refusal = listener.stderr().split('\n').find((l) => l.includes('refused a delivery')) ?? '';
      expect(refusal).toMatch(/refused a delivery: 400 signature from the future: signed 86[34]\d\d s after this clock's now \(tolerance 300 s\); the sender's clock is ahead/);
      const line = listener.stdout().split('\n').find((l) => l.includes('"rejected":true'));
      expect(JSON.parse(line ?? '{}')).toMatchObject({ rejected: true, status: 400, error: 'invalid_signature' });
    } finally {
      await listener.stop();
    }
    const stderr = listener.stderr();
    expect(stderr).toMatch(/refused (\d+) deliver(y|ies) while listening: \1 × signed in the future\n/);
  });
});

describe('webhook listen with SVC_WEBHOOK_SECRET set', () => {
  it('a delivery signed with another secret: not signed with SVC_WEBHOOK_SECRET, check it; never a secret', async () => {
    const m = merchant();
    const configured = 'whsec_ZTJlLWNvbmZpZ3VyZWQtc2VjcmV0LTEyMzQ1Njc4OTAxMjM=';
    const other = 'whsec_ZTJlLW90aGVyLXNlY3JldC1vdGhlci0xMjM0NTY3ODkwMTI=';
    const port = await freeLoopbackPort();
    const listener = await listen(m, ['--port', String(port)], { SVC_WEBHOOK_SECRET: configured });
    try {
      const body = JSON.stringify({ event: 'RETURN_REQUESTED', data: {} });
      const res = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(other, body, Math.floor(Date.now() / 1000)) },
        body,
      });
      expect(res.status).toBe(400);
      await res.text();
    } finally {
      await listener.stop();
    }
    const stderr = listener.stderr();
    // The merchant is shared by this file: a subscription made by a test before adds its secret.
    expect(stderr).toMatch(
      /refused a delivery: 400 no secret matched \(\d+ secrets? tried\): the delivery was not signed with SVC_WEBHOOK_SECRET( nor with [^;]*)?; check that SVC_WEBHOOK_SECRET is the secret of the subscription that sends here\n/,
    );
    expect(stderr).toContain('refused 1 delivery while listening: 1 × no secret matched\n');
    expect(stderr).not.toContain('or set SVC_WEBHOOK_SECRET');
    for (const secret of [configured, other]) expect(stderr).not.toContain(secret);
  });
});

describe('webhook listen beyond loopback', () => {
  it('--host 0.0.0.0 needs --public (exit 2 naming it); with it, a warning names the exposure', async () => {
    const m = merchant();
    const refused = await runSvc(['webhook', 'listen', '--host', '0.0.0.0', '--port', '0'], { home: m.home, env: { ...m.env, SVC_WEBHOOK_SECRET: 'whsec_ZTJlLXB1YmxpYy1zZWNyZXQtMTIzNDU2Nzg5MDEyMzQ=' } });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--public');
    const listener = await listen(m, ['--host', '0.0.0.0', '--public', '--port', '0'], { SVC_WEBHOOK_SECRET: 'whsec_ZTJlLXB1YmxpYy1zZWNyZXQtMTIzNDU2Nzg5MDEyMzQ=' });
    try {
      expect(listener.stderr()).toContain('warning: listening on 0.0.0.0: reachable from other machines');
    } finally {
      await listener.stop();
    }
  });
});
