import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { z } from 'zod';
import { createApiClient, type ApiClientOptions, type TokenSource } from '../../src/api/client.js';
import { fixedClock } from '../../src/clock.js';
import { ApiError, ExitCode, SvcError, UnavailableError, exitCodeOf } from '../../src/errors.js';
import { testStreams } from '../../src/io/test-streams.js';

const BASE = 'http://svc.test';
const JSON_HEADERS = { 'content-type': 'application/json' };

let mock: MockAgent | undefined;

afterEach(async () => {
  if (!mock) return;
  mock.assertNoPendingInterceptors();
  await mock.close();
  mock = undefined;
});

function setup(overrides: Partial<ApiClientOptions> = {}) {
  mock = new MockAgent();
  mock.disableNetConnect();
  const streams = testStreams();
  const sleeps: number[] = [];
  const client = createApiClient({
    baseUrl: `${BASE}/`,
    io: streams.io,
    debug: false,
    clock: fixedClock(Date.UTC(2025, 0, 1)),
    dispatcher: mock,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
  return { client, pool: mock.get(BASE), streams, sleeps };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

function errorBody(code: string, description: string, extra: Record<string, unknown> = {}) {
  return { error: code, error_description: description, timestamp: '2025-01-01T00:00:00Z', ...extra };
}

function connectionError(code: string): Error {
  return Object.assign(new Error(`connect ${code}`), { code });
}

describe('successful requests', () => {
  it('sends JSON with the expected headers and validates the answer with the schema', async () => {
    const { client, pool } = setup();
    let seen: Record<string, string> = {};
    let seenBody = '';
    pool.intercept({ path: '/credit-note?status=PENDING', method: 'POST' }).reply((req) => {
      seen = req.headers as Record<string, string>;
      seenBody = String(req.body);
      return { statusCode: 201, data: { id: 'r-1', extra: 'kept' }, responseOptions: { headers: JSON_HEADERS } };
    });
    const result = await client.request({
      method: 'POST',
      path: '/credit-note',
      query: { status: 'PENDING', cursor: undefined },
      body: { amount: 12.5 },
      auth: 'tok-1',
      schema: z.looseObject({ id: z.string() }),
    });
    expect(result).toEqual({ id: 'r-1', extra: 'kept' });
    expect(seen['accept']).toBe('application/json');
    expect(seen['content-type']).toBe('application/json');
    expect(seen['authorization']).toBe('Bearer tok-1');
    expect(seen['user-agent']).toMatch(/^svc\/\S+ node\/v\d+\.\d+\.\d+$/);
    expect(seen['idempotency-key']).toBeUndefined();
    expect(JSON.parse(seenBody)).toEqual({ amount: 12.5 });
  });

  it('sends a company API key as X-API-Key and no Authorization, and redacts it in the trace', async () => {
    const { client, pool, streams } = setup({ debug: true });
    let seen: Record<string, string> = {};
    pool.intercept({ path: '/recipient/resolve', method: 'POST' }).reply((req) => {
      seen = req.headers as Record<string, string>;
      return { statusCode: 200, data: { ok: true }, responseOptions: { headers: JSON_HEADERS } };
    });
    await client.request({ method: 'POST', path: '/recipient/resolve', body: {}, auth: { apiKey: 'sk_sandbox_secret_key' } });
    expect(seen['x-api-key']).toBe('sk_sandbox_secret_key');
    expect(seen['authorization']).toBeUndefined();
    expect(streams.stderr()).not.toContain('sk_sandbox_secret_key');
  });

  it('parses a bare JSON boolean and an empty body', async () => {
    const { client, pool } = setup();
    pool.intercept({ path: '/oauth2/token/validate' }).reply(200, 'true', { headers: JSON_HEADERS });
    pool.intercept({ path: '/thing', method: 'DELETE' }).reply(204, '');
    expect(await client.request({ method: 'GET', path: '/oauth2/token/validate', schema: z.boolean() })).toBe(true);
    expect(await client.request({ method: 'DELETE', path: '/thing' })).toBeUndefined();
  });

  it('reports a schema mismatch by field path, without the values', async () => {
    const { client, pool } = setup();
    pool.intercept({ path: '/grants/g-1?x=1' }).reply(200, { id: 'visible-value-xyz', stores: [{ storeId: 7 }] });
    const error = await rejection(
      client.request({
        method: 'GET',
        path: '/grants/g-1?x=1',
        schema: z.object({ id: z.number(), stores: z.array(z.object({ storeId: z.string() })) }),
      }),
    );
    expect(error).toBeInstanceOf(SvcError);
    expect(error).not.toBeInstanceOf(ApiError);
    const message = (error as SvcError).message;
    expect(message).toMatch(/^unexpected response from the service for GET \/grants\/g-1: id: .+; stores\.0\.storeId: /);
    expect(message).not.toContain('visible-value-xyz');
    expect(message).not.toContain('x=1');
  });

  it('refuses a 2xx body that is not JSON in request(), and returns it from requestRaw()', async () => {
    const { client, pool } = setup();
    const pdf = Buffer.from('%PDF-1.7\n\x00\xff binary', 'latin1');
    pool.intercept({ path: '/receipt/r-1/pdf' }).reply(200, pdf, { headers: { 'content-type': 'application/pdf' } });
    pool.intercept({ path: '/receipt/r-1/pdf' }).reply((req) => ({
      statusCode: 200,
      data: (req.headers as Record<string, string>)['accept'] === 'application/pdf' ? pdf : 'wrong accept',
      responseOptions: { headers: { 'content-type': 'application/pdf' } },
    }));
    const error = await rejection(client.request({ method: 'GET', path: '/receipt/r-1/pdf' }));
    expect((error as SvcError).message).toBe(
      'unexpected response from the service for GET /receipt/r-1/pdf: not JSON (content-type application/pdf)',
    );
    const raw = await client.requestRaw({ method: 'GET', path: '/receipt/r-1/pdf', accept: 'application/pdf' });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toBe('application/pdf');
    expect(raw.body.equals(pdf)).toBe(true);
  });
});

describe('requestStream', () => {
  async function text(pieces: AsyncIterable<string>): Promise<string> {
    let all = '';
    for await (const piece of pieces) all += piece;
    return all;
  }

  it('hands over a 2xx body unread, as UTF-8 text, after a retried 5xx and a renewed token', async () => {
    const { client, pool, sleeps } = setup();
    const body = JSON.stringify([{ note: 'Grüße, 返品' }]);
    pool.intercept({ path: '/credit-note' }).reply(503, errorBody('temporarily_unavailable', 'later'));
    pool.intercept({ path: '/credit-note', headers: { authorization: 'Bearer old' } }).reply(401, errorBody('invalid_token', 'expired'));
    pool
      .intercept({ path: '/credit-note', headers: { authorization: 'Bearer new', accept: 'application/json' } })
      .reply(200, Buffer.from(body), { headers: JSON_HEADERS });
    let renewed = false;
    const auth: TokenSource = {
      token: async () => (renewed ? 'new' : 'old'),
      invalidate: async () => {
        renewed = true;
      },
    };
    const res = await client.requestStream({ method: 'GET', path: '/credit-note', auth }, async (r) => ({ ...r, body: await text(r.text) }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toBe(body);
    expect(sleeps).toHaveLength(1);
  });

  it('reads an error answer whole and throws it as for request()', async () => {
    const { client, pool } = setup();
    pool.intercept({ path: '/credit-note' }).reply(403, errorBody('insufficient_scope', 'needs write_receipts'));
    const error = await rejection(client.requestStream({ method: 'GET', path: '/credit-note' }, (r) => text(r.text)));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(403);
  });

  it('notes in the --debug trace that the body is not shown', async () => {
    const { client, pool, streams } = setup({ debug: true });
    pool.intercept({ path: '/credit-note' }).reply(200, '[{"secret":"x"}]', { headers: JSON_HEADERS });
    await client.requestStream({ method: 'GET', path: '/credit-note' }, (r) => text(r.text));
    expect(streams.stderr()).toContain('< (body read as it arrives, not shown)');
    expect(streams.stderr()).not.toContain('secret');
  });
});

describe('error answers', () => {
  const cases = [
    { status: 400, code: 'validation_failed', exit: ExitCode.usage },
    { status: 401, code: 'invalid_token', exit: ExitCode.auth },
    { status: 403, code: 'insufficient_scope', exit: ExitCode.forbidden },
    { status: 404, code: 'not_found', exit: ExitCode.notFound },
    { status: 409, code: 'invalid_transition', exit: ExitCode.conflict },
    { status: 413, code: 'payload_too_large', exit: ExitCode.usage },
    { status: 429, code: 'rate_limited', exit: ExitCode.unavailable },
    { status: 500, code: 'server_error', exit: ExitCode.unavailable },
  ] as const;

  it.each(cases)('$status $code becomes an ApiError with exit code $exit', async ({ status, code, exit }) => {
    const { client, pool } = setup();
    const details = [{ path: 'products.0.unitCode', message: 'Required' }];
    // 429 is retried even for a POST; the others are answered once.
    pool
      .intercept({ path: '/credit-note/template?storeId=s-1', method: 'POST' })
      .reply(status, errorBody(code, `failed with ${code}`, { details }), { headers: JSON_HEADERS })
      .times(status === 429 ? 4 : 1);
    const error = await rejection(
      client.request({ method: 'POST', path: '/credit-note/template', query: { storeId: 's-1' }, body: {} }),
    );
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(status);
    expect(apiError.code).toBe(code);
    expect(apiError.description).toBe(`failed with ${code}`);
    expect(apiError.details).toEqual(details);
    expect(apiError.message).toContain('(POST /credit-note/template)');
    expect(apiError.message).not.toContain('storeId');
    expect(exitCodeOf(apiError)).toBe(exit);
  });

  it('tolerates an error body that is not JSON', async () => {
    const { client, pool } = setup();
    pool.intercept({ path: '/x', method: 'POST' }).reply(502, '<html>bad gateway</html>', {
      headers: { 'content-type': 'text/html' },
    });
    const error = (await rejection(client.request({ method: 'POST', path: '/x', body: {} }))) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(502);
    expect(error.code).toBe('http_502');
    expect(error.description).toBe('Bad Gateway');
    expect(exitCodeOf(error)).toBe(ExitCode.unavailable);
  });

  it('reads Retry-After given as an HTTP date', async () => {
    const { client, pool } = setup({ clock: fixedClock(Date.parse('2025-01-01T00:00:00Z')) });
    pool
      .intercept({ path: '/x', method: 'POST' })
      .reply(503, errorBody('server_error', 'down'), {
        headers: { ...JSON_HEADERS, 'retry-after': 'Wed, 01 Jan 2025 00:00:07 GMT' },
      });
    const error = (await rejection(client.request({ method: 'POST', path: '/x', body: {} }))) as ApiError;
    expect(error.retryAfterMs).toBe(7000);
  });
});

describe('retries', () => {
  it('retries a 429 after the Retry-After delay, then succeeds', async () => {
    const { client, pool, sleeps } = setup();
    pool
      .intercept({ path: '/receipt/template', method: 'POST' })
      .reply(429, errorBody('rate_limited', 'slow down'), { headers: { ...JSON_HEADERS, 'retry-after': '2' } });
    pool.intercept({ path: '/receipt/template', method: 'POST' }).reply(201, { ok: true });
    expect(await client.request({ method: 'POST', path: '/receipt/template', body: {} })).toEqual({ ok: true });
    expect(sleeps).toEqual([2000]);
  });

  it('gives up on 429 after 4 attempts, and at once when Retry-After exceeds the budget', async () => {
    const { client, pool, sleeps } = setup();
    pool
      .intercept({ path: '/a' })
      .reply(429, errorBody('rate_limited', 'slow down'), { headers: { ...JSON_HEADERS, 'retry-after': '1' } })
      .times(4);
    pool
      .intercept({ path: '/b' })
      .reply(429, errorBody('rate_limited', 'slow down'), { headers: { ...JSON_HEADERS, 'retry-after': '120' } });
    const first = (await rejection(client.request({ method: 'GET', path: '/a' }))) as ApiError;
    expect(first.status).toBe(429);
    expect(exitCodeOf(first)).toBe(ExitCode.unavailable);
    expect(sleeps).toEqual([1000, 1000, 1000]);

    const second = (await rejection(client.request({ method: 'GET', path: '/b' }))) as ApiError;
    expect(second.retryAfterMs).toBe(120_000);
    expect(sleeps).toHaveLength(3);
  });

  it('retries a 5xx for a GET with full-jitter backoff', async () => {
    const { client, pool, sleeps } = setup();
    pool.intercept({ path: '/grants/g-1' }).reply(503, 'unavailable').times(2);
    pool.intercept({ path: '/grants/g-1' }).reply(200, { id: 'g-1' });
    expect(await client.request({ method: 'GET', path: '/grants/g-1' })).toEqual({ id: 'g-1' });
    // random() = 0.5 of a ceiling that doubles from 500 ms.
    expect(sleeps).toEqual([250, 500]);
  });

  it('stops retrying a 5xx when the attempts are spent', async () => {
    const { client, pool, sleeps } = setup();
    pool.intercept({ path: '/x', method: 'PUT' }).reply(500, errorBody('server_error', 'boom')).times(4);
    const error = (await rejection(client.request({ method: 'PUT', path: '/x', body: {} }))) as ApiError;
    expect(error.status).toBe(500);
    expect(sleeps).toHaveLength(3);
  });

  it('does not retry a 5xx for a POST without an idempotency key, nor with retry: false', async () => {
    const { client, pool, sleeps } = setup();
    pool.intercept({ path: '/receipt/encrypted', method: 'POST' }).reply(500, errorBody('server_error', 'boom'));
    pool.intercept({ path: '/x' }).reply(503, 'down');
    expect(await rejection(client.request({ method: 'POST', path: '/receipt/encrypted', body: {} }))).toBeInstanceOf(
      ApiError,
    );
    expect(await rejection(client.request({ method: 'GET', path: '/x', retry: false }))).toBeInstanceOf(ApiError);
    expect(sleeps).toEqual([]);
  });

  it('retries a POST that carries an idempotency key, sending the key every time', async () => {
    const { client, pool, sleeps } = setup();
    const match = { path: '/receipt/encrypted', method: 'POST', headers: { 'idempotency-key': 'idem-42' } };
    pool.intercept(match).reply(500, errorBody('server_error', 'boom'));
    pool.intercept(match).replyWithError(connectionError('ECONNRESET'));
    pool.intercept(match).reply(201, { serviceReceiptId: 'sr-1' });
    const result = await client.request({
      method: 'POST',
      path: '/receipt/encrypted',
      body: { matchId: 'm' },
      idempotencyKey: 'idem-42',
    });
    expect(result).toEqual({ serviceReceiptId: 'sr-1' });
    expect(sleeps).toHaveLength(2);
  });

  it('does not retry a connection failure of a plain POST', async () => {
    const { client, pool, sleeps } = setup();
    pool.intercept({ path: '/x', method: 'POST' }).replyWithError(connectionError('ECONNRESET'));
    const error = await rejection(client.request({ method: 'POST', path: '/x', body: {} }));
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).message).toBe(`cannot reach the service at ${BASE} (ECONNRESET)`);
    expect((error as UnavailableError).hint).not.toContain('sandbox');
    expect(sleeps).toEqual([]);
  });

  it('lets an unexpected (programming) error through unchanged', async () => {
    const { client, pool } = setup();
    const bug = new TypeError('not a transport failure');
    pool.intercept({ path: '/x' }).replyWithError(bug);
    expect(await rejection(client.request({ method: 'GET', path: '/x' }))).toBe(bug);
  });
});

describe('connection refused', () => {
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (address === null || typeof address === 'string') throw new Error('no port');
    return address.port;
  }

  it('becomes UnavailableError (exit 8) naming the base URL, with the sandbox hint for loopback', async () => {
    const port = await closedPort();
    const sleeps: number[] = [];
    const client = createApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      io: testStreams().io,
      debug: false,
      clock: fixedClock(0),
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0,
    });
    try {
      const error = await rejection(client.request({ method: 'GET', path: '/grants' }));
      expect(error).toBeInstanceOf(UnavailableError);
      expect(exitCodeOf(error)).toBe(ExitCode.unavailable);
      expect((error as UnavailableError).message).toBe(
        `cannot reach the service at http://127.0.0.1:${port} (ECONNREFUSED)`,
      );
      expect((error as UnavailableError).hint).toBe('is the sandbox running? start it with `svc sandbox start`');
      // Refused on this machine: nothing listens there, so no retry (a remote refusal is retried).
      expect(sleeps).toHaveLength(0);
    } finally {
      await client.close();
    }
  });

  it('answered 503, then reset on loopback: the service was reached, so the hint does not blame something on this machine', async () => {
    // The service answers 503 (an outage) and then, on the last attempt, resets the connection.
    let answered = 0;
    const server = createServer((socket) => {
      socket.once('data', () => {
        if (answered++ < 3) socket.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
        else socket.resetAndDestroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const client = createApiClient({ baseUrl: `http://127.0.0.1:${port}`, io: testStreams().io, debug: false, clock: fixedClock(0), sleep: async () => {}, random: () => 0 });
    try {
      const error = await rejection(client.request({ method: 'GET', path: '/grants' }));
      expect(error).toBeInstanceOf(UnavailableError);
      expect((error as UnavailableError).message).toMatch(/after 4 attempts/);
      expect((error as UnavailableError).message).toContain('the service answered 503 Service Unavailable before');
      expect((error as UnavailableError).hint).not.toContain('something on this machine');
      expect((error as UnavailableError).hint).toContain('the service is unavailable for now');
    } finally {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('taken and reset on loopback: something listens there, so the hint is to check what, not to start the sandbox', async () => {
    // Accepts every connection and resets it at once: another program on the sandbox's port, say.
    const server = createServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const client = createApiClient({ baseUrl: `http://127.0.0.1:${port}`, io: testStreams().io, debug: false, clock: fixedClock(0), sleep: async () => {}, random: () => 0 });
    try {
      const error = await rejection(client.request({ method: 'GET', path: '/grants' }));
      expect(error).toBeInstanceOf(UnavailableError);
      expect((error as UnavailableError).message).toMatch(new RegExp(`^cannot reach the service at http://127\\.0\\.0\\.1:${port} \\((ECONNRESET|the connection closed)\\)`));
      expect((error as UnavailableError).hint).toContain('something on this machine took the connection and closed it');
      expect((error as UnavailableError).hint).not.toContain('is the sandbox running');
    } finally {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('authentication', () => {
  function tokenSource(tokens: string[]): TokenSource & { invalidations: number } {
    let next = 0;
    return {
      invalidations: 0,
      async token() {
        return tokens[Math.min(next, tokens.length - 1)] ?? '';
      },
      async invalidate() {
        this.invalidations += 1;
        next += 1;
      },
    };
  }

  it('on a 401 invalidates the token and retries once with a new one', async () => {
    const { client, pool } = setup();
    const source = tokenSource(['old-token', 'new-token']);
    pool
      .intercept({ path: '/grants/g', headers: { authorization: 'Bearer old-token' } })
      .reply(401, errorBody('invalid_token', 'expired'));
    pool.intercept({ path: '/grants/g', headers: { authorization: 'Bearer new-token' } }).reply(200, { id: 'g' });
    expect(await client.request({ method: 'GET', path: '/grants/g', auth: source })).toEqual({ id: 'g' });
    expect(source.invalidations).toBe(1);
  });

  it('gives up on a second 401 (exit 4) instead of looping', async () => {
    const { client, pool, sleeps } = setup();
    const source = tokenSource(['old-token', 'new-token', 'newer-token']);
    pool.intercept({ path: '/x', method: 'POST' }).reply(401, errorBody('invalid_token', 'revoked')).times(2);
    const error = (await rejection(client.request({ method: 'POST', path: '/x', body: {}, auth: source }))) as ApiError;
    expect(error.status).toBe(401);
    expect(exitCodeOf(error)).toBe(ExitCode.auth);
    expect(error.hint).toBe('run `svc auth login`');
    expect(source.invalidations).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('does not retry a 401 for a fixed bearer string', async () => {
    const { client, pool } = setup();
    pool.intercept({ path: '/x' }).reply(401, errorBody('invalid_token', 'expired'));
    expect(((await rejection(client.request({ method: 'GET', path: '/x', auth: 'fixed' }))) as ApiError).status).toBe(
      401,
    );
  });
});

describe('--debug trace', () => {
  const secrets = {
    bearer: 'bearer-SECRET-0',
    clientSecret: 'cs-SECRET-1',
    code: 'code-SECRET-2',
    verifier: 'cv-SECRET-3',
    accessToken: 'at-SECRET-4',
    refreshToken: 'rt-SECRET-5',
    state: 'state-SECRET-6',
  };

  it('shows method, URL, headers, bodies and status with every secret redacted', async () => {
    const { client, pool, streams } = setup({ debug: true });
    pool
      .intercept({ path: `/oauth2/authorization-code/exchange?state=${secrets.state}&client_id=app-1`, method: 'POST' })
      .reply(
        200,
        { access_token: secrets.accessToken, refresh_token: secrets.refreshToken, token_type: 'Bearer', grant_id: 'g-7' },
        { headers: { ...JSON_HEADERS, 'set-cookie': `sid=${secrets.accessToken}` } },
      );
    await client.request({
      method: 'POST',
      path: '/oauth2/authorization-code/exchange',
      query: { state: secrets.state, client_id: 'app-1' },
      auth: secrets.bearer,
      idempotencyKey: 'idem-visible',
      body: {
        client_id: 'app-1',
        client_secret: secrets.clientSecret,
        code: secrets.code,
        code_verifier: secrets.verifier,
      },
    });
    const trace = streams.stderr();
    expect(trace).toContain(
      `> POST http://svc.test/oauth2/authorization-code/exchange?state=[redacted]&client_id=app-1\n`,
    );
    expect(trace).toContain('> authorization: Bearer [redacted]\n');
    expect(trace).toContain('> idempotency-key: idem-visible\n');
    expect(trace).toContain('>   "client_id": "app-1"');
    expect(trace).toMatch(/< 200 OK \(\d+ ms\)\n/);
    expect(trace).toContain('<   "grant_id": "g-7"');
    expect(trace).toContain('<   "token_type": "Bearer"');
    for (const secret of Object.values(secrets)) expect(trace).not.toContain(secret);
    expect(streams.stdout()).toBe('');
  });

  it('traces every attempt, truncates long bodies and summarises binary ones', async () => {
    const { client, pool, streams } = setup({ debug: true });
    pool.intercept({ path: '/big' }).reply(503, 'x'.repeat(10_000), { headers: { 'content-type': 'text/plain' } });
    pool.intercept({ path: '/big' }).reply(200, { items: 'y'.repeat(10_000) });
    pool.intercept({ path: '/pdf' }).reply(200, Buffer.alloc(300), { headers: { 'content-type': 'application/pdf' } });
    await client.request({ method: 'GET', path: '/big' });
    await client.requestRaw({ method: 'GET', path: '/pdf' });
    const trace = streams.stderr();
    expect(trace.match(/> GET http:\/\/svc\.test\/big\n/g)).toHaveLength(2);
    expect(trace).toContain('< 503 Service Unavailable');
    expect(trace).toContain('* 503 on GET /big: retrying in 250 ms (retry 1 of 3)');
    expect(trace).toContain(`< ${'x'.repeat(4096)}\n< … (${10_000 - 4096} more characters)`);
    expect(trace).not.toContain('x'.repeat(4097));
    expect(trace).not.toContain('y'.repeat(5000));
    expect(trace).toContain('< (300 bytes of application/pdf)');
  });

  it('writes nothing without --debug', async () => {
    const { client, pool, streams } = setup();
    pool.intercept({ path: '/x' }).reply(200, {});
    await client.request({ method: 'GET', path: '/x', auth: secrets.bearer });
    expect(streams.stderr()).toBe('');
  });
});

describe('close', () => {
  it('closes its own agent but leaves an injected dispatcher to its owner', async () => {
    const own = createApiClient({ baseUrl: BASE, io: testStreams().io, debug: false, clock: fixedClock(0) });
    await own.close();
    const { client, pool } = setup();
    await client.close();
    pool.intercept({ path: '/x' }).reply(200, {});
    expect(await client.request({ method: 'GET', path: '/x' })).toEqual({});
  });
});

describe('a body cut off', () => {
  it('is asked for again from the start, and UnavailableError (exit 8) once the attempts are spent', async () => {
    // Headers and part of a long body, then the connection drops, every time.
    let served = 0;
    const server = createHttpServer((_req, res) => {
      served++;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      res.write('[{"requestId":"r-1"}');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const client = createApiClient({ baseUrl: `http://127.0.0.1:${address.port}`, io: testStreams().io, debug: false, clock: fixedClock(0), sleep: async () => undefined });
    try {
      const readings: string[] = [];
      const error = await rejection(
        client.requestStream({ method: 'GET', path: '/credit-note' }, async (res) => {
          let text = '';
          try {
            for await (const piece of res.text) text += piece;
          } finally {
            readings.push(text);
          }
        }),
      );
      expect(readings).toEqual(Array(4).fill('[{"requestId":"r-1"}'));
      expect(served).toBe(4);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(exitCodeOf(error)).toBe(ExitCode.unavailable);
      expect((error as UnavailableError).message).toMatch(new RegExp(`^cannot reach the service at http://127.0.0.1:${address.port} \\(ECONNRESET\\) after 4 attempts$`));
    } finally {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
