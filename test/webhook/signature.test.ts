import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  signatureHeader,
  signPayload,
  verifySignature,
  type SignatureCheck,
} from '../../src/webhook/signature.js';

// Computed outside this code base, with
//   printf '%s' "$T.$BODY" | openssl dgst -sha256 -hmac "$SECRET" -hex
const VECTORS = [
  {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    t: 1614265330,
    body: '{"id": "evt_test_webhook", "object": "event"}',
    v1: '3c51a6104616f5ea16452d2eaba8526218f20d1d4050da3683a09bb912a4e35f',
  },
  {
    secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    t: 1717243200,
    body: '{"event":"RETURN_REQUESTED","data":{"x":"é"}}',
    v1: 'b9f5fcd2c989e5b571083ca46b0bb2375573db44cee637772004b20e674183c3',
  },
] as const;

const SECRET = 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtdGVzdC1zZWM=';
const OTHER_SECRET = 'whsec_b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldC1vdGhlcjE=';
const T = 1_900_000_000;
const BODY = Buffer.from('{"event":"CREDIT_NOTE_CREATED","data":{"encryptedCreditNote":{"serviceReceiptId":"cn-1"}}}');

/** The oracle: HMAC-SHA256 keyed with the whole secret string, over "<t>.<body>". */
function hmac(secret: string, t: number, body: Buffer | string): string {
  return createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${t}.`), Buffer.from(body)])).digest('hex');
}

const verify = (header: string | undefined, opts: { body?: Buffer; secrets?: string[]; now?: number } = {}): SignatureCheck =>
  verifySignature(header, opts.body ?? BODY, opts.secrets ?? [SECRET], opts.now ?? T);
const failure = (reason: string) => ({ ok: false, reason });

describe('generateWebhookSecret', () => {
  it('is whsec_ and the Base64 of 32 random bytes, different every time', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe('signPayload and signatureHeader', () => {
  it.each(VECTORS)('matches the openssl vector at t=$t', ({ secret, t, body, v1 }) => {
    expect(signPayload(secret, body, t)).toBe(`t=${t},v1=${v1}`);
    expect(signPayload(secret, Buffer.from(body, 'utf8'), t)).toBe(`t=${t},v1=${v1}`);
  });

  it('is HMAC-SHA256 for secrets of every length (shorter than a block, a block, longer: hashed first) and any body', () => {
    let checked = 0;
    for (const length of [0, 1, 50, 63, 64, 65, 100, 200]) {
      for (const unit of ['a', 'é', '🙂']) {
        const secret = unit.repeat(length);
        for (const body of [Buffer.alloc(0), BODY, Buffer.from(Array.from({ length: 2100 }, (_, i) => (i * 97 + length) % 256)), '{"x":"ü"}']) {
          for (const t of [0, T, 99_999_999_999]) {
            expect(signPayload(secret, body, t)).toBe(`t=${t},v1=${hmac(secret, t, body)}`);
            expect(verifySignature(`t=${t},v1=${hmac(secret, t, body)}`, Buffer.from(body), [secret], t).ok).toBe(true);
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(8 * 3 * 4 * 3);
  });

  it('writes one v1 per secret, in order, for a rotation', () => {
    expect(signatureHeader([SECRET, OTHER_SECRET], BODY, T)).toBe(`t=${T},v1=${hmac(SECRET, T, BODY)},v1=${hmac(OTHER_SECRET, T, BODY)}`);
  });

  it('refuses a timestamp that is not whole non-negative seconds, and an empty secret list', () => {
    expect(() => signPayload(SECRET, BODY, 1.5)).toThrow(RangeError);
    expect(() => signPayload(SECRET, BODY, -1)).toThrow(RangeError);
    expect(() => signatureHeader([], BODY, T)).toThrow(RangeError);
  });
});

describe('verifySignature', () => {
  const good = `t=${T},v1=${hmac(SECRET, T, BODY)}`;

  it.each(VECTORS)('accepts the openssl vector at t=$t', ({ secret, t, body, v1 }) => {
    expect(verifySignature(`t=${t},v1=${v1}`, Buffer.from(body, 'utf8'), [secret], t)).toEqual({ ok: true, timestamp: t });
  });

  it('accepts what signPayload writes, over the exact raw body', () => {
    expect(verify(signPayload(SECRET, BODY, T))).toEqual({ ok: true, timestamp: T });
    expect(verify(good)).toEqual({ ok: true, timestamp: T });
  });

  it('finds no match when one byte of the body changes', () => {
    for (const at of [0, 20, BODY.length - 1]) {
      const tampered = Buffer.from(BODY);
      tampered[at] = (tampered[at] ?? 0) ^ 0x01;
      expect(verify(good, { body: tampered })).toEqual(failure('no_match'));
    }
  });

  it('finds no match when the body is re-serialised with whitespace', () => {
    const pretty = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 2));
    expect(verify(good, { body: pretty })).toEqual(failure('no_match'));
    expect(verify(good, { body: Buffer.concat([BODY, Buffer.from('\n')]) })).toEqual(failure('no_match'));
  });

  it('finds no match with another secret, or with the secret without its prefix', () => {
    expect(verify(good, { secrets: [OTHER_SECRET] })).toEqual(failure('no_match'));
    expect(verify(`t=${T},v1=${hmac(SECRET.slice('whsec_'.length), T, BODY)}`)).toEqual(failure('no_match'));
    expect(verify(good, { secrets: [] })).toEqual(failure('no_match'));
  });

  it('finds no match when t was changed after signing', () => {
    expect(verify(`t=${T + 1},v1=${hmac(SECRET, T, BODY)}`, { now: T })).toEqual(failure('no_match'));
  });

  it('refuses a stale or future timestamp beyond 300 s, and accepts the edges', () => {
    expect(verify(good, { now: T + 300 })).toEqual({ ok: true, timestamp: T });
    expect(verify(good, { now: T - 300 })).toEqual({ ok: true, timestamp: T });
    // With the signature's time, so that a refusal can say how far off the sender's clock is.
    expect(verify(good, { now: T + 301 })).toEqual({ ...failure('stale'), timestamp: T });
    expect(verify(good, { now: T - 301 })).toEqual({ ...failure('future'), timestamp: T });
    expect(verifySignature(good, BODY, [SECRET], T + 60, 30)).toEqual({ ...failure('stale'), timestamp: T });
  });

  it('reports a bad signature as no_match even when the time is also off', () => {
    expect(verify(`t=${T},v1=${'0'.repeat(64)}`, { now: T + 10_000 })).toEqual(failure('no_match'));
  });

  it('reports a missing header', () => {
    expect(verify(undefined)).toEqual(failure('missing'));
    expect(verify('')).toEqual(failure('missing'));
  });

  it('ignores unknown schemes, so a header with only those has no match', () => {
    expect(verify(`t=${T},v0=${hmac(SECRET, T, BODY)},v2=abc`)).toEqual(failure('no_match'));
    expect(verify(`t=${T},v0=deadbeef,v1=${hmac(SECRET, T, BODY)},v2=xyz=`)).toEqual({ ok: true, timestamp: T });
  });

  it('accepts either of two v1 entries during a rotation, in any order', () => {
    const rotated = signatureHeader([OTHER_SECRET, SECRET], BODY, T);
    expect(verify(rotated, { secrets: [SECRET] })).toEqual({ ok: true, timestamp: T });
    expect(verify(rotated, { secrets: [OTHER_SECRET] })).toEqual({ ok: true, timestamp: T });
    expect(verify(good, { secrets: [OTHER_SECRET, SECRET] })).toEqual({ ok: true, timestamp: T });
    expect(verify(`t=${T},v1=${'a'.repeat(64)},v1=${hmac(SECRET, T, BODY)}`)).toEqual({ ok: true, timestamp: T });
  });

  it('rejects uppercase hex, as Stripe does: the sender writes lowercase only', () => {
    expect(verify(`t=${T},v1=${hmac(SECRET, T, BODY).toUpperCase()}`)).toEqual(failure('no_match'));
  });

  it.each([
    ['truncated by one digit', (hex: string) => hex.slice(0, -1)],
    ['truncated to half', (hex: string) => hex.slice(0, 32)],
    ['one byte too long', (hex: string) => `${hex}00`],
    ['non-hex', (hex: string) => `${hex.slice(0, -1)}g`],
    ['Base64 of the digest', (hex: string) => Buffer.from(hex, 'hex').toString('base64')],
  ])('treats a v1 %s as no match, without throwing', (_what, change) => {
    expect(verify(`t=${T},v1=${change(hmac(SECRET, T, BODY))}`)).toEqual(failure('no_match'));
  });

  it.each([
    ['a space after the comma', `t=${T}, v1=HEX`],
    ['a space around "="', `t = ${T},v1=HEX`],
    ['a trailing newline', `t=${T},v1=HEX\n`],
    ['a leading space', ` t=${T},v1=HEX`],
    ['no t', 'v1=HEX'],
    ['two t', `t=${T},t=${T},v1=HEX`],
    ['a t that is not all digits', `t=${T}.0,v1=HEX`],
    ['a negative t', `t=-${T},v1=HEX`],
    ['a t in hex', `t=0x${T.toString(16)},v1=HEX`],
    ['a t too long to be exact', `t=1${'0'.repeat(16)},v1=HEX`],
    ['an empty entry', `t=${T},,v1=HEX`],
    ['a trailing comma', `t=${T},v1=HEX,`],
    ['an entry without "="', `t=${T},v1HEX`],
    ['an empty value', `t=${T},v1=`],
    ['an uppercase key', `T=${T},v1=HEX`],
    ['semicolons instead of commas', `t=${T};v1=HEX`],
  ])('refuses a header with %s as malformed', (_what, header) => {
    expect(verify(header.replace('HEX', hmac(SECRET, T, BODY)))).toEqual(failure('malformed'));
  });
});
