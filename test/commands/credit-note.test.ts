import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RequestStateError } from '../../src/api/credit-note.js';
import { poll, run as pollRun } from '../../src/commands/credit-note/poll.js';
import { run as show } from '../../src/commands/credit-note/show.js';
import { accept, complete, reject, run as setStatus } from '../../src/commands/credit-note/status.js';
import { run as template } from '../../src/commands/credit-note/template.js';
import type { ReturnRequest } from '../../src/contract/returns.js';
import type { CreditNoteTemplateRequest } from '../../src/contract/template.js';
import { documentHash } from '../../src/crypto/hash.js';
import { generateKeyPair } from '../../src/crypto/keys.js';
import { AuthError, DecryptError, ExitCode, NotFoundError, UsageError, ValidationError } from '../../src/errors.js';
import { merchantKeys, queueItem, replyQueue, replyStatus, withKeys, type MerchantKeys } from './credit-note-setup.js';
import { apiError, closeHarnesses, harness, parseArgv, readFixture, templateFor, type Harness } from './receipts-setup.js';

const tokenSourceFor = vi.hoisted(() =>
  vi.fn(async (_f: unknown, _want?: { scope?: string }) => ({ token: async () => 'tok-1', invalidate: async () => {} })),
);
vi.mock('../../src/auth/session.js', () => ({ tokenSourceFor }));

let keys: MerchantKeys;
let strangerKey: string;

beforeAll(async () => {
  keys = await merchantKeys();
  strangerKey = (await generateKeyPair()).publicKey;
});

afterEach(async () => {
  tokenSourceFor.mockClear();
  await closeHarnesses();
});

const VALID_IBAN = 'DE89370400440532013000';

function request(changes: Partial<ReturnRequest> = {}): ReturnRequest {
  return {
    serviceReceiptId: 'sr-1',
    receiptId: 'R-2025-000871',
    customerNote: 'The milk was sour when I opened it at home, two days before its best-before date.',
    lineItems: [
      { productId: '4001234567890', quantity: 1, reasonCode: 'DAMAGED' },
      { productId: '4001111222333', quantity: 2, reasonCode: 'NO_LONGER_NEEDED', reasonDescription: 'bought too many' },
    ],
    refundPreference: 'ORIGINAL_PAYMENT_METHOD',
    ...changes,
  };
}

const bankRequest = () =>
  request({ refundPreference: 'BANK_TRANSFER', refundBankAccount: { iban: VALID_IBAN, accountHolder: 'Alice Example', bic: 'COBADEFFXXX' } });

async function keyed(opts: Parameters<typeof harness>[0] = {}): Promise<Harness> {
  const h = await harness(opts);
  await withKeys(h, keys);
  return h;
}

const pollOpts = { interval: '10', decrypt: true };

describe('argv → options', () => {
  it('maps every verb', async () => {
    expect(await parseArgv(['credit-note', 'poll'])).toEqual([{ interval: '10', decrypt: true }]);
    expect(await parseArgv(['credit-note', 'poll', '--status', 'PENDING', '--watch', '--interval', '3', '--no-decrypt'])).toEqual([
      { status: ['PENDING'], watch: true, interval: '3', decrypt: false },
    ]);
    expect(await parseArgv(['credit-note', 'show', 'req-1', '--reveal'])).toEqual([{ requestId: 'req-1', reveal: true }]);
    expect(await parseArgv(['credit-note', 'accept', 'req-1', '--partial'])).toEqual([{ requestIds: ['req-1'], partial: true }]);
    expect(await parseArgv(['credit-note', 'accept', 'req-1', '--item', 'milk:1', '--item', 'bread:2'])).toEqual([{ requestIds: ['req-1'], partial: false, item: ['milk:1', 'bread:2'] }]);
    expect(await parseArgv(['credit-note', 'reject', 'req-1', 'req-2', '--yes'])).toEqual([{ requestIds: ['req-1', 'req-2'], yes: true }]);
    expect(await parseArgv(['credit-note', 'complete', 'req-1'])).toEqual([{ requestIds: ['req-1'], yes: undefined }]);
    expect(await parseArgv(['credit-note', 'status', 'req-1', 'REJECTED'])).toEqual([{ requestId: 'req-1', status: 'REJECTED' }]);
    expect(await parseArgv(['credit-note', 'issue', 'req-1', '--original', 'r.json', '--document-number', 'CN-9', '--yes', '--complete'])).toEqual([
      { requestId: 'req-1', original: 'r.json', documentNumber: 'CN-9', yes: true, complete: true },
    ]);
    expect(await parseArgv(['credit-note', 'issue', 'req-1', '--item', 'SKU-1:2', '--item', 'urn:sku:7:0.5'])).toEqual([
      { requestId: 'req-1', item: ['SKU-1:2', 'urn:sku:7:0.5'] },
    ]);
    expect(await parseArgv(['credit-note', 'template', '--file', '-'])).toEqual([{ file: '-' }]);
  });
});

