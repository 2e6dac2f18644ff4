// Shared by the webhook tests: signed delivery bodies encrypted for the fixture's device
// keys (installed as this profile's keys, so the listener can open them), a running
// in-process `svc webhook listen`, and plain HTTP to it.
import { readFile } from 'node:fs/promises';
import { request } from 'undici';
import { run as listen, type ListenOptions } from '../../src/commands/webhook/listen.js';
import { encryptJson } from '../../src/crypto/hybrid.js';
import { keyFingerprint } from '../../src/crypto/keys.js';
import type { Factory } from '../../src/factory.js';
import type { SecretStore } from '../../src/secrets/store.js';
import { signPayload } from '../../src/webhook/signature.js';
import { journalPathOf } from '../../src/webhook/subscriptions.js';
import { ALICE, NOW, type Harness } from '../commands/receipts-setup.js';

export const SECRET = 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtdGVzdC1zZWM=';
export const OTHER_SECRET = 'whsec_b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldC1vdGhlcjE=';
export const NOW_SECONDS = Math.floor(NOW / 1000);

export interface TestKey {
  keyId: string;
  publicKey: string;
  privateKeyPem: string;
}

/** The fixture's device key pairs, parsed once: generating RSA keys per test would be slow. */
export const KEYS: TestKey[] = ALICE.devices.map((d) => ({ keyId: keyFingerprint(d.publicKey), publicKey: d.publicKey, privateKeyPem: d.privateKeyPem }));
export const [OLD_KEY, CURRENT_KEY, FOREIGN_KEY] = KEYS as [TestKey, TestKey, TestKey];

/** Stores keys as `svc keys` does: the index (newest first) and each private key. */
export async function installKeys(store: SecretStore, keys: readonly TestKey[]): Promise<void> {
  const newestFirst = [...keys].reverse();
  for (const key of newestFirst) await store.set(`private-key/${key.keyId}`, key.privateKeyPem);
  await store.set(
    'keys-index',
    JSON.stringify({
      version: 1,
      keys: newestFirst.map((k, i) => ({ keyId: k.keyId, publicKey: k.publicKey, createdAt: new Date(NOW - i * 1000).toISOString(), current: i === 0 })),
    }),
  );
}

export function returnRequest(serviceReceiptId: string, items = 2) {
  return {
    serviceReceiptId,
    receiptId: `R-${serviceReceiptId}`,
    lineItems: Array.from({ length: items }, (_, i) => ({ productId: `sku-${i + 1}`, quantity: 1, reasonCode: 'DAMAGED' })),
    refundPreference: 'ORIGINAL_PAYMENT_METHOD',
  };
}

/** A RETURN_REQUESTED body encrypted for `key` (its public key named in the item unless `omitKey`). */
export function returnRequestedBody(serviceReceiptId: string, key: TestKey = CURRENT_KEY, opts: { items?: number; omitKey?: boolean } = {}): Buffer {
  const sealed = encryptJson(returnRequest(serviceReceiptId, opts.items), key.publicKey);
  return Buffer.from(
    JSON.stringify({
      event: 'RETURN_REQUESTED',
      data: {
        creditNoteInitiationRequest: {
          clientId: 'client-1',
          companyId: 'c0000000-0000-4000-8000-000000000001',
          created_at: new Date(NOW).toISOString(),
          serviceReceiptId,
          ...(opts.omitKey ? {} : { publicKey: key.publicKey }),
          encryptedCreditNoteInitiationRequest: sealed.ciphertext,
          encryptedSymmetricKey: sealed.wrappedKey,
        },
      },
    }),
  );
}

export function envelope() {
  const doc = { id: { value: 'CN-1' }, issueDate: '2025-03-14', documentCurrencyCode: 'EUR' };
  return { envelopeVersion: 1, documents: { SERVICE: doc, UBL_CREDIT_NOTE: doc } };
}

export function creditNoteCreatedBody(serviceReceiptId: string, key: TestKey = CURRENT_KEY): Buffer {
  const sealed = encryptJson(envelope(), key.publicKey);
  return Buffer.from(
    JSON.stringify({
      event: 'CREDIT_NOTE_CREATED',
      data: {
        encryptedCreditNote: {
          clientId: 'client-1',
          companyId: 'c0000000-0000-4000-8000-000000000001',
          created_at: new Date(NOW).toISOString(),
          serviceReceiptId,
          encryptedEnvelope: sealed.ciphertext,
          encryptedEnvelopeKey: sealed.wrappedKey,
          publicKey: key.publicKey,
          recipientKeyAlgorithm: 'RSA_2048',
          envelopeVersion: 1,
          receiptGeneratorVersion: '1.0.0',
          finalHash: 'f'.repeat(64),
        },
      },
    }),
  );
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** POSTs `body` signed with `secret` at `t` (or with the given header; null sends none). */
export async function deliver(
  url: string,
  body: Buffer,
  opts: { secret?: string; t?: number; signature?: string | null; contentType?: string; method?: string } = {},
): Promise<Answer> {
  const signature = opts.signature === undefined ? signPayload(opts.secret ?? SECRET, body, opts.t ?? NOW_SECONDS) : opts.signature;
  const res = await request(url, {
    method: (opts.method ?? 'POST') as 'POST',
    headers: {
      'content-type': opts.contentType ?? 'application/json',
      ...(signature === null ? {} : { 'x-service-signature': signature }),
    },
    body: opts.method === 'GET' ? undefined : body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

export interface JournalView {
  deliveries: { id: string; receivedAt: string; event: string | null; headers: Record<string, string>; body: string }[];
  processed: { id: string; ok: boolean; error?: string }[];
}

/** The journal file as lines, read straight from disk. */
export async function readJournalFile(path: string): Promise<JournalView> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const lines = text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { type: string } & Record<string, unknown>);
  return {
    deliveries: lines.filter((l) => l.type === 'delivery') as unknown as JournalView['deliveries'],
    processed: lines.filter((l) => l.type === 'processed') as unknown as JournalView['processed'],
  };
}

export async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface Listening {
  url: string;
  journalPath: string;
  /** SIGTERM, then the command's own result. */
  stop(): Promise<void>;
  /** The command's promise, for a start that should fail. */
  done: Promise<void>;
}

/** Runs `svc webhook listen --port 0` in-process and resolves once it accepts deliveries. */
export async function startListening(h: Harness, opts: Partial<ListenOptions> = {}): Promise<Listening> {
  let signal: (name: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    signal = resolve;
  });
  const seenBefore = h.streams.stderr().length;
  const done = listen({ port: '0', host: '127.0.0.1', path: '/webhooks', ...opts }, h.f, () => ({ stopped, dispose() {} }));
  let failed: unknown;
  done.catch((error: unknown) => {
    failed = error;
  });
  const url = await until(() => {
    if (failed) throw failed;
    return /listening on (\S+)/.exec(h.streams.stderr().slice(seenBefore))?.[1];
  }, 'the listening line');
  return {
    url,
    journalPath: journalPathOf(h.f),
    done,
    async stop() {
      signal('SIGTERM');
      await done;
    },
  };
}

/** The NDJSON event objects `listen --json` wrote so far. */
export function events(h: Harness): Record<string, unknown>[] {
  return h.streams
    .stdout()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export async function withSecret(f: Factory, secret = SECRET): Promise<void> {
  await (await f.secrets()).set('webhook-secret', secret);
}
