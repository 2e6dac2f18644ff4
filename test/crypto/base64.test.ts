import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64url, decodeBase64Strict, encodeBase64, InvalidBase64Error, isBase64 } from '../../src/crypto/base64.js';

describe('decodeBase64Strict', () => {
  it('decodes every padding form', () => {
    expect(decodeBase64Strict('')).toEqual(Buffer.alloc(0));
    expect(decodeBase64Strict('QQ==').toString()).toBe('A');
    expect(decodeBase64Strict('QUI=').toString()).toBe('AB');
    expect(decodeBase64Strict('QUJD').toString()).toBe('ABC');
    expect(decodeBase64Strict('+/8=')).toEqual(Buffer.from([0xfb, 0xff]));
  });

  it.each([
    ['missing padding', 'QQ'],
    ['short padding', 'QUJDRA='],
    ['padding in the middle', 'QQ==QUJD'],
    ['only padding', '===='],
    ['three pad characters', 'Q==='],
    ['whitespace', ' QQ=='],
    ['line break', 'QUJD\nQUJD'],
    ['Base64URL alphabet', '-_8='],
    ['non-zero unused bits', 'QR=='],
    ['non-ASCII', 'QUJ\u00e9'],
  ])('rejects %s', (_name, input) => {
    expect(() => decodeBase64Strict(input)).toThrow(InvalidBase64Error);
    expect(isBase64(input)).toBe(false);
  });

  it('rejects stray characters that Node would silently drop', () => {
    const stray = 'QU!!!!JD';
    // The danger being guarded against: Node decodes this to the same bytes as 'QUJD'.
    expect(Buffer.from(stray, 'base64').toString()).toBe('ABC');
    expect(() => decodeBase64Strict(stray)).toThrow(InvalidBase64Error);
  });

  it('accepts exactly the canonical standard padded Base64 texts', () => {
    // The definition, spelled out: the alphabet and padding, and the encoder's own spelling.
    const grammar = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
    const canonical = (s: string) => grammar.test(s) && Buffer.from(s, 'base64').toString('base64') === s;
    const near = fc.string({ unit: fc.constantFrom(...'AQgw+/=-_ \n\u00e9!'), maxLength: 12 });
    fc.assert(
      fc.property(fc.oneof(near, fc.string({ maxLength: 12 }), fc.uint8Array({ maxLength: 9 }).map(encodeBase64)), (s) => {
        expect(isBase64(s)).toBe(canonical(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('is a TypeError so non-crypto callers need not know the class', () => {
    expect(() => decodeBase64Strict('*')).toThrow(TypeError);
  });

  it('round-trips arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const text = encodeBase64(bytes);
        expect(isBase64(text)).toBe(true);
        expect(new Uint8Array(decodeBase64Strict(text))).toEqual(bytes);
      }),
    );
  });
});

describe('encoders', () => {
  it('encodes only the viewed bytes of a subarray', () => {
    const whole = Uint8Array.from([0, 0xfb, 0xff, 0]);
    expect(encodeBase64(whole.subarray(1, 3))).toBe('+/8=');
    expect(base64url(whole.subarray(1, 3))).toBe('-_8');
  });

  it('base64url has no padding (RFC 7636 Appendix B challenge)', () => {
    const digest = Buffer.from('13d31e961a1ad8ec2f16b10c4c982e0876a878ad6df144566ee1894acb70f9c3', 'hex');
    expect(base64url(digest)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });
});
