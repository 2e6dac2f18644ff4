import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { SvcError, UsageError } from '../../src/errors.js';
import { bundledFixturePath, loadFixture } from '../../src/sandbox/fixture.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { defineSlice } from '../../src/sandbox/state.js';

const START = Date.UTC(2030, 5, 1, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

describe('startSandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ clock: fixedClock(START) });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    await fetch(`${sandbox.url}/sandbox/reset`, { method: 'POST' });
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sandbox.url}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('listens on a free loopback port', () => {
    expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`);
    expect(sandbox.port).toBeGreaterThan(0);
  });

  it('reports its health by the sandbox clock', async () => {
    expect(await call('GET', '/sandbox/health')).toEqual({
      status: 200,
      body: { status: 'ok', version: 'dev', startedAt: iso(START), stateSince: iso(START), persistent: false, now: iso(START) },
    });
  });

  it('advances the clock: POST /sandbox/clock answers the new time, health and error stamps follow', async () => {
    expect(await call('POST', '/sandbox/clock', { advanceSeconds: 900 })).toEqual({ status: 200, body: { now: iso(START + 900_000) } });
    expect((await call('GET', '/sandbox/health')).body).toMatchObject({ startedAt: iso(START), now: iso(START + 900_000) });
    expect((await call('GET', '/nope')).body.timestamp).toBe(iso(START + 900_000));
    expect(sandbox.clock.now()).toBe(START + 900_000);
  });

  it('refuses a clock move that is not a whole number of seconds forward', async () => {
    for (const bad of [{ advanceSeconds: -1 }, { advanceSeconds: 1.5 }, { advanceSeconds: '60' }, {}]) {
      const { status, body } = await call('POST', '/sandbox/clock', bad);
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: 'validation_failed', details: [{ path: 'advanceSeconds' }] });
    }
    expect(sandbox.clock.now()).toBe(START);
  });

  it('resets state and clock to the fixture', async () => {
    const marks = defineSlice('test.marks', () => new Map<string, string>());
    sandbox.state.slice(marks).set('a', 'b');
    const app = sandbox.state.clientApplications.get('app_sandbox_pos');
    if (!app) throw new Error('fixture client missing');
    app.publicKey = { keyData: 'AAAA', algorithm: 'RSA_2048', uploadedAt: iso(START) };
    const stores = sandbox.state.stores;
    stores.delete('50000000-0000-4000-8000-000000000011');
    await call('POST', '/sandbox/clock', { advanceSeconds: 60 });

    expect(await call('POST', '/sandbox/reset')).toEqual({ status: 200, body: { status: 'reset', now: iso(START) } });
    expect(sandbox.state.slice(marks).size).toBe(0);
    expect(sandbox.state.clientApplications.get('app_sandbox_pos')?.publicKey).toBeNull();
    // The same map, refilled: references taken before a reset stay good.
    expect(stores.has('50000000-0000-4000-8000-000000000011')).toBe(true);
    expect(sandbox.state.fixture.clientApplications[0]?.publicKey).toBeNull();
  });

  it('seeds the state from the fixture, by id', () => {
    const { state } = sandbox;
    expect(state.companies.size).toBe(2);
    const [a, b] = [...state.companies.keys()];
    expect(state.storesOf(a ?? '').map((s) => s.isActive)).toEqual([true, true, false]);
    expect(state.storesOf(b ?? '').map((s) => s.isActive)).toEqual([true, false]);
    expect([...state.clientApplications.values()].map((c) => c.status)).toEqual(['Approved', 'Pending', 'Rejected']);
    expect(state.apiKeys.get('sk_sandbox_example_retail_7c1e4b9a2f6d4e0b8a3c5d7e9f1a2b3c')).toBe(a);
    expect(state.devicesOf('cc000000-0000-4000-8000-000000000001')).toHaveLength(3);
    expect(state.devices.get('dd000000-0000-4000-8000-000000000021')?.customerId).toBe('cc000000-0000-4000-8000-000000000002');
  });
});

describe('startSandbox lifecycle', () => {
  it('closes promptly with an idle keep-alive connection open, and close() can be called twice', async () => {
    const sandbox = await startSandbox();
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      httpRequest(`${sandbox.url}/sandbox/health`, { agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end();
    });
    const started = Date.now();
    await Promise.all([sandbox.close(), sandbox.close()]);
    expect(Date.now() - started).toBeLessThan(500);
    await expect(fetch(`${sandbox.url}/sandbox/health`)).rejects.toThrow();
    agent.destroy();
  });

  it('says a port in use is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const error = await startSandbox({ port }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SvcError);
      expect((error as SvcError).message).toBe(`--port: port ${port} is in use`);
      expect((error as SvcError).exitCode).toBe(7);
    } finally {
      blocker.close();
    }
  });

  it('takes a fixture object, a path, or the bundled file', async () => {
    const fixture = await loadFixture(bundledFixturePath());
    const sandbox = await startSandbox({ fixture, autoApprove: true });
    expect(sandbox.state.fixture).toBe(fixture);
    await sandbox.close();
    await expect(startSandbox({ fixture: '/no/such/fixture.json' })).rejects.toBeInstanceOf(UsageError);
  });

  it('logs request lines through `log`', async () => {
    const lines: string[] = [];
    const sandbox = await startSandbox({ log: (line) => lines.push(line) });
    await fetch(`${sandbox.url}/sandbox/health`);
    await sandbox.close();
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/sandbox\/health 200 \d+ms$/));
  });
});
