import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_MINOR_UNITS, formatMoney, fromMinor, minorUnitExponent, prorate, toMinor } from '../../src/crypto/money.js';

describe('minorUnitExponent', () => {
  it.each([
    ['EUR', 2],
    ['USD', 2],
    ['eur', 2],
    ['ZZZ', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['ISK', 0],
    ['CLP', 0],
    ['VND', 0],
    ['UGX', 0],
    ['XAF', 0],
    ['XOF', 0],
    ['XPF', 0],
    ['BHD', 3],
    ['KWD', 3],
    ['OMR', 3],
    ['JOD', 3],
    ['TND', 3],
    ['IQD', 3],
    ['LYD', 3],
    ['CLF', 4],
  ])('%s has %i decimals', (currency, exponent) => {
    expect(minorUnitExponent(currency)).toBe(exponent);
  });
});

describe('toMinor', () => {
  it.each([
    [12.34, 'EUR', 1234],
    [0, 'EUR', 0],
    [5, 'EUR', 500],
    [0.005, 'EUR', 1],
    [0.004, 'EUR', 0],
    [0.015, 'EUR', 2],
    [0.025, 'EUR', 3],
    [-0.005, 'EUR', -1],
    [-0.015, 'EUR', -2],
    [-0.004, 'EUR', 0],
    [-12.345, 'EUR', -1235],
    [1.5e-7, 'EUR', 0],
  ])('%d %s → %i (half away from zero)', (amount, currency, minor) => {
    expect(toMinor(amount, currency)).toBe(minor);
  });

  it.each([
    [1.005, 101],
    [2.675, 268],
    [1.115, 112],
    [0.1 + 0.2, 30],
    [1.1 * 3, 330],
    [0.07 * 100, 700],
    [-1.005, -101],
  ])('is not fooled by binary noise: %d → %i', (amount, minor) => {
    expect(toMinor(amount, 'EUR')).toBe(minor);
  });

  it('never returns negative zero', () => {
    expect(Object.is(toMinor(-0.004, 'EUR'), 0)).toBe(true);
    expect(Object.is(toMinor(-0, 'EUR'), 0)).toBe(true);
  });

  it.each([
    [1234, 1234],
    [1234.5, 1235],
    [0.5, 1],
    [-0.5, -1],
    [0.49, 0],
  ])('JPY has no minor unit: %d → %i', (amount, minor) => {
    expect(toMinor(amount, 'JPY')).toBe(minor);
  });

  it.each([
    [1.234, 1234],
    [1.0005, 1001],
    [1.2345, 1235],
    [-1.0005, -1001],
    [0.1 + 0.2, 300],
  ])('BHD has three decimals: %d → %i', (amount, minor) => {
    expect(toMinor(amount, 'BHD')).toBe(minor);
  });

  it('refuses what is not a finite amount or is too large to count exactly', () => {
    expect(() => toMinor(Number.NaN, 'EUR')).toThrow(RangeError);
    expect(() => toMinor(Number.POSITIVE_INFINITY, 'EUR')).toThrow(RangeError);
    expect(() => toMinor(1e21, 'JPY')).toThrow(RangeError);
    expect(() => toMinor(MAX_MINOR_UNITS / 100 + 1, 'EUR')).toThrow(/too large/);
    expect(toMinor(MAX_MINOR_UNITS / 100, 'EUR')).toBe(MAX_MINOR_UNITS);
  });
});

describe('fromMinor', () => {
  it.each([
    [1234, 'EUR', 12.34],
    [101, 'EUR', 1.01],
    [-5, 'EUR', -0.05],
    [1234, 'JPY', 1234],
    [1001, 'BHD', 1.001],
  ])('%i %s → %d', (minor, currency, amount) => {
    expect(fromMinor(minor, currency)).toBe(amount);
  });

  it('refuses fractions of a minor unit', () => {
    expect(() => fromMinor(1.5, 'EUR')).toThrow(RangeError);
  });

  it('round-trips through toMinor for every count of minor units in range', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -MAX_MINOR_UNITS, max: MAX_MINOR_UNITS }),
        fc.constantFrom('EUR', 'JPY', 'BHD', 'CLF'),
        (minor, currency) => toMinor(fromMinor(minor, currency), currency) === minor,
      ),
      { numRuns: 5000 },
    );
  });
});

describe('formatMoney', () => {
  it.each([
    [1234, 'EUR', '12.34 EUR'],
    [5, 'EUR', '0.05 EUR'],
    [-5, 'EUR', '-0.05 EUR'],
    [0, 'EUR', '0.00 EUR'],
    [1234, 'JPY', '1234 JPY'],
    [-1234, 'JPY', '-1234 JPY'],
    [1, 'BHD', '0.001 BHD'],
  ])('%i %s → %s', (minor, currency, text) => {
    expect(formatMoney(minor, currency)).toBe(text);
  });
});

describe('prorate', () => {
  it.each([
    [1000, 1, 3, 333],
    [1000, 2, 3, 667],
    [-1000, 2, 3, -667],
    [1, 1, 2, 1],
    [-1, 1, 2, -1],
    [3, 1, 2, 2],
    [1190, 3, 3, 1190],
    [1190, 0, 3, 0],
    [999, 0.5, 1.5, 333],
    [100, 1.1, 3.3, 33],
    [1000, 0.25, 1, 250],
  ])('%i × %d / %d → %i', (total, part, whole, share) => {
    expect(prorate(total, part, whole)).toBe(share);
  });

  it('stays within half a minor unit of the exact share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -10_000_000, max: 10_000_000 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 1000 }),
        (total, part, whole) => Math.abs(prorate(total, part, whole) - (total * part) / whole) <= 0.5 + 1e-9,
      ),
    );
  });

  it('refuses a zero or negative whole and a negative part', () => {
    expect(() => prorate(100, 1, 0)).toThrow(RangeError);
    expect(() => prorate(100, 1, -1)).toThrow(RangeError);
    expect(() => prorate(100, -1, 2)).toThrow(RangeError);
  });
});
