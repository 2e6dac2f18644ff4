// The other webhook verbs: subscribe and list against a strict mock service, events and
// replay over a journal, verify offline; and listen --subscribe.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as events } from '../../src/commands/webhook/events.js';
import { run as list } from '../../src/commands/webhook/list.js';
import { run as replay } from '../../src/commands/webhook/replay.js';
import { run as subscribe } from '../../src/commands/webhook/subscribe.js';
import { run as verify } from '../../src/commands/webhook/verify.js';
import { fixedClock } from '../../src/clock.js';
import { bodyId } from '../../src/crypto/hash.js';
import { ExitCode, NotFoundError, SvcError, UsageError } from '../../src/errors.js';
import { openJournal } from '../../src/webhook/journal.js';
import { signPayload } from '../../src/webhook/signature.js';
import { journalPathOf } from '../../src/webhook/subscriptions.js';
import { closeHarnesses, expectHeader, harness, JSON_HEADERS, NOW, parseArgv, type Harness } from '../commands/receipts-setup.js';
import {
  CURRENT_KEY,
  deliver,
  installKeys,
  NOW_SECONDS,
  OTHER_SECRET,
  readJournalFile,
  returnRequest,
  returnRequestedBody,
  SECRET,
  startListening,
  until,
  withSecret,
} from './setup.js';

vi.mock('../../src/auth/session.js', () => ({ tokenSourceFor: async () => ({ token: async () => 'tok-1', invalidate: async () => {} }) }));

afterEach(closeHarnesses);

const CREATED_AT = new Date(NOW).toISOString();

function replyCreated(h: Harness, id: string, secret = SECRET) {
  h.reply('/webhook/subscription', 201, (body) => ({ id, ...(body as object), secret, createdAt: CREATED_AT }));
}

describe('argv → options', () => {
  it('maps every verb', async () => {
    expect(await parseArgv(['webhook', 'subscribe', '--url', 'https://x.example/h', '--show-secret'])).toEqual([
      { url: 'https://x.example/h', events: 'RETURN_REQUESTED,CREDIT_NOTE_CREATED', showSecret: true },
    ]);
    expect(await parseArgv(['webhook', 'listen', '--port', '0', '--forward-to', 'http://127.0.0.1:3000/h', '--subscribe'])).toEqual([
      { port: '0', host: '127.0.0.1', path: '/webhooks', forwardTo: ['http://127.0.0.1:3000/h'], subscribe: true, adminHost: '127.0.0.1', logFormat: 'text', drainTimeout: '30s' },
    ]);
    expect(await parseArgv(['webhook', 'events', '--limit', '5'])).toEqual([{ limit: '5' }]);
    expect(await parseArgv(['webhook', 'replay', 'abcdef', '--forward-to', 'http://127.0.0.1:1/h'])).toEqual([{ eventId: 'abcdef', forwardTo: 'http://127.0.0.1:1/h' }]);
    expect(await parseArgv(['webhook', 'verify', '--file', 'b.json', '--signature', 't=1,v1=00', '--secret-stdin'])).toEqual([
      { file: 'b.json', signature: 't=1,v1=00', secretStdin: true },
    ]);
  });
});

