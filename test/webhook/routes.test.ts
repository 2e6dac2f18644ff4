// `--forward-to [EVENTS=]URL`: which events a route names, and what a forward that got no
// answer reports (how many requests were sent, and why in words).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { KNOWN_WEBHOOK_EVENTS } from '../../src/contract/webhook.js';
import { UsageError } from '../../src/errors.js';
import type { StoredDelivery } from '../../src/webhook/journal.js';
import { createRoutingForwarder, parseRoute, type RoutingForwarder } from '../../src/webhook/routes.js';
import { until } from './setup.js';

describe('parseRoute', () => {
  it('takes the known events, one or a comma list, and a bare URL for every event', () => {
    expect([...(parseRoute('RETURN_REQUESTED,CREDIT_NOTE_CREATED=http://127.0.0.1:3000/h').events ?? [])]).toEqual(['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED']);
    expect(parseRoute('http://127.0.0.1:3000/h')).toMatchObject({ events: undefined });
  });

  it('refuses an event svc does not know (a typo would route nothing), naming the known ones and how to route every event', () => {
    const refused = (() => {
      try {
        parseRoute('RETURN_REQUESTED,RETURN_REQESTED=http://127.0.0.1:3912/r');
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as UsageError).message).toBe('--forward-to: RETURN_REQESTED is not an event svc knows (RETURN_REQUESTED, CREDIT_NOTE_CREATED)');
    expect((refused as UsageError).hint).toContain('--forward-to http://127.0.0.1:3912/r');
  });

  it('says what is wrong with a value, and what to give instead: no scheme, an empty event name, credentials', () => {
    const refusal = (value: string) => {
      try {
        parseRoute(value);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return { message: (error as UsageError).message, hint: (error as UsageError).hint };
      }
      throw new Error(`${value} was taken`);
    };
    // Was: "localhost:3000 is not an http(s) address on this machine", hint "forward to … localhost".
    expect(refusal('localhost:3000')).toEqual({ message: '--forward-to: localhost:3000 has no scheme', hint: 'give the whole address: --forward-to http://localhost:3000' });
    expect(refusal('RETURN_REQUESTED=127.0.0.1:3000/r')).toMatchObject({ message: '--forward-to: 127.0.0.1:3000/r has no scheme' });
    // Was: "is not a URL".
    for (const value of ['=http://127.0.0.1:3000/h', 'RETURN_REQUESTED,=http://127.0.0.1:3000/h']) {
      expect(refusal(value)).toMatchObject({ message: `--forward-to: an empty event name before "=" in ${value}`, hint: expect.stringContaining('--forward-to http://127.0.0.1:3000/h') });
    }
    expect(refusal('http://u:p@127.0.0.1:3000/h').hint).toContain('X-Service-Signature');
  });
});

/** An app on this machine that answers each request as told: a status, or never (it reads the request and keeps the connection). */
async function startApp(answer: (res: ServerResponse) => void) {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const app = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/h`,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  apps.push(app);
  return app;
}

const apps: { close(): Promise<void> }[] = [];
const forwarders: RoutingForwarder[] = [];
afterEach(async () => {
  await Promise.all(forwarders.splice(0).map((f) => f.close()));
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

const raw = Buffer.from('{"event":"RETURN_REQUESTED","data":{}}');
const delivery: StoredDelivery = { entry: { id: 'a'.repeat(64), receivedAt: new Date(0).toISOString(), event: 'RETURN_REQUESTED' }, raw, headers: {} };

function forwarderTo(url: string, policy: Parameters<typeof createRoutingForwarder>[1]) {
  const forwarder = createRoutingForwarder([parseRoute(url)], policy);
  forwarders.push(forwarder);
  return forwarder;
}

describe('a forward that gets no answer', () => {
  it('says so in words after the timeout, with the number of requests sent', async () => {
    const app = await startApp(() => {});
    const [outcome] = await forwarderTo(app.url, { attempts: 2, baseMs: 10, timeoutMs: 300 }).forward(delivery);
    expect(outcome).toMatchObject({ attempts: 2, result: { status: undefined, text: 'no answer within 0.3 s' } });
    expect(app.requests()).toBe(2);
  });

  it('aborted (the drain ran out of time): ends at once, one request sent and no retry, said in words', async () => {
    const app = await startApp(() => {});
    const forwarder = forwarderTo(app.url, { attempts: 4, baseMs: 10 });
    const forwarding = forwarder.forward(delivery);
    await until(() => app.requests() === 1, 'the request');
    const aborted = performance.now();
    forwarder.abort();
    const [outcome] = await forwarding;
    expect(performance.now() - aborted).toBeLessThan(500);
    expect(outcome).toMatchObject({ attempts: 1, result: { status: undefined, text: 'aborted: the listener stopped before the app answered' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(app.requests()).toBe(1);
  });

  it('is not tried again once the forwarder is closing', async () => {
    const app = await startApp((res) => res.writeHead(503).end());
    const forwarder = forwarderTo(app.url, { attempts: 4, baseMs: 1_000 });
    const forwarding = forwarder.forward(delivery);
    await until(() => app.requests() === 1, 'the first request');
    const closed = performance.now();
    await forwarder.close();
    const [outcome] = await forwarding;
    expect(performance.now() - closed).toBeLessThan(500);
    expect(outcome).toMatchObject({ attempts: 1, result: { status: 503 } });
    expect(app.requests()).toBe(1);
  });
});

describe('--forward-to in help', () => {
  it('names every event a route can take (the help is written out, not loaded from the contract, for start-up)', async () => {
    const help = await readFile(new URL('../../src/commands/webhook/index.ts', import.meta.url), 'utf8');
    const line = help.split('\n').find((l) => l.includes("'--forward-to <[events=]url>'")) ?? '';
    for (const event of KNOWN_WEBHOOK_EVENTS) expect(line).toContain(event);
  });
});
