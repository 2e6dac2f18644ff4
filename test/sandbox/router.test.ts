import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fixedClock } from '../../src/clock.js';
import { MAX_BODY_BYTES } from '../../src/contract/error.js';
import { createRouter, html, HttpError, json, redirect, type Router } from '../../src/sandbox/router.js';

const NOW = Date.UTC(2030, 0, 2, 3, 4, 5);
const STAMP = new Date(NOW).toISOString();

const Template = z.object({
  documentNumber: z.string().min(1),
  products: z.array(z.object({ unitCode: z.enum(['EA', 'KGM']), quantity: z.number().positive() })).min(1),
});

describe('router', () => {
  let server: Server;
  let base: string;
  const logged: string[] = [];

  beforeAll(async () => {
    const router: Router = createRouter({ clock: fixedClock(NOW), log: (line) => logged.push(line) });
    router.get('/items/{id}/parts/{part}', (req) => json(200, { params: req.params, query: req.query }));
    router.get('/items/special', () => json(200, { special: true }));
    router.get('/items/{id}', (req) => json(200, { id: req.params.id }));
    router.delete('/items/{id}', () => json(200, { deleted: true }));
    router.post('/echo', (req) =>
      json(200, { body: req.body ?? null, raw: req.rawBody.toString('utf8'), size: req.rawBody.length }, { 'X-Echo': 'yes' }),
    );
    router.post('/templates', { body: Template }, (req) => json(201, { count: req.body.products.length }));
    router.get('/search', { query: z.object({ limit: z.coerce.number().int().max(100) }) }, (req) => json(200, { limit: req.query.limit }));
    router.get('/page', () => html(200, '<p>consent</p>', { 'X-Frame-Options': 'DENY' }));
    router.get('/away', () => redirect('http://127.0.0.1:8765/callback?code=c&state=s'));
    router.get('/limited', () => {
      throw new HttpError('rate_limited', 'slow down', { headers: { 'Retry-After': '7' } });
    });
    router.get('/boom', () => {
      throw new Error('secret internal detail');
    });
    router.get('/raw-error', () => {
      throw new HttpError('grant_not_permitting', 'store outside the Grant');
    });
    server = createServer();
    router.attach(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (path: string, body: string | Buffer, contentType = 'application/json') =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });

  it('matches {param} segments, percent-decodes them and passes the query', async () => {
    const res = await fetch(`${base}/items/a%2Fb%20c/parts/7?x=1&y=two&x=3`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ params: { id: 'a/b c', part: '7' }, query: { x: '3', y: 'two' } });
  });

  it('prefers a literal segment over a parameter', async () => {
    expect(await (await fetch(`${base}/items/special`)).json()).toEqual({ special: true });
    expect(await (await fetch(`${base}/items/other`)).json()).toEqual({ id: 'other' });
  });

  it('answers JSON with its content type, no-store and custom headers', async () => {
    const res = await post('/echo', '{"a":1}');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-echo')).toBe('yes');
    expect(await res.json()).toEqual({ body: { a: 1 }, raw: '{"a":1}', size: 7 });
  });

  it('answers an unknown path with 404 not_found in the contract shape, stamped by the clock', async () => {
    const res = await fetch(`${base}/nothing/here`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not_found', error_description: 'no route matches GET /nothing/here', timestamp: STAMP });
  });

  it('answers 404 for an empty parameter and for extra segments', async () => {
    expect((await fetch(`${base}/items/`)).status).toBe(404);
    expect((await fetch(`${base}/items/a/parts/b/c`)).status).toBe(404);
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const res = await fetch(`${base}/items/1`, { method: 'PATCH' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, DELETE');
    expect(await res.json()).toEqual({ error: 'method_not_allowed', error_description: 'PATCH is not allowed on /items/1', timestamp: STAMP });
  });

  it('accepts a body of exactly 1 MiB', async () => {
    const ok = await post('/echo', `"${'x'.repeat(MAX_BODY_BYTES - 2)}"`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ size: MAX_BODY_BYTES });
  });

  it('answers a body over 1 MiB with 413 payload_too_large and closes the connection', async () => {
    for (const size of [MAX_BODY_BYTES + 1, 8 * MAX_BODY_BYTES]) {
      const res = await post('/echo', Buffer.alloc(size, 0x20));
      expect(res.status).toBe(413);
      expect(res.headers.get('connection')).toBe('close');
      expect(await res.json()).toEqual({
        error: 'payload_too_large',
        error_description: `the request body is larger than ${MAX_BODY_BYTES} bytes`,
        timestamp: STAMP,
      });
    }
  });

  it('answers 413 before the body is sent when Expect: 100-continue declares too much', async () => {
    const { status, continued } = await new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const req = httpRequest(`${base}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(MAX_BODY_BYTES + 1), expect: '100-continue' },
      });
      req.on('continue', () => {
        continued = true;
      });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, continued });
        req.destroy();
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(413);
    expect(continued).toBe(false);
  });

  it('sends 100 Continue and reads the body when Expect: 100-continue fits', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const payload = '{"ok":true}';
      const req = httpRequest(`${base}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(payload.length), expect: '100-continue' },
      });
      req.on('continue', () => req.end(payload));
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(JSON.parse(body)).toMatchObject({ body: { ok: true } });
  });

  it('answers invalid JSON with 400 invalid_request', async () => {
    const res = await post('/echo', '{"a":');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'body is not valid JSON', timestamp: STAMP });
  });

  it('parses a form body into strings and keeps the raw bytes', async () => {
    const res = await post('/echo', 'grant_type=client_credentials&scope=write_receipts+read_stores', 'application/x-www-form-urlencoded; charset=UTF-8');
    expect(await res.json()).toEqual({
      body: { grant_type: 'client_credentials', scope: 'write_receipts read_stores' },
      raw: 'grant_type=client_credentials&scope=write_receipts+read_stores',
      size: 62,
    });
  });

  it('gives a handler no body when there is none', async () => {
    const res = await fetch(`${base}/echo`, { method: 'POST' });
    expect(await res.json()).toEqual({ body: null, raw: '', size: 0 });
  });

  it('validates the body with the route schema: 400 validation_failed with dotted paths', async () => {
    const res = await post('/templates', JSON.stringify({ documentNumber: 'R-1', products: [{ unitCode: 'EA', quantity: 1 }, { unitCode: 'XX', quantity: 0 }] }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { details: { path: string; message: string }[] };
    expect(Object.keys(body)).toEqual(['error', 'error_description', 'timestamp', 'details']);
    expect(body).toMatchObject({ error: 'validation_failed', error_description: 'the request body is invalid', timestamp: STAMP });
    expect(body.details.map((d) => d.path)).toEqual(['products.1.unitCode', 'products.1.quantity']);
    expect(body.details.every((d) => typeof d.message === 'string' && d.message.length > 0)).toBe(true);
  });

  it('hands the validated value to the handler', async () => {
    const res = await post('/templates', JSON.stringify({ documentNumber: 'R-1', products: [{ unitCode: 'KGM', quantity: 2 }] }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ count: 1 });
  });

  it('reports a missing body as a validation failure of the whole value', async () => {
    const res = await fetch(`${base}/templates`, { method: 'POST' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ details: [{ path: '', message: expect.any(String) }] });
  });

  it('validates the query with the route schema', async () => {
    expect(await (await fetch(`${base}/search?limit=5`)).json()).toEqual({ limit: 5 });
    const res = await fetch(`${base}/search?limit=500`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'validation_failed', error_description: 'the query is invalid', details: [{ path: 'limit' }] });
  });

  it('serves HTML and redirects', async () => {
    const page = await fetch(`${base}/page`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toBe('<p>consent</p>');
    const away = await fetch(`${base}/away`, { redirect: 'manual' });
    expect(away.status).toBe(302);
    expect(away.headers.get('location')).toBe('http://127.0.0.1:8765/callback?code=c&state=s');
  });

  it('turns HttpError into its status, code and headers', async () => {
    const limited = await fetch(`${base}/limited`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.json()).toEqual({ error: 'rate_limited', error_description: 'slow down', timestamp: STAMP });
    const forbidden = await fetch(`${base}/raw-error`);
    expect(forbidden.status).toBe(403);
  });

  it('answers an uncaught error with 500 server_error without leaking it, and logs it', async () => {
    const res = await fetch(`${base}/boom`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: 'server_error', error_description: 'the sandbox failed to handle this request', timestamp: STAMP });
    expect(text).not.toContain('secret internal detail');
    expect(logged.some((line) => line.includes('secret internal detail'))).toBe(true);
  });

  it('writes any error body with sendError', async () => {
    const router = createRouter({ clock: fixedClock(NOW) });
    const plain = createServer((_req, res) =>
      router.sendError(res, 409, 'invalid_transition', 'cannot go there', [{ path: 'status', message: 'no' }]),
    );
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`);
      expect(res.status).toBe(409);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual({
        error: 'invalid_transition',
        error_description: 'cannot go there',
        timestamp: STAMP,
        details: [{ path: 'status', message: 'no' }],
      });
    } finally {
      plain.closeAllConnections();
      plain.close();
    }
  });

  it('logs one line per request without the query string', async () => {
    await fetch(`${base}/items/9?token=abc`);
    expect(logged).toContainEqual(expect.stringMatching(/^GET \/items\/9 200 \d+ms$/));
    expect(logged.join('\n')).not.toContain('token=abc');
  });

  it('survives a client that leaves mid-body, and logs no internal error for it', async () => {
    const before = logged.filter((l) => l.startsWith('internal error')).length;
    await new Promise<void>((resolve) => {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () => {
        socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await fetch(`${base}/items/1`)).status).toBe(200);
    expect(logged.filter((l) => l.startsWith('internal error')).length).toBe(before);
  });

  it('refuses to define a route twice', () => {
    const router = createRouter({ clock: fixedClock(NOW) });
    router.get('/x/{id}', () => json(200, {}));
    expect(() => router.get('/x/{id}', () => json(200, {}))).toThrow(/defined twice/);
  });
});
