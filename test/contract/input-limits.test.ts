// Input checks that slipped: card numbers are Luhn-checked, JSON input nests at most 64
// levels and carries no lone surrogate, durations have bounds that are named.
import { describe, expect, it } from 'vitest';
import { jsonInputProblem, MAX_JSON_DEPTH } from '../../src/contract/json-limits.js';
import { passesLuhn } from '../../src/contract/luhn.js';
import { ResolveRecipientRequest } from '../../src/contract/recipient.js';
import { UsageError } from '../../src/errors.js';
import { parseDurationSeconds } from '../../src/io/duration.js';

describe('card numbers (Luhn)', () => {
  it.each(['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '4000056655665556'])('accepts %s', (n) => expect(passesLuhn(n)).toBe(true));
  it.each(['4111111111111112', '4111111111111121', '1234567812345678'])('refuses %s', (n) => expect(passesLuhn(n)).toBe(false));
  it('the recipient lookup refuses a card number that fails it, naming the field', () => {
    const result = ResolveRecipientRequest.safeParse({ cardNumber: '4111111111111112' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ['cardNumber'], message: expect.stringContaining('Luhn') });
  });
  it('the recipient lookup refuses a German IBAN of 23 characters', () => {
    const result = ResolveRecipientRequest.safeParse({ iban: 'DE06370400440532013000' + '1' });
    expect(result.success).toBe(false);
  });
});

describe('JSON input limits', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  };
  it(`accepts ${MAX_JSON_DEPTH} levels, refuses ${MAX_JSON_DEPTH + 1}, and 100,000 without overflowing the stack`, () => {
    expect(jsonInputProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonInputProblem(nested(MAX_JSON_DEPTH + 1))).toMatchObject({ message: `nests deeper than ${MAX_JSON_DEPTH} levels` });
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(jsonInputProblem(deep)?.message).toBe(`nests deeper than ${MAX_JSON_DEPTH} levels`);
  });
  it('names the path of a lone surrogate in a value or a key; a whole pair (emoji) is fine', () => {
    expect(jsonInputProblem(JSON.parse('{"products":[{"name":"ok \\ud83c\\udf6e"}]}'))).toBeUndefined();
    expect(jsonInputProblem(JSON.parse('{"products":[{"name":"bad \\ud800"}]}'))).toMatchObject({ path: 'products.0.name', message: expect.stringContaining('lone surrogate') });
    expect(jsonInputProblem(JSON.parse('{"a":{"\\udc00":1}}'))?.message).toContain('key');
  });
});

describe('durations', () => {
  const bounds = { name: '--interval', minSeconds: 1, maxSeconds: 86_400, fractions: true };
  it('takes seconds, fractions where allowed, and units', () => {
    expect(parseDurationSeconds('30', bounds)).toBe(30);
    expect(parseDurationSeconds('1.5', bounds)).toBe(1.5);
    expect(parseDurationSeconds('15m', bounds)).toBe(900);
    expect(parseDurationSeconds('1d', bounds)).toBe(86_400);
  });
  it('refuses beyond the bounds naming them, and what is no duration', () => {
    expect(() => parseDurationSeconds('3000000', bounds)).toThrow(UsageError);
    expect(() => parseDurationSeconds('3000000', bounds)).toThrow('--interval: "3000000" is longer than the maximum of 1d (1 day)');
    expect(() => parseDurationSeconds('0.5', bounds)).toThrow('is shorter than the minimum of 1s');
    expect(() => parseDurationSeconds('soon', bounds)).toThrow('is not a duration');
    expect(() => parseDurationSeconds('1.5', { ...bounds, fractions: false })).toThrow('is not a duration');
  });
});

describe('countable units take whole quantities', () => {
  it('a product sold by the piece (EA) refuses 0.5; by the kilogram (KGM) takes 1.25', async () => {
    const { Product } = await import('../../src/contract/template.js');
    const groceries = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(new URL('../../fixtures/receipts/groceries.json', import.meta.url), 'utf8'))) as { products: Record<string, unknown>[] };
    const [milk, bananas] = groceries.products;
    expect(Product.safeParse(milk).success).toBe(true);
    const half = Product.safeParse({ ...milk, quantity: 0.5 });
    expect(half.success).toBe(false);
    expect(half.error?.issues[0]).toMatchObject({ path: ['quantity'], message: 'must be a whole number: EA is a unit that is counted, not measured (got 0.5)' });
    expect(Product.safeParse(bananas).success).toBe(true);
  });
});

describe('humanDuration', () => {
  it('reads as people read it, to two units', async () => {
    const { humanDuration } = await import('../../src/io/duration.js');
    expect([0, 45, 60, 872, 3600, 7500, 90_061, 86_400].map(humanDuration)).toEqual(['0s', '45s', '1m', '14m 32s', '1h', '2h 5m', '1d 1h', '1d']);
  });
});
