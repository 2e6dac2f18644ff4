// Shared by the credit-note command tests: two key pairs of the merchant (one older, one
// current, generated once), queue items encrypted for either, the local record of a receipt,
// and the queue, status and issuing endpoints on the harness's MockAgent.
import { generateAndStore, type LocalKey } from '../../src/keys/keystore.js';
import { createFactory } from '../../src/factory.js';
import { encryptJson } from '../../src/crypto/hybrid.js';
import { fixedClock } from '../../src/clock.js';
import { memoryConfigStore } from '../../src/config/store.js';
import type { QueueItem } from '../../src/contract/returns.js';
import { testStreams } from '../../src/io/test-streams.js';
import { memorySecretStore } from '../../src/secrets/store.js';
import { expect } from 'vitest';
import type { CreditNoteSubmission } from '../../src/contract/credit-note.js';
import type { CustomerDetails } from '../../src/contract/receipt.js';
import type { CreditNoteTemplateRequest, ReceiptTemplateRequest, UblDocument } from '../../src/contract/template.js';
import { documentHash } from '../../src/crypto/hash.js';
import { CancelError } from '../../src/errors.js';
import type { Prompter } from '../../src/io/prompter.js';
import { injectCustomer } from '../../src/receipts/document.js';
import type { ReceiptRecord } from '../../src/contract/records.js';
import { ALICE, JSON_HEADERS, NOW, aliceMatch, readFixture, templateFor, type Harness } from './receipts-setup.js';

export interface MerchantKeys {
  older: LocalKey;
  current: LocalKey;
  /** The secret store's content with both keys, current last generated. */
  seed: Record<string, string>;
}

export async function merchantKeys(): Promise<MerchantKeys> {
  const secrets = memorySecretStore();
  const f = createFactory({
    env: {},
    globals: { profile: 'shop', json: false, input: false, debug: false, color: false },
    io: testStreams().io,
    clock: fixedClock(NOW),
    config: memoryConfigStore({ shop: { baseUrl: 'https://svc.test' } }),
    secrets,
  });
  const older = await generateAndStore(f);
  const current = await generateAndStore(f);
  return { older, current, seed: secrets.dump() };
}

/** Puts the merchant's keys into the harness's (empty) secret store. */
export async function withKeys(h: Harness, keys: MerchantKeys): Promise<void> {
  const store = await h.f.secrets();
  for (const [name, value] of Object.entries(keys.seed)) await store.set(name, value);
}

/** A queue item carrying `plaintext` encrypted for `publicKey`. */
export function queueItem(requestId: string, plaintext: unknown, publicKey: string, changes: Partial<QueueItem> = {}): QueueItem {
  const sealed = encryptJson(plaintext, publicKey);
  return {
    requestId,
    serviceReceiptId: 'sr-1',
    encryptedSymmetricKey: sealed.wrappedKey,
    publicKey,
    status: 'PENDING',
    createdAt: new Date(NOW - 5 * 60_000).toISOString(),
    encryptedCreditNoteInitiationRequest: sealed.ciphertext,
    ...changes,
  };
}

export function replyQueue(h: Harness, items: readonly QueueItem[]): void {
  h.pool
    .intercept({ path: '/credit-note', method: 'GET' })
    .reply(200, JSON.stringify(items), { headers: JSON_HEADERS });
}

/** Answers the next PATCH of `requestId`'s status: 200 with the new status, or `status`/`error` for a refusal. */
export function replyStatus(
  h: Harness,
  requestId: string,
  answer: { status: number; error?: object } = { status: 200 },
): void {
  const path = `/credit-note/requests/${requestId}/status`;
  h.pool.intercept({ path, method: 'PATCH' }).reply((req) => {
    const body = JSON.parse(String(req.body)) as { status: string };
    h.sent.push({ path, headers: req.headers as Record<string, string>, body });
    const data = answer.status === 200 ? { requestId, status: body.status, updatedAt: new Date(NOW).toISOString() } : answer.error;
    return { statusCode: answer.status, data: JSON.stringify(data), responseOptions: { headers: JSON_HEADERS } };
  });
}

