import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { StopSignal } from '../../../src/io/stop-signal.js';
import { run } from '../../../src/commands/sandbox/start.js';
import { SvcError, UsageError } from '../../../src/errors.js';
import { createFactory } from '../../../src/factory.js';
import { testStreams } from '../../../src/io/test-streams.js';

function harness() {
  const streams = testStreams();
  const f = createFactory({ env: {}, globals: { json: false, input: false, debug: false, color: false }, io: streams.io });
  let stop: (signal: string) => void = () => {};
  let disposed = false;
  const signal = (): StopSignal => ({
    stopped: new Promise((resolve) => (stop = resolve)),
    dispose: () => (disposed = true),
  });
  return { streams, f, signal, stop: (s: string) => stop(s), disposed: () => disposed };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('svc sandbox start', () => {
  it('prints the listening line first, the login details on stderr, and stops on a signal', async () => {
    const h = harness();
    const running = run({ port: '0', host: '127.0.0.1' }, h.f, h.signal);
    await until(() => h.streams.stdout().includes('\n'));
    const [first] = h.streams.stdout().split('\n');
    expect(first).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = (first ?? '').replace('listening on ', '');
    expect((await fetch(`${url}/sandbox/health`)).status).toBe(200);
    expect(h.streams.stderr()).toContain('client id      app_sandbox_pos (Sandbox POS)');
    expect(h.streams.stderr()).toContain('redirect URI   http://127.0.0.1:8765/callback');

    h.stop('SIGTERM');
    await running;
    expect(h.streams.stderr()).toContain('SIGTERM: stopping the sandbox');
    expect(h.streams.stdout().split('\n').filter(Boolean)).toHaveLength(1);
    await expect(fetch(`${url}/sandbox/health`)).rejects.toThrow();
  });

  it('refuses a port that is not 0-65535, naming --port', async () => {
    for (const port of ['-1', '65536', 'http', '8080x', '']) {
      const h = harness();
      await expect(run({ port, host: '127.0.0.1' }, h.f, h.signal)).rejects.toThrow(UsageError);
      await expect(run({ port, host: '127.0.0.1' }, h.f, h.signal)).rejects.toThrow(/--port/);
    }
  });

  it('refuses to listen beyond loopback, naming --host', async () => {
    const h = harness();
    await expect(run({ port: '0', host: '0.0.0.0' }, h.f, h.signal)).rejects.toThrow(/--host: 0\.0\.0\.0 is not a loopback address/);
  });

  it('says the port is in use and lets go of the signals', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const h = harness();
      const error = await run({ port: String(port), host: '127.0.0.1' }, h.f, h.signal).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SvcError);
      expect((error as SvcError).message).toBe(`--port: port ${port} is in use`);
      expect(h.disposed()).toBe(true);
      expect(h.streams.stdout()).toBe('');
    } finally {
      blocker.close();
    }
  });
});
