// The Idempotency-Key extension (docs/interface-decisions.md#idempotency-key-header) for any POST route: the first successful
// response to a key is kept for a day, per company; the same key with the same body gets
// that response again, byte for byte, without running the handler; the same key with
// another body (or on another route) is a 409. Failures are not kept, so a client may fix
// its request and retry under the same key.
//
//   router.post('/receipt/encrypted', (req) => {
//     const caller = authorize(sandbox, req, { scope: 'write_receipts' });
//     return idempotent(sandbox, req, caller.companyId, () => submit(caller, req));
//   });
import { sha256Hex } from '../crypto/hash.js';
import type { Sandbox } from './context.js';
import { HttpError, type Reply, type RouteRequest } from './router.js';
import { defineSlice } from './state.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const MAX_KEY_LENGTH = 255;

interface KeyRecord {
  readonly route: string;
  readonly bodyHash: string;
  /** Undefined while the first request is still running. */
  reply: Reply | undefined;
  /** Sandbox-clock milliseconds. */
  readonly expiresAt: number;
}

const keys = defineSlice('idempotency', () => new Map<string, KeyRecord>());

export async function idempotent(
  sandbox: Sandbox,
  req: RouteRequest<unknown, unknown, unknown>,
  companyId: string,
  produce: () => Reply | Promise<Reply>,
): Promise<Reply> {
  const key = idempotencyKey(req);
  if (key === undefined) return produce();

  const records = sandbox.state.slice(keys);
  const id = `${companyId}\n${key}`;
  const route = `${req.method} ${req.path}`;
  const bodyHash = sha256Hex(req.rawBody);
  const now = sandbox.clock.now();
  const seen = records.get(id);
  if (seen && now < seen.expiresAt) {
    if (seen.route !== route) throw conflict(`this Idempotency-Key was used for ${seen.route}; use a new key for a new request`);
    if (!seen.reply) throw conflict('a request with this Idempotency-Key is still in progress; retry once it has finished');
    if (seen.bodyHash !== bodyHash) throw reused(seen.reply);
    return { ...seen.reply, headers: { ...seen.reply.headers, 'Idempotent-Replayed': 'true' } };
  }

  const record: KeyRecord = { route, bodyHash, reply: undefined, expiresAt: now + IDEMPOTENCY_TTL_SECONDS * 1000 };
  records.set(id, record);
  let reply: Reply;
  try {
    reply = await produce();
  } catch (error) {
    records.delete(id);
    throw error;
  }
  if (reply.status >= 200 && reply.status < 300) record.reply = reply;
  else records.delete(id);
  return reply;
}

function idempotencyKey(req: RouteRequest<unknown, unknown, unknown>): string | undefined {
  const value = req.headers[IDEMPOTENCY_HEADER];
  if (value === undefined) return undefined;
  // Node joins a repeated header with ", "; two keys on one request are a client bug either way.
  const key = Array.isArray(value) ? value.join(', ') : value;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new HttpError('invalid_request', `the Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters, such as a UUID`);
  }
  return key;
}

/**
 * docs/interface-decisions.md#idempotency-keys: the same key with other bytes (a retry from another machine, whose encryption
 * differs) names the first result, so that the client can report the document as issued.
 */
function reused(first: Reply): HttpError {
  let id: unknown;
  try {
    id = (JSON.parse(first.body.toString()) as { serviceReceiptId?: unknown } | null)?.serviceReceiptId;
  } catch {
    id = undefined;
  }
  return new HttpError('idempotency_key_reused', 'this Idempotency-Key was used with another request body; use a new key for a new request', {
    details: typeof id === 'string' ? [{ path: 'serviceReceiptId', message: id }] : [],
  });
}

function conflict(description: string): HttpError {
  return new HttpError('idempotency_conflict', description);
}
