// `svc api -F key=value` types true, false, null and numbers, as `gh api -F` does; a number
// that JavaScript cannot hold exactly (an ID of 20 digits, a decimal of more than 15 significant
// digits) stays the string it was typed as, instead of being sent rounded.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';

let server: Server;
let url: string;

beforeAll(async () => {
  // Answers every request with the body it was sent, as JSON.
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.concat(chunks).length > 0 ? Buffer.concat(chunks) : '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('svc api -F', () => {
  it('numbers it can hold exactly are numbers; longer ones stay strings, never rounded', async () => {
    const fields = ['n=42', 'neg=-7', 'price=12.50', 'ok=true', 'none=null', 'big=12345678901234567890', 'safe=9007199254740991', 'unsafe=9007199254740993', 'long=0.12345678901234567890', 'word=abc'];
    const run = await runSvc(['api', 'POST', '/sandbox/echo', ...fields.flatMap((f) => ['-F', f])], { env: { SVC_BASE_URL: url } });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      n: 42,
      neg: -7,
      price: 12.5,
      ok: true,
      none: null,
      big: '12345678901234567890',
      safe: 9007199254740991,
      unsafe: '9007199254740993',
      long: '0.12345678901234567890',
      word: 'abc',
    });
  });
});