describe('credit-note poll', () => {
  it('decrypts with the current key and with a key from before a rotation', async () => {
    const h = await keyed({ json: true });
    replyQueue(h, [
      queueItem('req-new', request(), keys.current.publicKey),
      queueItem('req-old', request({ customerNote: 'sent before the rotation' }), keys.older.publicKey),
    ]);
    await pollRun(pollOpts, h.f);
    const items = JSON.parse(h.streams.stdout()) as { requestId: string; returnRequest?: ReturnRequest; decryptError?: string }[];
    expect(items.map((i) => [i.requestId, i.returnRequest?.customerNote, i.decryptError])).toEqual([
      ['req-new', request().customerNote, undefined],
      ['req-old', 'sent before the rotation', undefined],
    ]);
    expect(tokenSourceFor).toHaveBeenCalledWith(h.f, { scope: 'write_receipts' });
  });

  it('shows an unreadable item with its error and goes on: --json has returnRequest or decryptError, never both', async () => {
    const h = await keyed({ json: true });
    const tampered = queueItem('req-tampered', request(), keys.current.publicKey);
    tampered.encryptedCreditNoteInitiationRequest = queueItem('x', { other: true }, keys.current.publicKey).encryptedCreditNoteInitiationRequest;
    const items = [
      queueItem('req-1', request(), keys.current.publicKey),
      queueItem('req-stranger', request(), strangerKey),
      tampered,
      queueItem('req-invalid', { ...request(), lineItems: [] }, keys.current.publicKey),
      queueItem('req-2', bankRequest(), keys.older.publicKey, { status: 'ACCEPTED' }),
    ];
    replyQueue(h, items);
    await pollRun(pollOpts, h.f);
    const out = JSON.parse(h.streams.stdout()) as Record<string, unknown>[];
    expect(out).toHaveLength(5);
    for (const [i, item] of out.entries()) {
      expect('returnRequest' in item !== 'decryptError' in item, `item ${i}`).toBe(true);
      const { returnRequest: _r, decryptError: _d, ...listed } = item;
      expect(listed).toEqual(items[i]);
    }
    expect(out.map((i) => i.decryptError)).toEqual([
      undefined,
      expect.stringMatching(/^cannot decrypt: no private key matches the item's public key [\w-]{43}$/),
      'cannot decrypt: the ciphertext or its tag was altered, or the key is wrong',
      'decrypted, but not a valid return request: lineItems must have at least one entry',
      undefined,
    ]);
    // The decrypted plaintext (docs/interface-decisions.md#json-output), with the bank account masked as everywhere it is printed.
    expect((out[4]!.returnRequest as ReturnRequest).refundBankAccount).toEqual({ iban: '•••• 3000', accountHolder: 'Alice Example', bic: 'COBADEFFXXX' });
    expect(h.output()).not.toContain(VALID_IBAN);
    expect(h.output()).not.toContain('PRIVATE KEY');
  });

  it('warns of a profile without keys only once the login is there: without one, that is the error', async () => {
    const h = await harness();
    replyQueue(h, []);
    await pollRun(pollOpts, h.f);
    expect(h.streams.stderr()).toContain('warning: this profile has no private keys');

    const loggedOut = await harness();
    tokenSourceFor.mockRejectedValueOnce(new AuthError('not logged in', { hint: 'run `svc auth login`' }));
    await expect(pollRun(pollOpts, loggedOut.f)).rejects.toBeInstanceOf(AuthError);
    expect(loggedOut.streams.stderr()).toBe('');
  });

  it('prints a table on a terminal and tab-separated rows otherwise, errors in the NOTE column', async () => {
    for (const tty of [true, false]) {
      const h = await keyed({ tty });
      replyQueue(h, [
        queueItem('req-1', request(), keys.current.publicKey),
        queueItem('req-2', request({ lineItems: [{ productId: 'PLU-4011', quantity: 0.5, reasonCode: 'DAMAGED' }], customerNote: undefined }), keys.current.publicKey, {
          createdAt: new Date(Date.parse('2025-03-12T16:42:06Z')).toISOString(),
        }),
        queueItem('req-3', request(), strangerKey),
      ]);
      await pollRun(pollOpts, h.f);
      const out = h.streams.stdout();
      if (tty) {
        expect(out).toMatch(/REQUEST ID.*RECEIPT.*STATUS.*AGE.*ITEMS.*REFUND.*NOTE/);
        expect(out).toMatch(/The milk was sour when I opened it/);
        expect(out).toContain('3 requests · 3 pending · oldest 2d');
      } else {
        expect(out.split('\n')).toEqual([
          expect.stringMatching(/^req-1\tsr-1\tPENDING\t5m\t2 lines\tORIGINAL_PAYMENT_METHOD\tThe milk was sour when I opened it at home, [^…]*$/),
          'req-2\tsr-1\tPENDING\t2d\t0.5\tORIGINAL_PAYMENT_METHOD\t',
          expect.stringMatching(/^req-3\tsr-1\tPENDING\t5m\t-\t-\terror: cannot decrypt: no private key matches/),
          '',
        ]);
      }
      expect(h.streams.stderr()).toContain('1 of 3 requests could not be read');
    }
  });

  it('filters by --status locally and refuses a status that does not exist', async () => {
    const h = await keyed({ json: true });
    replyQueue(h, [
      queueItem('req-1', request(), keys.current.publicKey),
      queueItem('req-2', request(), keys.current.publicKey, { status: 'ACCEPTED' }),
      queueItem('req-3', request(), keys.current.publicKey, { status: 'CANCELLED' }),
    ]);
    await pollRun({ ...pollOpts, status: 'accepted' }, h.f);
    expect((JSON.parse(h.streams.stdout()) as { requestId: string }[]).map((i) => i.requestId)).toEqual(['req-2']);

    const error = await pollRun({ ...pollOpts, status: 'OPEN' }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe('--status OPEN is not a status of a return request');
    expect((error as UsageError).hint).toBe('use one of PENDING, ACCEPTED, PARTIALLY_ACCEPTED, REJECTED, COMPLETED, CANCELLED');
  });

  it('a --receipt no record here knows, shorter than 6 characters, matches only whole IDs: no guess by three hex digits', async () => {
    for (const decrypt of [true, false]) {
      const h = await keyed({ json: true });
      replyQueue(h, [queueItem('req-1', request(), keys.current.publicKey, { serviceReceiptId: '29c6a0e1-0000-4000-8000-000000000001' })]);
      await pollRun({ ...pollOpts, decrypt, receipt: '29c' }, h.f);
      expect(JSON.parse(h.streams.stdout())).toEqual([]);
    }
  });

  it('lists the queue without keys with --no-decrypt', async () => {
    const h = await harness({ json: true });
    const items = [queueItem('req-1', request(), keys.current.publicKey)];
    replyQueue(h, items);
    await pollRun({ interval: '10', decrypt: false }, h.f);
    expect(JSON.parse(h.streams.stdout())).toEqual(items);
  });

  it('--watch prints only new items and status changes when not on a terminal, NDJSON with --json', async () => {
    for (const json of [false, true]) {
      const h = await keyed({ json });
      replyQueue(h, [queueItem('req-1', request(), keys.current.publicKey)]);
      replyQueue(h, [
        queueItem('req-1', request(), keys.current.publicKey, { status: 'ACCEPTED' }),
        queueItem('req-2', request(), strangerKey),
      ]);
      replyQueue(h, [
        queueItem('req-1', request(), keys.current.publicKey, { status: 'ACCEPTED' }),
        queueItem('req-2', request(), strangerKey),
        queueItem('req-3', bankRequest(), keys.current.publicKey),
      ]);
      const stop = new AbortController();
      const waits: number[] = [];
      await poll({ ...pollOpts, watch: true, interval: '2' }, h.f, {
        signal: stop.signal,
        sleep: async (ms) => {
          waits.push(ms);
          if (waits.length === 3) stop.abort();
        },
      });
      expect(waits).toEqual([2000, 2000, 2000]);
      const lines = h.streams.stdout().trimEnd().split('\n');
      if (json) {
        const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(events.map((e) => [e.change, e.requestId, e.status, e.previousStatus])).toEqual([
          ['new', 'req-1', 'PENDING', undefined],
          ['status', 'req-1', 'ACCEPTED', 'PENDING'],
          ['new', 'req-2', 'PENDING', undefined],
          ['new', 'req-3', 'PENDING', undefined],
        ]);
        expect(events[1]!.returnRequest).toEqual(request());
        expect(events[2]!.decryptError).toMatch(/^cannot decrypt/);
        expect((events[3]!.returnRequest as ReturnRequest).refundBankAccount?.iban).toBe('•••• 3000');
        expect(h.output()).not.toContain(VALID_IBAN);
      } else {
        expect(lines.map((l) => l.split('\t').slice(0, 4).concat(l.split('\t').slice(-1)))).toEqual([
          ['new', 'req-1', 'sr-1', 'PENDING', expect.stringContaining('The milk')],
          ['status', 'req-1', 'sr-1', 'ACCEPTED', 'was PENDING'],
          ['new', 'req-2', 'sr-1', 'PENDING', expect.stringMatching(/^error: cannot decrypt/)],
          ['new', 'req-3', 'sr-1', 'PENDING', expect.any(String)],
        ]);
      }
    }
  });

  it('--watch redraws the table on the alternate screen of a terminal, and survives an unreachable service', async () => {
    const h = await keyed({ tty: true });
    replyQueue(h, [queueItem('req-1', request(), keys.current.publicKey)]);
    h.pool.intercept({ path: '/credit-note', method: 'GET' }).reply(503, JSON.stringify(apiError('unavailable', 'restarting'))).times(4);
    const stop = new AbortController();
    let waits = 0;
    await poll({ ...pollOpts, watch: true, interval: '5' }, h.f, {
      signal: stop.signal,
      sleep: async () => {
        if (++waits === 2) stop.abort();
      },
    });
    const out = h.streams.stdout();
    expect(out.split('\x1b[H\x1b[2J')).toHaveLength(2);
    expect(out).toContain('req-1');
    expect(out).toMatch(/1 request · 1 pending · .* · every 5 s · Ctrl-C to stop/);
    // The alternate screen: entered first, left last, so nothing stays in the scrollback.
    expect(out.startsWith('\x1b[?1049h')).toBe(true);
    expect(out.endsWith('\x1b[?1049l')).toBe(true);
    expect(h.streams.stderr()).toMatch(/warning: .*restarting.*; trying again in 5 s/);
  });

  it('refuses an --interval under a second', async () => {
    const h = await keyed();
    await expect(pollRun({ ...pollOpts, watch: true, interval: '0.2' }, h.f)).rejects.toThrow('--interval: "0.2" is shorter than the minimum of 1s');
  });
});

describe('credit-note show', () => {
  it('shows the decrypted request with the IBAN masked, unless --reveal', async () => {
    for (const reveal of [false, true]) {
      const h = await keyed();
      replyQueue(h, [queueItem('req-1', request(), keys.current.publicKey), queueItem('req-2', bankRequest(), keys.older.publicKey)]);
      await show({ requestId: 'req-2', reveal }, h.f);
      const out = h.streams.stdout();
      expect(out).toMatch(/^request +req-2$/m);
      expect(out).toMatch(/^receipt +sr-1 \(document R-2025-000871\)$/m);
      expect(out).toMatch(/^refund +BANK_TRANSFER \(the customer's preference\)$/m);
      expect(out).toMatch(/^ {2}accountHolder +Alice Example$/m);
      expect(out).toMatch(/^line 2 +2 × 4001111222333 · NO_LONGER_NEEDED · bought too many$/m);
      // No record of the receipt here: the checks end with the way issue's refusal names.
      expect(out.trimEnd()).toMatch(/\nchecks: `issue` would refuse it:\n {2}serviceReceiptId: [^\n]*\nissued by another machine or profile \(records are kept per profile\)\? `svc credit-note issue req-2 --original FILE` with its receipt record$/);
      if (reveal) expect(out).toMatch(new RegExp(`^  iban +${VALID_IBAN}$`, 'm'));
      else {
        expect(out).toMatch(/^ {2}iban +•••• 3000$/m);
        expect(out).not.toContain(VALID_IBAN);
      }
    }
  });

  it('--json is the queue item and the request, the IBAN masked', async () => {
    const h = await keyed({ json: true });
    const item = queueItem('req-2', bankRequest(), keys.current.publicKey);
    replyQueue(h, [item]);
    await show({ requestId: 'req-2', reveal: false }, h.f);
    expect(JSON.parse(h.streams.stdout())).toEqual({
      ...item,
      returnRequest: { ...bankRequest(), refundBankAccount: { iban: '•••• 3000', accountHolder: 'Alice Example', bic: 'COBADEFFXXX' } },
      // What `issue` would do: here refuse it, this profile having no record of the receipt.
      decision: {
        requestId: 'req-2',
        checks: 'failed',
        issues: [{ path: 'serviceReceiptId', message: expect.stringContaining('not known as one of this merchant') }],
        // The way forward issue's refusal names: the receipt record, from the machine that issued it.
        hint: 'issued by another machine or profile (records are kept per profile)? `svc credit-note issue req-2 --original FILE` with its receipt record',
      },
    });
  });

  it("prints no control character of the customer's text, and keeps each field on its line", async () => {
    const h = await keyed();
    const note = 'ok\x1b[2J\x1b]0;owned\x07\nstatus           COMPLETED\u202e';
    const hostile = request({ customerNote: note, lineItems: [{ productId: 'P\x1b[31m', quantity: 1, reasonCode: 'X\r' }] });
    replyQueue(h, [queueItem('req-1', hostile, keys.current.publicKey)]);
    await show({ requestId: 'req-1', reveal: false }, h.f);
    const out = h.streams.stdout();
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
    expect(out).toMatch(/^note +ok\\x1b\[2J\\x1b\]0;owned\\x07 status +COMPLETED\\u202e$/m);
    expect(out).toMatch(/^line 1 +1 × P\\x1b\[31m · X {2}\(unknown reason code\)$/m);
    expect(out.match(/^status /gm)).toHaveLength(1);
  });

  it('poll rows carry no control character of the customer\'s text', async () => {
    const h = await keyed();
    replyQueue(h, [queueItem('req-1', request({ customerNote: 'hi\x1b[2J' }), keys.current.publicKey)]);
    await pollRun(pollOpts, h.f);
    expect(h.streams.stdout()).toContain('hi\\x1b[2J');
    expect(h.streams.stdout()).not.toContain('\x1b');
  });

  it('is NotFoundError (exit 6) for a request that is not in the queue', async () => {
    const h = await keyed();
    replyQueue(h, [queueItem('req-1', request(), keys.current.publicKey)]);
    const error = await show({ requestId: 'req-404', reveal: false }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).exitCode).toBe(ExitCode.notFound);
    expect((error as NotFoundError).message).toBe('no return request req-404 in the queue');
  });

  it('says why a request cannot be read', async () => {
    const h = await keyed();
    replyQueue(h, [queueItem('req-1', request(), strangerKey)]);
    const error = await show({ requestId: 'req-1', reveal: false }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecryptError);
    expect((error as DecryptError).message).toMatch(/^cannot read return request req-1: cannot decrypt: no private key matches/);
  });
});

describe('status changes', () => {
  it.each([
    ['accept', () => accept.run({ requestIds: ['req-1'], partial: false }, currentHarness.f), 'ACCEPTED'],
    ['reject', () => reject.run({ requestIds: ['req-1'], yes: true }, currentHarness.f), 'REJECTED'],
    ['complete', () => complete.run({ requestIds: ['req-1'], yes: true, creditedElsewhere: true }, currentHarness.f), 'COMPLETED'],
    ['status', () => setStatus({ requestId: 'req-1', status: 'accepted' }, currentHarness.f), 'ACCEPTED'],
  ])('%s sends PATCH { status } and prints "requestId STATUS"', async (_verb, runVerb, status) => {
    currentHarness = await harness();
    // IDs that are not whole UUIDs are looked up in the queue first (prefixes).
    replyQueue(currentHarness, []);
    // Accepting keeps the item first (docs/interface-decisions.md#outstanding-queue), from the queue as listed.
    if (status === 'ACCEPTED' || status === 'PARTIALLY_ACCEPTED') replyQueue(currentHarness, []);
    replyStatus(currentHarness, 'req-1');
    await runVerb();
    expect(currentHarness.sent).toEqual([{ path: '/credit-note/requests/req-1/status', headers: expect.any(Object), body: { status } }]);
    expect(currentHarness.streams.stderr()).not.toContain('could not keep');
    expect(currentHarness.streams.stdout()).toBe(`req-1 ${status}\n`);
  });

  it("accept of a request on a receipt this profile has no record of: the note offers issue's own way, --original FILE", async () => {
    const h = await keyed();
    const item = queueItem('req-1', request(), keys.current.publicKey);
    replyQueue(h, [item]);
    replyQueue(h, [item]);
    replyStatus(h, 'req-1');
    await accept.run({ requestIds: ['req-1'], partial: false }, h.f);
    expect(h.streams.stdout()).toBe('req-1 ACCEPTED\n');
    const note = h.streams.stderr();
    expect(note).toContain("note: `svc credit-note issue req-1` would refuse it (serviceReceiptId: receipt sr-1 is not known as one of this merchant's receipts: this profile has no record of it)");
    expect(note).toContain('accepted, it can no longer be rejected: issued by another machine or profile (records are kept per profile)? `svc credit-note issue req-1 --original FILE` with its receipt record');
  });

  it('prints the service answer with --json', async () => {
    const h = await harness({ json: true });
    replyQueue(h, []);
    replyStatus(h, 'req-1');
    await complete.run({ requestIds: ['req-1'], yes: true, creditedElsewhere: true }, h.f);
    expect(JSON.parse(h.streams.stdout())).toEqual({ requestId: 'req-1', status: 'COMPLETED', updatedAt: '2025-03-14T16:42:06.000Z' });
  });

  it('refuses a status the merchant cannot set, before any request', async () => {
    const h = await harness();
    for (const status of ['PENDING', 'CANCELLED', 'DONE']) {
      const error = await setStatus({ requestId: 'req-1', status }, h.f).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).hint).toBe('use one of ACCEPTED, PARTIALLY_ACCEPTED, REJECTED, COMPLETED');
    }
    expect(h.sent).toEqual([]);
  });

  it('explains a refused move (409) with the current state and the allowed moves, exit 7', async () => {
    const h = await harness();
    replyQueue(h, []);
    replyStatus(h, 'req-1', {
      status: 409,
      error: apiError('invalid_transition', 'request is PENDING; allowed: ACCEPTED, PARTIALLY_ACCEPTED, REJECTED'),
    });
    const error = await complete.run({ requestIds: ['req-1'], yes: true, creditedElsewhere: true }, h.f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestStateError);
    expect((error as RequestStateError).exitCode).toBe(ExitCode.conflict);
    expect((error as RequestStateError).message).toBe(
      'cannot move request req-1 to COMPLETED: request is PENDING; allowed: ACCEPTED, PARTIALLY_ACCEPTED, REJECTED',
    );
    expect((error as RequestStateError).hint).toBe('see its current status with `svc credit-note show req-1`');
  });

  it('is NotFoundError (exit 6) for an unknown request', async () => {
    const h = await harness();
    replyQueue(h, []);
    replyStatus(h, 'req-404', { status: 404, error: apiError('not_found', 'no such request') });
    await expect(reject.run({ requestIds: ['req-404'], yes: true }, h.f)).rejects.toBeInstanceOf(NotFoundError);
  });
});
let currentHarness: Harness;

describe('credit-note template', () => {
  const creditNote = (): CreditNoteTemplateRequest => ({
    ...(readFixture('receipts/groceries.json') as CreditNoteTemplateRequest),
    documentNumber: 'CN-1',
    originatorDocumentReference: 'R-2025-000871',
  });

  async function file(h: Harness, value: unknown): Promise<string> {
    const dir = join(h.stateDir, 'in');
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'credit-note.json');
    await writeFile(path, JSON.stringify(value));
    return path;
  }

  it('validates, posts the template request and prints the document and its templateHash', async () => {
    const h = await harness({ json: true });
    const document = { ...templateFor(creditNote()), originatorDocumentReference: [{ id: { value: 'R-2025-000871' } }] };
    h.reply('/credit-note/template', 201, document);
    await template({ file: await file(h, creditNote()) }, h.f);
    expect(h.sent[0]?.body).toEqual(creditNote());
    expect(JSON.parse(h.streams.stdout())).toEqual({ ...document, templateHash: documentHash(document) });
  });

  it('refuses a credit note without its original document, or with a wrong tax total, before any request', async () => {
    const h = await harness();
    const { originatorDocumentReference: _o, ...orphan } = creditNote();
    for (const [value, path] of [
      [orphan, 'originatorDocumentReference'],
      [{ ...creditNote(), totalTaxAmount: 2.08 }, 'totalTaxAmount'],
    ] as const) {
      const error = await template({ file: await file(h, value) }, h.f).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.path)).toEqual([path]);
    }
    expect(h.sent).toEqual([]);
  });
});