const alice = () => readFixture('customers/alice.json') as CustomerDetails;

/** The local record of a receipt the merchant issued (what `issue` checks a return against). */
export function receiptRecord(request: ReceiptTemplateRequest, serviceReceiptId = 'sr-1'): ReceiptRecord {
  const template = templateFor(request);
  return {
    version: 1,
    serviceReceiptId,
    issuedAt: new Date(NOW).toISOString(),
    templateRequest: request,
    template,
    templateHash: documentHash(template),
    finalHash: documentHash(injectCustomer(template, alice())),
    matchId: 'match-alice-1',
    lookup: { by: 'email', display: 'alice@example.com' },
    recipients: ALICE.devices.map((d) => ({ recipientId: d.id, receiverType: 'DEVICE', keyId: 'k' })),
    customer: alice(),
    submission: { serviceReceiptId, templateHash: documentHash(template), createdAt: new Date(NOW).toISOString() },
  };
}

/** The service side of a successful issue: template, resolve, submission. */
export function replyIssue(h: Harness, serviceReceiptId = 'cn-1') {
  const documents: UblDocument[] = [];
  h.reply('/credit-note/template', 201, (body) => {
    const request = body as CreditNoteTemplateRequest;
    const { invoiceLine: _lines, ...document } = templateFor(request);
    const credit: UblDocument = { ...document, originatorDocumentReference: [{ id: { value: request.originatorDocumentReference } }] };
    documents.push(credit);
    return credit;
  });
  h.reply('/recipient/resolve', 200, aliceMatch('match-cn-1'));
  h.reply('/credit-note/encrypted', 201, (body) => ({
    serviceReceiptId,
    parentServiceReceiptId: (body as CreditNoteSubmission).parentServiceReceiptId,
    templateHash: (body as CreditNoteSubmission).templateHash,
    createdAt: new Date(NOW).toISOString(),
  }));
  return documents;
}

/** Moves a merchant may make (docs/interface-decisions.md#return-request-moves); the same status again is allowed too. */
const MOVES: Readonly<Record<string, readonly string[]>> = { PENDING: ['ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED'], ACCEPTED: ['COMPLETED'], PARTIALLY_ACCEPTED: ['COMPLETED'] };

/**
 * The queue as a service keeps it, for commands that read it many times: every
 * `GET /credit-note` lists the items as they are now, and each status PATCH (recorded in
 * `h.sent`) moves one as the service would, or is refused with 409.
 */
export function serveQueue(h: Harness, items: readonly QueueItem[]): Map<string, QueueItem> {
  const state = new Map(items.map((i) => [i.requestId, { ...i }]));
  h.pool
    .intercept({ path: '/credit-note', method: 'GET' })
    .reply(() => ({ statusCode: 200, data: JSON.stringify([...state.values()]), responseOptions: { headers: JSON_HEADERS } }))
    .persist();
  h.pool
    .intercept({ path: (path) => /^\/credit-note\/requests\/[^/]+\/status$/.test(path), method: 'PATCH' })
    .reply((req) => {
      const requestId = decodeURIComponent(String(req.path).split('/')[3] ?? '');
      const body = JSON.parse(String(req.body)) as { status: string };
      h.sent.push({ path: String(req.path), headers: req.headers as Record<string, string>, body });
      const item = state.get(requestId);
      if (!item) return { statusCode: 404, data: JSON.stringify({ error: 'not_found', error_description: 'no such request', timestamp: new Date(NOW).toISOString() }), responseOptions: { headers: JSON_HEADERS } };
      if (item.status !== body.status && !(MOVES[item.status] ?? []).includes(body.status)) {
        const description = `request is ${item.status}; allowed: ${(MOVES[item.status] ?? []).join(', ') || 'none'}`;
        return { statusCode: 409, data: JSON.stringify({ error: 'invalid_transition', error_description: description, timestamp: new Date(NOW).toISOString() }), responseOptions: { headers: JSON_HEADERS } };
      }
      item.status = body.status as QueueItem['status'];
      return { statusCode: 200, data: JSON.stringify({ requestId, status: item.status, updatedAt: new Date(NOW).toISOString() }), responseOptions: { headers: JSON_HEADERS } };
    })
    .persist();
  return state;
}

