// Shared by the recipient and receipt command tests: a factory over a strict MockAgent, a
// temporary state dir for the local records, and the sandbox fixture's customer Alice,
// whose three device key pairs let a test decrypt what a device would receive.
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { MockAgent } from 'undici';
import { expect } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { fixedClock } from '../../src/clock.js';
import type { CommandContext, VerbLoader } from '../../src/commands/context.js';
import { memoryConfigStore } from '../../src/config/store.js';
import type { ReceiptTemplateRequest, UblDocument } from '../../src/contract/template.js';
import { createFactory, type Factory } from '../../src/factory.js';
import { testStreams, type TestStreams } from '../../src/io/test-streams.js';
import { buildProgram } from '../../src/root.js';
import { withEnvSecrets } from '../../src/secrets/env.js';
import { memorySecretStore } from '../../src/secrets/store.js';

export const BASE = 'https://svc.test';
export const JSON_HEADERS = { 'content-type': 'application/json' };
export const COMPANY_ID = 'c0000000-0000-4000-8000-000000000001';
export const NOW = Date.UTC(2025, 2, 14, 16, 42, 6);
export const FIXTURES = join(import.meta.dirname, '../../fixtures');

interface FixtureDevice {
  id: string;
  keyAlgorithm: string;
  publicKey: string;
  privateKeyPem: string;
}

interface FixtureCustomer {
  email: string;
  phone: string;
  iban: string;
  cardNumber: string;
  devices: FixtureDevice[];
}

const sandbox = JSON.parse(readFileSync(join(FIXTURES, 'sandbox.json'), 'utf8')) as { customers: FixtureCustomer[] };
export const ALICE = sandbox.customers[0]!;

/** The resolve answer for Alice, as the sandbox gives it. */
export function aliceMatch(matchId = 'match-alice-1') {
  return {
    matchId,
    recipients: ALICE.devices.map((d) => ({ recipientId: d.id, receiverType: 'DEVICE', publicKey: d.publicKey, keyAlgorithm: d.keyAlgorithm })),
    acceptedFormats: ['SERVICE', 'UBL_CREDIT_NOTE'],
  };
}

/** A template response shaped like the service's, for a request. */
export function templateFor(request: ReceiptTemplateRequest, warnings: string[] = []): UblDocument {
  return {
    id: { value: request.documentNumber },
    issueDate: request.issueDate.split('T')[0],
    documentCurrencyCode: request.currency,
    accountingSupplierParty: { partyIdentification: [{ id: { value: COMPANY_ID } }], partyName: { name: 'Example Retail Ltd' } },
    accountingCustomerParty: {},
    legalMonetaryTotal: { payableAmount: { value: request.totalAmount, currencyID: request.currency } },
    invoiceLine: request.products.map((p, i) => ({
      id: { value: String(i + 1) },
      invoicedQuantity: { value: p.quantity, unitCode: p.unitCode },
      item: { name: p.name, sellersItemIdentification: { id: { value: p.identifier } } },
    })),
    verificationNonce: 'bm9uY2UtMQ',
    warnings,
  };
}

export function readFixture(path: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, path), 'utf8'));
}

export interface Sent {
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface Harness {
  f: Factory;
  streams: TestStreams;
  pool: ReturnType<MockAgent['get']>;
  stateDir: string;
  /** Every request the mock answered, in order. */
  sent: Sent[];
  /** Answers the next POST to `path` with `status` and `data` (a function gets the parsed request body). */
  reply(path: string, status: number, data: object | ((body: unknown) => object)): void;
  /** stdout and stderr together. */
  output(): string;
}

export interface HarnessOptions {
  json?: boolean;
  tty?: boolean;
  debug?: boolean;
  /** More environment (SVC_WEBHOOK_SECRET...); credential variables stand in for stored secrets, as in svc. */
  env?: Record<string, string>;
}

const open: { mock: MockAgent; stateDir: string }[] = [];

export async function harness(opts: HarnessOptions = {}): Promise<Harness> {
  const json = opts.json ?? false;
  const mock = new MockAgent();
  mock.disableNetConnect();
  const stateDir = await mkdtemp(join(tmpdir(), 'svc-receipts-'));
  open.push({ mock, stateDir });
  const streams = testStreams({ json, stdoutIsTTY: opts.tty ?? false });
  const clock = fixedClock(NOW);
  const debug = opts.debug ?? false;
  const env = { SVC_STATE_DIR: stateDir, ...opts.env };
  const f = createFactory({
    env,
    globals: { profile: 'shop', json, input: false, debug, color: false },
    io: streams.io,
    clock,
    config: memoryConfigStore({ shop: { baseUrl: BASE } }),
    secrets: withEnvSecrets(memorySecretStore(), env),
    api: createApiClient({ baseUrl: BASE, io: streams.io, debug, clock, dispatcher: mock, sleep: async () => {} }),
  });
  const pool = mock.get(BASE);
  const sent: Sent[] = [];
  return {
    f,
    streams,
    pool,
    stateDir,
    sent,
    reply(path, status, data) {
      pool.intercept({ path, method: 'POST' }).reply((req) => {
        const body: unknown = JSON.parse(String(req.body));
        sent.push({ path, headers: req.headers as Record<string, string>, body });
        const answer = typeof data === 'function' ? data(body) : data;
        return { statusCode: status, data: JSON.stringify(answer), responseOptions: { headers: JSON_HEADERS } };
      });
    },
    output: () => streams.stdout() + streams.stderr(),
  };
}

/**
 * For afterEach: every expected request was made, and the temp dirs are gone. A persistent
 * interceptor is a fake service's standing answer (credit-note-setup.ts serveQueue), not an
 * expectation: it may go unused.
 */
export async function closeHarnesses(): Promise<void> {
  for (const { mock, stateDir } of open.splice(0)) {
    try {
      if (mock.pendingInterceptors().some((i) => !i.persist)) mock.assertNoPendingInterceptors();
    } finally {
      await mock.close();
      await rm(stateDir, { recursive: true, force: true });
    }
  }
}

/** The options each argv gives its verb, without running it. */
export async function parseArgv(argv: string[]): Promise<unknown[]> {
  const calls: unknown[] = [];
  const ctx: CommandContext = {
    async run<O>(_cmd: Command, _load: VerbLoader<O>, opts: O) {
      calls.push(opts);
    },
  };
  await buildProgram(ctx, { writeOut: () => {}, writeErr: () => {} }).parseAsync(argv, { from: 'user' });
  return calls;
}

export function apiError(error: string, description: string) {
  return { error, error_description: description, timestamp: new Date(NOW).toISOString() };
}

export function expectHeader(sent: Sent, name: string): string {
  const value = sent.headers[name];
  expect(value, `header ${name} of ${sent.path}`).toBeTypeOf('string');
  return value as string;
}
