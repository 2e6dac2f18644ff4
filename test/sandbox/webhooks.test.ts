// The webhook side of the sandbox, in-process: subscriptions over HTTP, events recorded
// directly (as the returns and credit-note routes record them), and real receivers on
// loopback ports that answer as told.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { recordEvent, type RecordedEvent } from '../../src/sandbox/events.js';
import { grantAndTokenForTests } from '../../src/sandbox/guard.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import type { DeliveryAttempt, WebhookDeliveryOptions } from '../../src/sandbox/webhooks.js';
import { verifySignature } from '../../src/webhook/signature.js';
import { FOODS, RETAIL, START } from './receipt-helpers.js';

const T = START / 1000;
const MARKER = 'Grüße, nicht ins Log';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface Receiver {
  url: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

/** Answers each request with `answer(n, res)`, n counting from 1; 200 unless told. */
async function startReceiver(answer: (n: number, res: ServerResponse) => void = (_n, res) => res.end(), port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      answer(received.length, res);
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const bound = (server.address() as AddressInfo).port;
  const receiver = { url: `http://127.0.0.1:${bound}/hook`, port: bound, received, close: () => closeServer(server) };
  cleanups.push(receiver.close);
  return receiver;
}

function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
}

/** A port nothing listens on, for now. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await closeServer(server);
  return port;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

interface Harness {
  running: RunningSandbox;
  logs: string[];
  token(companyId?: string, scopes?: string[]): string;
  call<T = Record<string, unknown>>(method: string, path: string, opts?: { token?: string; body?: unknown }): Promise<{ status: number; body: T }>;
  subscribe(url: string, opts?: { events?: string[]; companyId?: string }): Promise<{ id: string; secret: string }>;
  emit(event?: string, companyId?: string): RecordedEvent;
  deliveries(query?: string): Promise<DeliveryAttempt[]>;
  /** Resolves once the log has `count` attempts (for the query). */
  attempts(count: number, query?: string): Promise<DeliveryAttempt[]>;
}

