// The built `svc sandbox` against itself: the frame every later end-to-end test stands on.
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runSvc, startSandbox, type SandboxProcess } from './helpers.js';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };

interface Health {
  status: string;
  version: string;
  startedAt: string;
  stateSince: string;
  now: string;
}

describe('svc sandbox start', () => {
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  const health = async (): Promise<Health> => {
    const res = await fetch(`${sandbox.url}/sandbox/health`);
    expect(res.status).toBe(200);
    return (await res.json()) as Health;
  };

  it('prints the listening line first and answers /sandbox/health', async () => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${sandbox.url}/sandbox/health`);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await res.json()) as Health;
    expect(body).toEqual({ status: 'ok', version, startedAt: expect.stringMatching(ISO_8601), stateSince: expect.stringMatching(ISO_8601), persistent: false, now: expect.stringMatching(ISO_8601) });
  });

  it('tells on stderr which client to log in with', async () => {
    await sandbox.waitForStderr('press Ctrl-C to stop');
    expect(sandbox.stderr()).toContain('app_sandbox_pos');
    expect(sandbox.stderr()).toContain('http://127.0.0.1:8765/callback');
    expect(sandbox.stderr()).toMatch(/clientApplications\[0\]\.clientSecret in .*sandbox\.json/);
    expect(sandbox.stderr()).not.toContain('cs_sandbox_');
  });

  it('on a port other than 8787, says on stderr how to point svc at it (the first stdout line unchanged)', async () => {
    await sandbox.waitForStderr('press Ctrl-C to stop');
    expect(sandbox.stderr()).toMatch(new RegExp(`^export SVC_BASE_URL=${sandbox.url.replace(/[.]/g, '\\.')}\\s`, 'm'));
  });

  it('answers an unknown route with 404 and the contract error body', async () => {
    const res = await fetch(`${sandbox.url}/no/such/route`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description', 'timestamp']);
    expect(body.error).toBe('not_found');
    expect(body.error_description).toEqual(expect.any(String));
    expect(body.timestamp).toMatch(ISO_8601);
  });

  it('refuses a body of 1 MiB + 1 byte with 413', async () => {
    const res = await fetch(`${sandbox.url}/sandbox/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(1024 * 1024 + 1, 0x20),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large', timestamp: expect.stringMatching(ISO_8601) });
  });

  it('refuses invalid JSON with 400 invalid_request', async () => {
    const res = await fetch(`${sandbox.url}/sandbox/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"advanceSeconds": ',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', error_description: 'body is not valid JSON' });
  });

  it('`svc sandbox clock advance 60` moves the clock /sandbox/health reports', async () => {
    const before = Date.parse((await health()).now);
    const result = await runSvc(['sandbox', 'clock', 'advance', '60', '--base-url', sandbox.url]);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const printed = Date.parse(result.stdout.trim());
    expect(printed - before).toBeGreaterThanOrEqual(60_000);
    expect(Date.parse((await health()).now) - before).toBeGreaterThanOrEqual(60_000);
  });

  it('`svc sandbox clock reset` puts the clock back to real time and keeps everything else', async () => {
    const advanced = await runSvc(['sandbox', 'clock', 'advance', '1d', '--base-url', sandbox.url]);
    expect(advanced.exitCode, advanced.stderr).toBe(0);
    expect(Date.parse((await health()).now)).toBeGreaterThan(Date.now() + 86_000_000);
    const since = (await health()).stateSince;
    const result = await runSvc(['sandbox', 'clock', 'reset', '--base-url', sandbox.url]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(Math.abs(Date.parse(result.stdout.trim()) - Date.now())).toBeLessThan(30_000);
    expect(Math.abs(Date.parse((await health()).now) - Date.now())).toBeLessThan(30_000);
    // Not a reset: the state the sandbox holds is the same.
    expect((await health()).stateSince).toBe(since);
  });

  it('`svc sandbox reset --json` puts the clock back', async () => {
    const result = await runSvc(['sandbox', 'reset', '--json', '--base-url', sandbox.url]);
    expect(result.exitCode).toBe(0);
    const body = JSON.parse(result.stdout) as { status: string; now: string };
    expect(body.status).toBe('reset');
    expect(Date.parse(body.now)).toBeLessThan(Date.now() + 30_000);
  });

  it('`svc sandbox clock advance` refuses a bad duration with exit 2', async () => {
    const result = await runSvc(['sandbox', 'clock', 'advance', 'soon', '--base-url', sandbox.url]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('SECONDS');
  });
});

describe('svc sandbox start: lifecycle', () => {
  it('exits 0 promptly on SIGTERM, even with an idle keep-alive connection open', async () => {
    const sandbox = await startSandbox();
    const { port } = new URL(sandbox.url);
    // A node:http agent that keeps the socket open after the response, as API clients do.
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/sandbox/health', agent: new Agent({ keepAlive: true }) }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    const started = Date.now();
    const result = await sandbox.stop();
    expect(result.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.stderr).toContain('SIGTERM: stopping the sandbox');
  });

  it('says clearly that the port is in use (exit 7, conflict: another process holds it)', async () => {
    const blocker = await listening(createServer());
    try {
      const { port } = blocker.address() as AddressInfo;
      const result = await runSvc(['sandbox', 'start', '--port', String(port)]);
      expect(result.exitCode).toBe(7);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`--port: port ${port} is in use`);
    } finally {
      blocker.close();
    }
  });

  it('refuses a non-loopback --host and a bad --port with exit 2', async () => {
    const host = await runSvc(['sandbox', 'start', '--host', '0.0.0.0']);
    expect(host.exitCode).toBe(2);
    expect(host.stderr).toContain('--host');
    const port = await runSvc(['sandbox', 'start', '--port', '70000']);
    expect(port.exitCode).toBe(2);
    expect(port.stderr).toContain('--port');
  });

  it('takes an IPv6 loopback as URLs write it, --host [::1]', async () => {
    const sandbox = await startSandbox(['--host', '[::1]', '--ephemeral']);
    try {
      expect(sandbox.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await fetch(`${sandbox.url}/sandbox/health`)).status).toBe(200);
    } finally {
      await sandbox.stop();
    }
  });

  it('refuses a fixture that is not one (exit 2, naming the field)', async () => {
    const result = await runSvc(['sandbox', 'start', '--port', '0', '--fixture', join(repoRoot, 'package.json')]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('companies');
  });
});

function listening(server: Server): Promise<Server> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
