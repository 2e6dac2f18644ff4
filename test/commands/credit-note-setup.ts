// Shared by the credit-note command tests: two key pairs of the merchant (one older, one
// current, generated once), queue items encrypted for either, and the queue and status
// endpoints on the harness's MockAgent.
import { generateAndStore, type LocalKey } from '../../src/crypto/keystore.js';
import { createFactory } from '../../src/factory.js';
import { encryptJson } from '../../src/crypto/hybrid.js';
import { fixedClock } from '../../src/clock.js';
import { memoryConfigStore } from '../../src/config/store.js';
import type { QueueItem } from '../../src/contract/returns.js';
import { testStreams } from '../../src/io/test-streams.js';
import { memorySecretStore } from '../../src/secrets/store.js';
import { JSON_HEADERS, NOW, type Harness } from './receipts-setup.js';

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