async function start(webhooks: WebhookDeliveryOptions = { baseDelayMs: 20, maxAttempts: 4, timeoutMs: 2000 }): Promise<Harness> {
  const logs: string[] = [];
  const running = await startSandbox({ clock: fixedClock(START), webhooks, log: (line) => logs.push(line) });
  cleanups.push(() => running.close());
  const token = (companyId = RETAIL, scopes = ['write_receipts']) => grantAndTokenForTests(running.context, { companyId, scopes }).token;
  const call = async <T,>(method: string, path: string, opts: { token?: string; body?: unknown } = {}) => {
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: {
        ...(opts.token === undefined ? {} : { authorization: `Bearer ${opts.token}` }),
        ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const deliveries = async (query = '') => (await call<DeliveryAttempt[]>('GET', `/sandbox/webhook-deliveries${query}`)).body;
  return {
    running,
    logs,
    token,
    call,
    async subscribe(url, opts = {}) {
      const created = await call<{ id: string; secret: string }>('POST', '/webhook/subscription', {
        token: token(opts.companyId),
        body: { name: 'test', notificationUrl: url, events: opts.events ?? ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED'] },
      });
      expect(created.status).toBe(201);
      return created.body;
    },
    emit: (event = 'RETURN_REQUESTED', companyId = RETAIL) =>
      recordEvent(running.context, {
        event,
        companyId,
        // The tokens above are the fixture's approved client's: the subscriptions are its own.
        clientId: 'app_sandbox_pos',
        data: { creditNoteInitiationRequest: { companyId, serviceReceiptId: 'rcpt-1', note: MARKER, encryptedSymmetricKey: 'QUJD' } },
      }),
    deliveries,
    async attempts(count, query = '') {
      let seen: DeliveryAttempt[] = [];
      await waitFor(async () => (seen = await deliveries(query)).length >= count, `${count} attempt(s), saw ${JSON.stringify(seen)}`);
      return seen;
    },
  };
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function envelopeOf(event: RecordedEvent): string {
  return JSON.stringify({ event: event.event, data: event.data });
}

function timestampOf(header: string | string[] | undefined): number {
  return Number(/^t=(\d+),/.exec(String(header))?.[1]);
}

describe('webhook subscriptions', () => {
  it('returns the secret once, at creation; the list shows the rest and no secret', async () => {
    const h = await start();
    const request = { name: 'returns desk', notificationUrl: 'https://shop.example/hooks', events: ['RETURN_REQUESTED'] };
    const created = await h.call('POST', '/webhook/subscription', { token: h.token(), body: request });
    expect(created).toEqual({
      status: 201,
      body: {
        id: expect.stringMatching(/^whsub_[0-9a-f-]{36}$/),
        ...request,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        createdAt: new Date(START).toISOString(),
      },
    });
    const second = await h.call('POST', '/webhook/subscription', { token: h.token(), body: { ...request, name: 'second' } });
    expect(second.body.secret).not.toBe(created.body.secret);

    const listed = await h.call<Record<string, unknown>[]>('GET', '/webhook/subscription', { token: h.token() });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      { id: created.body.id, ...request, createdAt: created.body.createdAt },
      { id: second.body.id, ...request, name: 'second', createdAt: created.body.createdAt },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    expect((await h.call('GET', '/webhook/subscription', { token: h.token(FOODS) })).body).toEqual([]);
  });

  it('refuses unknown event names and plain http beyond loopback, naming each field', async () => {
    const h = await start();
    const refused = await h.call('POST', '/webhook/subscription', {
      token: h.token(),
      body: { name: 'x', notificationUrl: 'http://shop.example/hooks', events: ['RETURN_REQUESTED', 'RECEIPT_CREATED'] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'validation_failed',
      details: [
        { path: 'events.1', message: expect.stringContaining('not an event name') },
        { path: 'notificationUrl', message: expect.stringContaining('only to 127.0.0.1') },
      ],
    });
    for (const notificationUrl of ['http://localhost:9/x', 'http://[::1]:9/x', 'http://127.0.0.2/x']) {
      const ok = await h.call('POST', '/webhook/subscription', { token: h.token(), body: { name: 'x', notificationUrl, events: ['CREDIT_NOTE_CREATED'] } });
      expect(ok.status).toBe(201);
    }
    expect((await h.call('GET', '/webhook/subscription', { token: h.token() })).body).toHaveLength(3);
  });

  it('needs a token with write_receipts', async () => {
    const h = await start();
    const body = { name: 'x', notificationUrl: 'https://shop.example/hooks', events: ['RETURN_REQUESTED'] };
    expect((await h.call('POST', '/webhook/subscription', { body })).status).toBe(401);
    const other = await h.call('POST', '/webhook/subscription', { token: h.token(RETAIL, ['read_stores']), body });
    expect(other).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect((await h.call('GET', '/webhook/subscription')).status).toBe(401);
  });
});

describe('webhook delivery', () => {
  it('posts the envelope with a signature that verifies over the exact raw body', async () => {
    const h = await start();
    const receiver = await startReceiver();
    const sub = await h.subscribe(receiver.url);
    const event = h.emit();
    const [attempt] = await h.attempts(1);

    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got?.path).toBe('/hook');
    expect(got?.body.toString('utf8')).toBe(envelopeOf(event));
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers['user-agent']).toMatch(/^svc-sandbox-webhooks\/\S+$/);
    const header = got?.headers['x-service-signature'];
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(String(header), got?.body ?? Buffer.alloc(0), [sub.secret], T)).toEqual({ ok: true, timestamp: T });
    expect(verifySignature(String(header), got?.body ?? Buffer.alloc(0), [sub.secret], T + 301)).toMatchObject({ ok: false, reason: 'stale' });

    expect(attempt).toEqual({
      deliveryId: expect.stringMatching(/^whdel_/),
      eventId: event.id,
      event: 'RETURN_REQUESTED',
      subscriptionId: sub.id,
      attempt: 1,
      url: receiver.url,
      status: 200,
      durationMs: expect.any(Number),
      at: new Date(START).toISOString(),
      outcome: 'delivered',
    });
  });

  it('signs with the sandbox clock, so an advanced clock gives a timestamp ahead of real time', async () => {
    const h = await start();
    const receiver = await startReceiver();
    await h.subscribe(receiver.url);
    h.running.clock.advance(3600);
    h.emit();
    await h.attempts(1);
    expect(timestampOf(receiver.received[0]?.headers['x-service-signature'])).toBe(T + 3600);
  });

  it('sends each event only to the subscriptions that asked for it, of its own company', async () => {
    const h = await start();
    const returns = await startReceiver();
    const creditNotes = await startReceiver();
    const foods = await startReceiver();
    const returnsSub = await h.subscribe(returns.url, { events: ['RETURN_REQUESTED'] });
    const creditNotesSub = await h.subscribe(creditNotes.url, { events: ['CREDIT_NOTE_CREATED'] });
    await h.subscribe(foods.url, { companyId: FOODS });

    const event = h.emit('CREDIT_NOTE_CREATED');
    const log = await h.attempts(1);
    expect(log.map((a) => a.subscriptionId)).toEqual([creditNotesSub.id]);
    expect(creditNotes.received.map((r) => r.body.toString())).toEqual([envelopeOf(event)]);

    const second = h.emit('RETURN_REQUESTED');
    await h.attempts(1, `?eventId=${second.id}`);
    expect((await h.deliveries(`?subscriptionId=${returnsSub.id}`)).map((a) => a.eventId)).toEqual([second.id]);
    // Settle anything a wrong subscription might still be sent.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(returns.received).toHaveLength(1);
    expect(creditNotes.received).toHaveLength(1);
    expect(foods.received).toHaveLength(0);
    expect(await h.deliveries()).toHaveLength(2);
  });

  it("does not send a client application's subscription another client's events", async () => {
    const h = await start();
    const receiver = await startReceiver();
    await h.subscribe(receiver.url);
    const foreign = recordEvent(h.running.context, { event: 'RETURN_REQUESTED', companyId: RETAIL, clientId: 'app_other', data: {} });
    const own = h.emit('RETURN_REQUESTED');
    await h.attempts(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await h.deliveries()).map((a) => a.eventId)).toEqual([own.id]);
    expect(receiver.received.map((r) => r.body.toString())).not.toContain(JSON.stringify({ event: foreign.event, data: foreign.data }));
  });

  it('retries a failing receiver with the identical body and a fresh t until it answers 2xx', async () => {
    const h = await start();
    const receiver = await startReceiver((n, res) => {
      // Each attempt is signed one sandbox second later than the one before.
      h.running.clock.advance(1);
      res.statusCode = n <= 2 ? 500 : 200;
      res.end();
    });
    const sub = await h.subscribe(receiver.url);
    const event = h.emit();
    const log = await h.attempts(3);

    expect(receiver.received.map((r) => r.body.toString('utf8'))).toEqual([envelopeOf(event), envelopeOf(event), envelopeOf(event)]);
    const stamps = receiver.received.map((r) => timestampOf(r.headers['x-service-signature']));
    expect(stamps).toEqual([T, T + 1, T + 2]);
    for (const [i, r] of receiver.received.entries()) {
      expect(verifySignature(String(r.headers['x-service-signature']), r.body, [sub.secret], T + i)).toEqual({ ok: true, timestamp: T + i });
    }
    expect(log.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 500, 'retrying'],
      [2, 500, 'retrying'],
      [3, 200, 'delivered'],
    ]);
    expect(new Set(log.map((a) => a.deliveryId)).size).toBe(1);
    expect(log[0]?.nextAttemptAt).toEqual(expect.any(String));
    expect(log[2]).not.toHaveProperty('nextAttemptAt');
  });

  it('delivers to a receiver that was down when the event happened and comes back within the window', async () => {
    const h = await start({ baseDelayMs: 200, maxAttempts: 6, timeoutMs: 2000 });
    const port = await freePort();
    await h.subscribe(`http://127.0.0.1:${port}/hook`);
    const event = h.emit();
    const [refused] = await h.attempts(1);
    expect(refused).toMatchObject({ attempt: 1, status: null, error: expect.stringMatching(/ECONNREFUSED/), outcome: 'retrying' });

    const receiver = await startReceiver(undefined, port);
    const log = await h.attempts(2);
    expect(log[1]).toMatchObject({ attempt: 2, status: 200, outcome: 'delivered' });
    expect(receiver.received.map((r) => r.body.toString())).toEqual([envelopeOf(event)]);
  });

  it('gives up after maxAttempts', async () => {
    const h = await start({ baseDelayMs: 5, maxAttempts: 3, timeoutMs: 2000 });
    const receiver = await startReceiver((_n, res) => {
      res.statusCode = 503;
      res.end();
    });
    await h.subscribe(receiver.url);
    h.emit();
    const log = await h.attempts(3);
    expect(log.map((a) => a.outcome)).toEqual(['retrying', 'retrying', 'failed']);
    expect(log[2]).not.toHaveProperty('nextAttemptAt');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.received).toHaveLength(3);
    expect(await h.deliveries()).toHaveLength(3);
  });

  it('counts an answer slower than the timeout as a failed attempt', async () => {
    const h = await start({ baseDelayMs: 20, maxAttempts: 3, timeoutMs: 100 });
    const receiver = await startReceiver((n, res) => {
      if (n === 1) setTimeout(() => res.end(), 400);
      else res.end();
    });
    await h.subscribe(receiver.url);
    h.emit();
    const log = await h.attempts(2);
    expect(log[0]).toMatchObject({ attempt: 1, status: null, error: 'no answer within 100 ms', outcome: 'retrying' });
    expect(log[0]?.durationMs).toBeGreaterThanOrEqual(90);
    expect(log[1]).toMatchObject({ attempt: 2, status: 200, outcome: 'delivered' });
    expect(receiver.received).toHaveLength(2);
  });

  it('does not follow a redirect: it is a failed attempt', async () => {
    const h = await start({ baseDelayMs: 5, maxAttempts: 1, timeoutMs: 2000 });
    const receiver = await startReceiver((_n, res) => {
      res.writeHead(307, { Location: '/elsewhere' });
      res.end();
    });
    await h.subscribe(receiver.url);
    h.emit();
    const [attempt] = await h.attempts(1);
    expect(attempt).toMatchObject({ status: 307, outcome: 'failed' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
  });

  it('filters the delivery log by subscription and event', async () => {
    const h = await start();
    const receiver = await startReceiver();
    const a = await h.subscribe(receiver.url);
    const b = await h.subscribe(receiver.url);
    const first = h.emit();
    const second = h.emit('CREDIT_NOTE_CREATED');
    await h.attempts(4);
    expect((await h.deliveries(`?subscriptionId=${a.id}`)).map((d) => d.subscriptionId)).toEqual([a.id, a.id]);
    expect((await h.deliveries(`?eventId=${second.id}`)).map((d) => d.eventId)).toEqual([second.id, second.id]);
    expect(await h.deliveries(`?subscriptionId=${b.id}&eventId=${first.id}`)).toHaveLength(1);
    expect(await h.deliveries('?eventId=evt_none')).toEqual([]);
  });

  it('logs one line per attempt, without the body or the secret', async () => {
    const h = await start({ baseDelayMs: 5, maxAttempts: 2, timeoutMs: 2000 });
    const receiver = await startReceiver((n, res) => {
      res.statusCode = n === 1 ? 500 : 204;
      res.end();
    });
    const sub = await h.subscribe(receiver.url);
    const event = h.emit();
    await h.attempts(2);
    const lines = h.logs.filter((line) => line.startsWith('webhook RETURN_REQUESTED'));
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^webhook RETURN_REQUESTED ${event.id} to ${sub.id} \\(127\\.0\\.0\\.1:\\d+\\) attempt 1/2: 500 in \\d+ ms, retry in \\d+ ms$`)),
      expect.stringMatching(/attempt 2\/2: 204 in \d+ ms, delivered$/),
    ]);
    expect(h.logs.join('\n')).not.toContain(MARKER);
    expect(h.logs.join('\n')).not.toContain(sub.secret);
  });

  it('drops pending retries on reset, with the subscriptions', async () => {
    const h = await start({ baseDelayMs: 200, maxAttempts: 8, timeoutMs: 2000 });
    const receiver = await startReceiver((_n, res) => {
      res.statusCode = 500;
      res.end();
    });
    await h.subscribe(receiver.url);
    h.emit();
    await h.attempts(1);
    expect((await h.call('POST', '/sandbox/reset')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.received).toHaveLength(1);
    expect(await h.deliveries()).toEqual([]);
  });

  it('drops pending retries on close, without waiting for them', async () => {
    const h = await start({ baseDelayMs: 60_000, maxAttempts: 8, timeoutMs: 2000 });
    const receiver = await startReceiver((_n, res) => {
      res.statusCode = 500;
      res.end();
    });
    await h.subscribe(receiver.url);
    h.emit();
    await h.attempts(1);

    const started = Date.now();
    await h.running.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(receiver.received).toHaveLength(1);
  });

  it('stops an attempt in flight when the sandbox closes', async () => {
    const h = await start({ baseDelayMs: 5, maxAttempts: 3, timeoutMs: 30_000 });
    const receiver = await startReceiver(() => {
      // Never answers.
    });
    await h.subscribe(receiver.url);
    h.emit();
    await waitFor(() => receiver.received.length === 1, 'the first attempt to arrive');
    const started = Date.now();
    await h.running.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(receiver.received).toHaveLength(1);
  });
});