describe('subscribe', () => {
  it('prints only the ID, stores the secret and remembers the subscription', async () => {
    const h = await harness();
    replyCreated(h, 'whsub_1');
    await subscribe({ url: 'https://shop.example/webhooks', events: 'RETURN_REQUESTED, CREDIT_NOTE_CREATED,RETURN_REQUESTED', name: 'shop' }, h.f);
    expect(h.streams.stdout()).toBe('whsub_1\n');
    expect(h.output()).not.toContain(SECRET);
    expect(h.sent[0]!.body).toEqual({ name: 'shop', notificationUrl: 'https://shop.example/webhooks', events: ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED'] });
    expectHeader(h.sent[0]!, 'idempotency-key');
    expect(await (await h.f.secrets()).get('webhook-secret/whsub_1')).toBe(SECRET);
    const { readLocalSubscriptions } = await import('../../src/webhook/subscriptions.js');
    expect(await readLocalSubscriptions(h.f)).toEqual([{ id: 'whsub_1', name: 'shop', notificationUrl: 'https://shop.example/webhooks', events: ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED'], createdAt: CREATED_AT }]);
    // The secret only in the secret store: neither the file nor its write-ahead log holds it.
    const stored = await Promise.all(['subscriptions.db', 'subscriptions.db-wal'].map((name) => readFile(join(h.stateDir, 'shop', 'webhooks', name)).catch(() => Buffer.alloc(0))));
    expect(Buffer.concat(stored).includes('whsub_1')).toBe(true);
    expect(Buffer.concat(stored).includes('whsec_')).toBe(false);
  });

  it('shows the secret only with --show-secret', async () => {
    const plain = await harness();
    replyCreated(plain, 'whsub_1');
    await subscribe({ url: 'https://shop.example/webhooks', events: 'RETURN_REQUESTED', showSecret: true }, plain.f);
    expect(plain.streams.stdout()).toBe(`whsub_1\n${SECRET}\n`);

    const json = await harness({ json: true });
    replyCreated(json, 'whsub_2');
    await subscribe({ url: 'https://shop.example/webhooks', events: 'RETURN_REQUESTED' }, json.f);
    expect(JSON.parse(json.streams.stdout())).toEqual({ id: 'whsub_2', name: expect.any(String), notificationUrl: 'https://shop.example/webhooks', events: ['RETURN_REQUESTED'], createdAt: CREATED_AT });
  });

  it('refuses a URL that is not http(s) before calling the service', async () => {
    const h = await harness();
    await expect(subscribe({ url: 'ftp://shop.example/x', events: 'RETURN_REQUESTED' }, h.f)).rejects.toThrow(UsageError);
    await expect(subscribe({ url: 'https://shop.example/x', events: ' , ' }, h.f)).rejects.toThrow('--events');
  });
});

describe('list', () => {
  it("merges the service's list with which secrets are stored here", async () => {
    const h = await harness({ json: true });
    replyCreated(h, 'whsub_1');
    replyCreated(h, 'whsub_local');
    await subscribe({ url: 'https://shop.example/a', events: 'RETURN_REQUESTED', name: 'a' }, h.f);
    await subscribe({ url: 'https://shop.example/b', events: 'RETURN_REQUESTED', name: 'b' }, h.f);
    h.pool.intercept({ path: '/webhook/subscription', method: 'GET' }).reply(
      200,
      JSON.stringify([
        { id: 'whsub_1', name: 'a', notificationUrl: 'https://shop.example/a', events: ['RETURN_REQUESTED'], createdAt: CREATED_AT },
        { id: 'whsub_elsewhere', name: 'c', notificationUrl: 'https://shop.example/c', events: ['CREDIT_NOTE_CREATED'], createdAt: CREATED_AT },
      ]),
      { headers: JSON_HEADERS },
    );
    const before = h.streams.stdout().length;
    await list({}, h.f);
    const rows = JSON.parse(h.streams.stdout().slice(before)) as { id: string; onService: boolean; secretStored: boolean }[];
    expect(rows.map((r) => [r.id, r.onService, r.secretStored])).toEqual([
      ['whsub_1', true, true],
      ['whsub_elsewhere', true, false],
      ['whsub_local', false, true],
    ]);
  });
});

/** A journal with three deliveries: processed, failed, and unprocessed. */
async function journalWithThree(h: Harness) {
  const clock = fixedClock(NOW);
  const journal = await openJournal(journalPathOf(h.f), { clock });
  const bodies = [returnRequestedBody('sr-1'), returnRequestedBody('sr-2'), returnRequestedBody('sr-3')];
  const headers = (b: Buffer) => ({ 'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, b, NOW_SECONDS) });
  for (const b of bodies) {
    await journal.record(b, headers(b), 'RETURN_REQUESTED');
    clock.advance(1000);
  }
  await journal.markProcessed(bodyId(bodies[0]!), { ok: true });
  await journal.markProcessed(bodyId(bodies[1]!), { ok: false, error: 'cannot decrypt: no private keys available' });
  await journal.close();
  return bodies.map(bodyId);
}

describe('events', () => {
  it('lists the journal newest first with each state', async () => {
    const h = await harness({ json: true });
    const [a, b, c] = await journalWithThree(h);
    await events({ limit: '20' }, h.f);
    expect(JSON.parse(h.streams.stdout())).toEqual([
      { id: c, event: 'RETURN_REQUESTED', receivedAt: new Date(NOW + 2000).toISOString(), processed: false },
      { id: b, event: 'RETURN_REQUESTED', receivedAt: new Date(NOW + 1000).toISOString(), processed: true, error: 'cannot decrypt: no private keys available' },
      { id: a, event: 'RETURN_REQUESTED', receivedAt: new Date(NOW).toISOString(), processed: true },
    ]);
  });

  it('prints whole IDs and states as piped rows, up to --limit (a terminal shows the 12 digits replay takes)', async () => {
    const h = await harness();
    const [, b, c] = await journalWithThree(h);
    await events({ limit: '2' }, h.f);
    expect(h.streams.stdout()).toBe(
      `${c!}\tRETURN_REQUESTED\t${new Date(NOW + 2000).toISOString()}\tpending\n` +
        `${b!}\tRETURN_REQUESTED\t${new Date(NOW + 1000).toISOString()}\tfailed: cannot decrypt: no private keys available\n`,
    );
    await expect(events({ limit: '0' }, h.f)).rejects.toThrow(UsageError);
  });
});

describe('a forward that never got through', () => {
  /** One delivery, processed, that the app at `url` never took. */
  async function notForwarded(h: Harness, url: string, others = ['http://127.0.0.1:9/other: failed: ECONNREFUSED (4 attempts)']) {
    const journal = await openJournal(journalPathOf(h.f), { clock: fixedClock(NOW) });
    const body = returnRequestedBody('sr-1');
    await journal.record(body, { 'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, body, NOW_SECONDS) }, 'RETURN_REQUESTED');
    await journal.markProcessed(bodyId(body), { ok: true, forwardFailed: [`${url}: 500 Internal Server Error (4 attempts)`, ...others] });
    await journal.close();
    return bodyId(body);
  }

  it('`events` says so beside processed, with each target and what it answered; --json lists them', async () => {
    const h = await harness();
    const id = await notForwarded(h, 'http://127.0.0.1:3000/hooks');
    await events({ limit: '5' }, h.f);
    expect(h.streams.stdout()).toBe(
      `${id}\tRETURN_REQUESTED\t${new Date(NOW).toISOString()}\tprocessed; not forwarded to http://127.0.0.1:3000/hooks: 500 Internal Server Error (4 attempts), http://127.0.0.1:9/other: failed: ECONNREFUSED (4 attempts)\n`,
    );
    const json = await harness({ json: true });
    const jsonId = await notForwarded(json, 'http://127.0.0.1:3000/hooks');
    await events({ limit: '5' }, json.f);
    expect(JSON.parse(json.streams.stdout())).toEqual([
      expect.objectContaining({ id: jsonId, processed: true, forwardFailed: ['http://127.0.0.1:3000/hooks: 500 Internal Server Error (4 attempts)', 'http://127.0.0.1:9/other: failed: ECONNREFUSED (4 attempts)'] }),
    ]);
  });

  it('a replay the target takes clears that target alone; a replay without --forward-to keeps them', async () => {
    const app = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
    try {
      const h = await harness({ json: true });
      const id = await notForwarded(h, url);
      await installKeys(await h.f.secrets(), [CURRENT_KEY]);
      await replay({ eventId: id.slice(0, 12) }, h.f);
      expect((await readJournalFile(journalPathOf(h.f))).processed.at(-1)).toMatchObject({ ok: true, forwardFailed: [expect.stringContaining(url), expect.stringContaining('/other')] });
      await replay({ eventId: id.slice(0, 12), forwardTo: url }, h.f);
      expect((await readJournalFile(journalPathOf(h.f))).processed.at(-1)).toEqual(expect.objectContaining({ id, ok: true, forwardFailed: ['http://127.0.0.1:9/other: failed: ECONNREFUSED (4 attempts)'] }));
      // Every target has it now: the line says processed alone, as `events` will.
      await replay({ eventId: id.slice(0, 12), forwardTo: url.replace('/hooks', '/other') }, h.f).catch(() => undefined);
      const other = await harness({ json: true });
      const otherId = await notForwarded(other, url, []);
      await replay({ eventId: otherId.slice(0, 12), forwardTo: url }, other.f);
      const last = (await readJournalFile(journalPathOf(other.f))).processed.at(-1);
      expect(last).toMatchObject({ id: otherId, ok: true });
      expect(last).not.toHaveProperty('forwardFailed');
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });
});

describe('replay', () => {
  it('processes a failed delivery again once the key is there, and journals the outcome', async () => {
    const h = await harness({ json: true });
    const [, failed] = await journalWithThree(h);
    await installKeys(await h.f.secrets(), [CURRENT_KEY]);
    await replay({ eventId: failed!.slice(0, 12) }, h.f);
    expect(JSON.parse(h.streams.stdout())).toMatchObject({ id: failed, event: 'RETURN_REQUESTED', verified: true, duplicate: false, data: returnRequest('sr-2') });
    expect(h.streams.stderr()).toContain(`--> RETURN_REQUESTED  ${failed!.slice(0, 12)}  receipt sr-2  2 items`);
    const { processed } = await readJournalFile(journalPathOf(h.f));
    expect(processed.at(-1)).toMatchObject({ id: failed, ok: true });
  });

  it('fails (exit 1) when the delivery still cannot be processed, and refuses unknown IDs', async () => {
    const h = await harness();
    const [first] = await journalWithThree(h);
    const error = await replay({ eventId: first! }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).exitCode).toBe(ExitCode.failure);
    expect(h.streams.stderr()).toContain('error: cannot decrypt: no private key matches');
    await expect(replay({ eventId: 'ffffffffffff' }, h.f)).rejects.toThrow(NotFoundError);
    await expect(replay({ eventId: 'not-an-id' }, h.f)).rejects.toThrow(UsageError);
  });

  it('forwards the original body and headers with --forward-to, with the Svc-* headers a live forward carries', async () => {
    const h = await harness();
    const [first] = await journalWithThree(h);
    const seen: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
    const app = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        seen.push({ body, headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    try {
      await replay({ eventId: first!, forwardTo: `http://127.0.0.1:${(app.address() as AddressInfo).port}/h` }, h.f);
      expect(bodyId(Buffer.from(seen[0]!.body))).toBe(first);
      // The original header, as journalled.
      expect(seen[0]!.headers['x-service-signature']).toBe(signPayload(SECRET, Buffer.from(seen[0]!.body), NOW_SECONDS));
      // As the listener's own forward sends them (src/webhook/routes.ts): an app that routes or
      // deduplicates on them takes the replay as it took the original.
      expect(seen[0]!.headers['svc-event']).toBe('RETURN_REQUESTED');
      expect(seen[0]!.headers['svc-delivery-id']).toBe(first);
      expect(seen[0]!.headers['svc-company-id']).toBe('c0000000-0000-4000-8000-000000000001');
      expect(h.streams.stderr()).toContain(': 204 No Content');
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('says nothing was forwarded when the app refuses the replay: the error alone, with the delivery kept', async () => {
    const h = await harness();
    const [first] = await journalWithThree(h);
    const app = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/h`;
    try {
      const error = await replay({ eventId: first!, forwardTo: url }, h.f).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SvcError);
      expect((error as SvcError).message).toBe(`the app at ${url} did not accept ${first!.slice(0, 12)} (503 Service Unavailable)`);
      expect((error as SvcError).exitCode).toBe(ExitCode.unavailable);
      expect((error as SvcError).hint).toContain('stays in the journal');
      expect(h.streams.stderr()).not.toContain('forwarded');
      expect(h.streams.stdout()).toBe('');
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });
});

describe('verify', () => {
  async function bodyFile(h: Harness, body: Buffer) {
    const path = join(h.stateDir, 'body.json');
    await writeFile(path, body);
    return path;
  }

  it("accepts a signature made with one of the profile's secrets", async () => {
    const h = await harness();
    await withSecret(h.f);
    const body = returnRequestedBody('sr-1');
    await verify({ file: await bodyFile(h, body), signature: signPayload(SECRET, body, NOW_SECONDS - 10) }, h.f);
    expect(h.streams.stdout()).toBe(`valid: signed at ${new Date((NOW_SECONDS - 10) * 1000).toISOString()}\n`);
  });

  it('checks with a secret from stdin, and fails (exit 2, as a receiver refuses it with 400) with the reason and a hint, never printing a secret', async () => {
    const h = await harness({ json: true });
    const body = returnRequestedBody('sr-1');
    const file = await bodyFile(h, body);
    h.streams.input.end(`${OTHER_SECRET}\n`);
    const error = await verify({ file, signature: signPayload(SECRET, body, NOW_SECONDS), secretStdin: true }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).exitCode).toBe(ExitCode.usage);
    expect((error as SvcError).message).toContain('--signature: invalid signature (no_match)');
    expect((error as SvcError).hint).toContain('--secret-stdin');
    expect(JSON.parse(h.streams.stdout())).toEqual({ valid: false, reason: 'no_match' });
    expect(h.output() + (error as Error).message).not.toContain('whsec_');
  });

  it('says a matching but old signature is stale', async () => {
    const h = await harness();
    await withSecret(h.f);
    const body = returnRequestedBody('sr-1');
    await expect(verify({ file: await bodyFile(h, body), signature: signPayload(SECRET, body, NOW_SECONDS - 3600) }, h.f)).rejects.toThrow(
      'invalid signature (stale): the signature matches, but it was made more than 300 s ago',
    );
  });

  it('reads the exact body bytes from standard input with --file -', async () => {
    const h = await harness();
    await withSecret(h.f);
    const body = Buffer.concat([returnRequestedBody('sr-1'), Buffer.from([0xff, 0x0a])]);
    h.streams.input.end(body);
    await verify({ file: '-', signature: signPayload(SECRET, body, NOW_SECONDS) }, h.f);
    expect(h.streams.stdout()).toMatch(/^valid: signed at /);
    await expect(verify({ file: '-', signature: 't=1,v1=00', secretStdin: true }, h.f)).rejects.toThrow(
      '--file - and --secret-stdin cannot both read standard input',
    );
  });

  it('needs a secret and a readable file', async () => {
    const h = await harness();
    await expect(verify({ file: join(h.stateDir, 'missing.json'), signature: 't=1,v1=00' }, h.f)).rejects.toThrow('cannot read');
    await expect(verify({ file: await bodyFile(h, Buffer.from('{}')), signature: 't=1,v1=00' }, h.f)).rejects.toThrow('knows no webhook signing secret');
  });
});

describe('listen --subscribe', () => {
  it('subscribes this listener, stores the secret and verifies with it', async () => {
    const h = await harness({ json: true });
    replyCreated(h, 'whsub_listen', OTHER_SECRET);
    await installKeys(await h.f.secrets(), [CURRENT_KEY]);
    const l = await startListening(h, { subscribe: true });
    try {
      expect(h.sent[0]!.body).toMatchObject({ notificationUrl: l.url, events: ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED'] });
      expect(await (await h.f.secrets()).get('webhook-secret/whsub_listen')).toBe(OTHER_SECRET);
      expect((await deliver(l.url, returnRequestedBody('sr-1'), { secret: OTHER_SECRET })).status).toBe(200);
      await until(() => h.streams.stdout().includes('"sr-1"'), 'the event');
      expect(h.streams.stderr()).toContain(`subscribed whsub_listen to RETURN_REQUESTED, CREDIT_NOTE_CREATED at ${l.url}`);
    } finally {
      await l.stop();
    }
  });
});
