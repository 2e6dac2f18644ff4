import { createServer, connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { listenForCallback, type CallbackListener } from '../../src/auth/loopback.js';
import { createState, type OAuthState } from '../../src/auth/state.js';
import { CancelError, SvcError, UsageError } from '../../src/errors.js';
import { rejection } from './setup.js';

let listener: CallbackListener | undefined;

afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

async function start(state: OAuthState, timeoutMs = 5_000, path = '/callback') {
  const refused: string[] = [];
  listener = await listenForCallback({
    redirectUri: `http://127.0.0.1:0${path}`,
    state,
    timeoutMs,
    onRefused: (reason) => refused.push(reason),
  });
  return { listener, refused, url: (query: string, at = path) => `http://127.0.0.1:${listener?.port}${at}?${query}` };
}

/** Resolves when a TCP connection to host:port is refused (or otherwise fails). */
function connectFails(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function pending(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const winner = await Promise.race([promise.catch(() => undefined), new Promise((r) => setTimeout(() => r(marker), 50))]);
  return winner === marker;
}

describe('loopback callback listener', () => {
  it('resolves with the code of a valid callback, says the tab can be closed, and closes', async () => {
    const state = createState();
    const { listener: l, url } = await start(state);
    const res = await fetch(url(`code=abc123&state=${state.value}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toContain('You can close this tab');
    await expect(l.code).resolves.toBe('abc123');
    await l.close();
    expect(await connectFails('127.0.0.1', l.port)).toBe(true);
  });

  it('answers 400 to a wrong or missing state and keeps waiting for the real callback', async () => {
    const state = createState();
    const { listener: l, url, refused } = await start(state);
    for (const query of ['code=evil&state=forged', 'code=evil']) {
      const res = await fetch(url(query));
      expect(res.status).toBe(400);
      expect(await res.text()).not.toContain('evil');
    }
    expect(await pending(l.code)).toBe(true);
    expect(refused).toEqual(['a callback with a wrong state', 'a callback without state']);
    const ok = await fetch(url(`code=good&state=${state.value}`));
    expect(ok.status).toBe(200);
    await expect(l.code).resolves.toBe('good');
  });

  it('turns access_denied into a CancelError', async () => {
    const state = createState();
    const { listener: l, url } = await start(state);
    const res = await fetch(url(`error=access_denied&state=${state.value}`));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('close this tab');
    const error = await rejection(l.code);
    expect(error).toBeInstanceOf(CancelError);
    expect((error as CancelError).exitCode).toBe(3);
    expect((error as CancelError).message).toMatch(/denied/);
  });

  it('ignores a denial that carries a wrong state: nobody else can cancel the login', async () => {
    const state = createState();
    const { listener: l, url } = await start(state);
    const res = await fetch(url('error=access_denied&state=forged'));
    expect(res.status).toBe(400);
    expect(await pending(l.code)).toBe(true);
  });

  it('answers only on the redirect URI path, and only GET', async () => {
    const state = createState();
    const { listener: l, url } = await start(state);
    expect((await fetch(url(`code=x&state=${state.value}`, '/other'))).status).toBe(404);
    expect((await fetch(url(`code=x&state=${state.value}`), { method: 'POST' })).status).toBe(405);
    expect(await pending(l.code)).toBe(true);
    expect(state.matches(state.value)).toBe(true);
  });

  it('fails after the timeout and stops listening', async () => {
    const { listener: l } = await start(createState(), 100);
    const error = await rejection(l.code);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).message).toMatch(/no answer from the browser/);
    await l.close();
    expect(await connectFails('127.0.0.1', l.port)).toBe(true);
  });

  it('binds 127.0.0.1 only', async () => {
    const { listener: l } = await start(createState());
    expect(l.address).toBe('127.0.0.1');
    expect(l.redirectUri).toBe(`http://127.0.0.1:${l.port}/callback`);
    expect(await connectFails('::1', l.port)).toBe(true);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    if (external) expect(await connectFails(external.address, l.port)).toBe(true);
  });

  it('refuses a redirect URI it cannot listen on', async () => {
    for (const redirectUri of ['https://127.0.0.1:8765/callback', 'http://example.com:8765/callback', 'not a url']) {
      await expect(listenForCallback({ redirectUri, state: createState(), timeoutMs: 1000 })).rejects.toBeInstanceOf(UsageError);
    }
  });

  it('says which port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const error = await rejection(listenForCallback({ redirectUri: `http://127.0.0.1:${port}/callback`, state: createState(), timeoutMs: 1000 }));
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toContain(`127.0.0.1:${port}`);
    } finally {
      blocker.close();
    }
  });
});
