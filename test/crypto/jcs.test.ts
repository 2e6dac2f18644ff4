import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyId, documentHash, sha256Hex } from '../../src/crypto/hash.js';
import { canonicalize } from '../../src/crypto/jcs.js';

function fromIeee754(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

/** The same JSON value with every object's members inserted in reverse order. */
function reverseMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseMembers);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reverseMembers(v)]));
}

describe('canonicalize (RFC 8785)', () => {
  it('serializes the §3.2.2 sample', () => {
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    expect(canonicalize(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('sorts members by UTF-16 code units (§3.2.3 sample)', () => {
    const input = JSON.parse(String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`);
    expect(canonicalize(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('serializes IEEE 754 %s as %s (Appendix B)', (hex, expected) => {
    expect(canonicalize(fromIeee754(hex))).toBe(expected);
  });

  it.each([
    [1e30, '1e+30'],
    [4.5, '4.5'],
    [2e-3, '0.002'],
    [0.000001, '0.000001'],
    [1e-7, '1e-7'],
    [-0, '0'],
    [100, '100'],
  ])('serializes %s as %s', (n, expected) => {
    expect(canonicalize(n)).toBe(expected);
  });

  it.each([NaN, Infinity, -Infinity, fromIeee754('7fffffffffffffff'), fromIeee754('7ff0000000000000')])(
    'rejects %s, also when nested',
    (n) => {
      expect(() => canonicalize(n)).toThrow(TypeError);
      expect(() => canonicalize({ a: [n] })).toThrow(TypeError);
    },
  );

  it('rejects BigInt, cycles and values with no JSON representation', () => {
    expect(() => canonicalize({ n: 1n })).toThrow(TypeError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalize(cycle)).toThrow(TypeError);
    expect(() => canonicalize(undefined)).toThrow(TypeError);
    expect(() => canonicalize(() => 1)).toThrow(TypeError);
  });

  it('treats undefined, functions and toJSON like JSON.stringify', () => {
    const shared = { x: 1 };
    expect(canonicalize({ b: undefined, a: () => 1, c: [undefined, shared, shared] })).toBe('{"c":[null,{"x":1},{"x":1}]}');
    expect(canonicalize([1, , 3])).toBe('[1,null,3]');
    expect(canonicalize({ when: new Date(Date.UTC(2024, 0, 2)) })).toBe('{"when":"2024-01-02T00:00:00.000Z"}');
  });

  it('escapes strings as JSON.stringify does', () => {
    expect(canonicalize('\u0000\u001f\u007f\u2028')).toBe('"\\u0000\\u001f\u007f\u2028"');
    expect(canonicalize('\ud800')).toBe('"\\ud800"');
  });

  it('is stable under re-parsing', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalize(value);
        expect(canonicalize(JSON.parse(text))).toBe(text);
      }),
    );
  });

  it('does not depend on member insertion order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalize(reverseMembers(value))).toBe(canonicalize(value));
      }),
    );
  });

  it('is JSON.stringify when every object has one member', () => {
    fc.assert(
      fc.property(fc.letrec((tie) => ({
        value: fc.oneof(
          { depthSize: 'small' },
          fc.jsonValue({ maxDepth: 0 }),
          fc.array(tie('value')),
          fc.record({ k: tie('value') }),
        ),
      })).value, (value) => {
        expect(canonicalize(value)).toBe(JSON.stringify(value));
      }),
    );
  });
});

describe('hashes', () => {
  it('sha256Hex is lowercase hex SHA-256 of UTF-8', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex(Buffer.from('abc'))).toBe(sha256Hex('abc'));
    expect(sha256Hex('€')).toBe(createHash('sha256').update(Buffer.from([0xe2, 0x82, 0xac])).digest('hex'));
  });

  it('documentHash hashes the canonical form, so member order does not matter', () => {
    const expected = sha256Hex('{"a":[1,{"c":null,"d":true}],"b":"x"}');
    expect(documentHash({ b: 'x', a: [1, { d: true, c: null }] })).toBe(expected);
    expect(documentHash({ a: [1.0, { c: null, d: true }], b: 'x' })).toBe(expected);
  });

  it('bodyId hashes the exact raw bytes', () => {
    const raw = '{"event":"X", "data":{}}';
    expect(bodyId(raw)).toBe(sha256Hex(raw));
    expect(bodyId(Buffer.from(raw))).toBe(bodyId(raw));
    expect(bodyId(raw)).not.toBe(documentHash(JSON.parse(raw)));
  });
});
