// docs/interface-decisions.md#host-header, the DNS-rebinding defence: the sandbox answers only requests whose Host is a
// loopback name or address; anything else gets 421 with the contract's error body.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { checkHost } from '../../src/sandbox/router.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

function get(path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${sandbox.url}${path}`, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the Host header', () => {
  it.each(['127.0.0.1', `127.0.0.1:${'8787'}`, 'localhost:8787', 'LOCALHOST', '[::1]:8787', '127.5.6.7'])('answers %s', (host) => {
    expect(() => checkHost(host)).not.toThrow();
  });

  it.each(['evil.example', 'evil.example:8787', '127.0.0.1.evil.example', '10.0.0.5', '[::2]:80', ''])('refuses %s', (host) => {
    expect(() => checkHost(host)).toThrow(/loopback host/);
  });

  it('a rebound page (Host: attacker.example) gets 421 with the contract error body, and the state stays out of reach', async () => {
    const refused = await get('/sandbox/outbox', 'attacker.example');
    expect(refused.status).toBe(421);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'misdirected_request', error_description: expect.stringContaining('loopback host') });
    const reset = await get('/sandbox/health', `127.0.0.1:${new URL(sandbox.url).port}`);
    expect(reset.status).toBe(200);
  });
});