/** The statuses the merchant sent, in order: `[requestId, status]`, each body exactly `{ status }`. */
export function statusMoves(h: Harness): [string, string][] {
  return h.sent
    .filter((s) => s.path.endsWith('/status'))
    .map((s) => {
      expect(s.body).toEqual({ status: expect.any(String) });
      return [decodeURIComponent(s.path.split('/')[3] ?? ''), (s.body as { status: string }).status];
    });
}

export type Answer = { key: string } | { input: string } | { confirm: boolean } | { select: string } | { cancel: true };

export interface ScriptedPrompter {
  prompter: Prompter;
  /** Every question, in order: `key: MESSAGE [a accept, …]`, `input: MESSAGE`, `confirm: MESSAGE`, `select: MESSAGE`. */
  asked: string[];
  /** The choices of each select, as offered. */
  choices: { name: string; value: string }[][];
  /** Answers not used (a test expects none). */
  left(): Answer[];
}

/**
 * A person answering, in order: a key among the ones offered, text (which the prompt's own
 * validation must accept), a yes or no, a choice by its value, or Esc/Ctrl-C (`cancel`).
 */
export function scriptedPrompter(answers: Answer[]): ScriptedPrompter {
  const asked: string[] = [];
  const choices: { name: string; value: string }[][] = [];
  const next = (question: string): Answer => {
    asked.push(question);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`no answer scripted for ${question}`);
    if ('cancel' in answer) throw new CancelError('cancelled');
    return answer;
  };
  const prompter: Prompter = {
    async input(ask) {
      const answer = next(`input: ${ask.message}`);
      if (!('input' in answer)) throw new Error(`asked "${ask.message}", scripted ${JSON.stringify(answer)}`);
      expect(ask.validate?.(answer.input) ?? true, `validation of "${answer.input}"`).toBe(true);
      return answer.input;
    },
    async password(ask) {
      throw new Error(`unexpected password prompt: ${ask.message}`);
    },
    async confirm(ask) {
      const answer = next(`confirm: ${ask.message}`);
      if (!('confirm' in answer)) throw new Error(`asked "${ask.message}", scripted ${JSON.stringify(answer)}`);
      return answer.confirm;
    },
    async select(ask) {
      choices.push(ask.choices.map((c) => ({ name: c.name, value: c.value })));
      const answer = next(`select: ${ask.message}`);
      if (!('select' in answer)) throw new Error(`asked "${ask.message}", scripted ${JSON.stringify(answer)}`);
      const chosen = ask.choices.find((c) => c.value === answer.select);
      if (!chosen) throw new Error(`"${answer.select}" is not offered by "${ask.message}"`);
      return chosen.value;
    },
    async key(ask) {
      const answer = next(`key: ${ask.message} [${ask.keys.map((k) => `${k.key} ${k.name}`).join(', ')}]`);
      if (!('key' in answer)) throw new Error(`asked "${ask.message}", scripted ${JSON.stringify(answer)}`);
      const chosen = ask.keys.find((k) => k.key === answer.key);
      if (!chosen) throw new Error(`key ${answer.key} is not offered by "${ask.message}" (${ask.keys.map((k) => k.key).join('')})`);
      return chosen.key;
    },
  };
  return { prompter, asked, choices, left: () => answers };
}

/** The harness as a terminal a person sits at, answering with `prompter`. */
export function atTerminal(h: Harness, prompter: Prompter): void {
  Object.assign(h.streams.io, { stdinIsTTY: true, stdoutIsTTY: true, noInput: false });
  h.f.prompter = () => prompter;
}
