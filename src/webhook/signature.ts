// The `X-Service-Signature` scheme of docs/interface-decisions.md#webhook-signatures, used by both ends: the sandbox signs
// its deliveries and `svc webhook listen` verifies them. Pure functions of their arguments
// (time is passed in), so that both sides and their tests agree byte for byte.
//
//   header = "t=" digits ("," scheme "=" value)*     e.g. t=1717243200,v1=5257a8...,v1=9a0f...
//
// Verification is strict on purpose: this header guards the only unauthenticated input of
// a receiver, so anything other than the exact grammar (spaces, empty entries, a second
// `t`, non-digit time) is refused as malformed rather than guessed at.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
/** Largest |now - t| a receiver accepts, in seconds (docs/interface-decisions.md#webhook-signatures). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';
const SIGNATURE_SCHEME = 'v1';
// Lowercase only, as the sender writes it (Stripe's verifiers compare the same way): an
// uppercase digest is some other producer's, and accepting it would widen the grammar.
const V1_DIGEST = /^[0-9a-f]{64}$/;
const KEY = /^[a-z][a-z0-9]*$/;
// Printable ASCII without space; ',' never reaches here since entries are split on it.
const VALUE = /^[\x21-\x7e]+$/;
// Longer digit strings are not exact as JavaScript numbers, so they could not be compared.
const TIMESTAMP = /^\d{1,15}$/;

export type SignatureFailure = 'missing' | 'malformed' | 'no_match' | 'stale' | 'future';

export type SignatureCheck =
  | { ok: true; timestamp: number }
  /** `timestamp` is the signature's, for stale and future ones: how far off the sender's clock is. */
  | { ok: false; reason: SignatureFailure; timestamp?: number };

/** A subscription's signing secret: `whsec_` + Base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** `t=<ts>,v1=<hex>` for one secret. */
export function signPayload(secret: string, rawBody: Buffer | string, timestampSeconds: number): string {
  return signatureHeader([secret], rawBody, timestampSeconds);
}

/** `t=<ts>,v1=<hex>[,v1=<hex>...]`: one `v1` per secret, for the overlap of a secret rotation. */
export function signatureHeader(secrets: readonly string[], rawBody: Buffer | string, timestampSeconds: number): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`a signature timestamp is whole unix seconds, got ${timestampSeconds}`);
  }
  if (secrets.length === 0) throw new RangeError('a signature needs at least one secret');
  const signatures = secrets.map((secret) => `${SIGNATURE_SCHEME}=${digest(secret, rawBody, timestampSeconds).toString('hex')}`);
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}

/**
 * Checks the header against the exact raw body. Any `v1` matching any secret is enough;
 * other schemes are ignored, so a header with none of ours is `no_match`. The time window
 * is checked only for an authentic signature, so `stale`/`future` mean "right secret, wrong
 * clock" and `no_match` means "wrong secret or altered body".
 */
export function verifySignature(
  header: string | undefined,
  rawBody: Buffer,
  secrets: readonly string[],
  nowSeconds: number,
  toleranceSeconds: number = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (header === undefined || header === '') return { ok: false, reason: 'missing' };
  const parsed = parseHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed' };

  const candidates = parsed.v1.filter((value) => V1_DIGEST.test(value)).map((value) => Buffer.from(value, 'hex'));
  let matched = false;
  // Every pair is compared, without an early exit, so the time taken says nothing about which one matched.
  for (const secret of secrets) {
    const expected = digest(secret, rawBody, parsed.timestamp);
    for (const candidate of candidates) {
      if (timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  if (!matched) return { ok: false, reason: 'no_match' };
  if (nowSeconds - parsed.timestamp > toleranceSeconds) return { ok: false, reason: 'stale', timestamp: parsed.timestamp };
  if (parsed.timestamp - nowSeconds > toleranceSeconds) return { ok: false, reason: 'future', timestamp: parsed.timestamp };
  return { ok: true, timestamp: parsed.timestamp };
}

function digest(secret: string, rawBody: Buffer | string, timestampSeconds: number): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestampSeconds}.`, 'utf8').update(rawBody).digest();
}

/** The timestamp and every `v1` value, or undefined when the header breaks the grammar. */
function parseHeader(header: string): { timestamp: number; v1: string[] } | undefined {
  let timestamp: number | undefined;
  const v1: string[] = [];
  for (const entry of header.split(',')) {
    const at = entry.indexOf('=');
    if (at === -1) return undefined;
    const key = entry.slice(0, at);
    const value = entry.slice(at + 1);
    if (!KEY.test(key) || !VALUE.test(value)) return undefined;
    if (key === 't') {
      if (timestamp !== undefined || !TIMESTAMP.test(value)) return undefined;
      timestamp = Number(value);
    } else if (key === SIGNATURE_SCHEME) {
      v1.push(value);
    }
  }
  return timestamp === undefined ? undefined : { timestamp, v1 };
}
