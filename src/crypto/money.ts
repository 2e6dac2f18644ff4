// docs/interface-decisions.md#money: amounts travel as JSON numbers, but every sum and comparison is done in
// integer minor units of the currency, rounding half away from zero. Conversions go through
// the number's shortest decimal spelling, so binary noise (1.005 is stored as
// 1.00499999999999989…) never decides a rounding.

/**
 * ISO 4217 currencies whose minor unit is not the hundredth; every other has 2. The shared
 * database's amount columns (src/store/postgres/schema.ts) read the same table.
 */
export const MINOR_EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0,
  UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

/**
 * Largest magnitude handled, in minor units (10 trillion EUR). Above it a double has too few
 * significant digits for every minor unit to survive `fromMinor` and then `toMinor`.
 */
export const MAX_MINOR_UNITS = 1e15;

/** Number of decimal places of the currency's minor unit (2 unless ISO 4217 says otherwise). */
export function minorUnitExponent(currency: string): number {
  return MINOR_EXPONENTS[currency.toUpperCase()] ?? 2;
}

/** `amount` in integer minor units of `currency`, rounded half away from zero. */
export function toMinor(amount: number, currency: string): number {
  const { coefficient, exponent } = decimalOf(amount);
  const shift = exponent + minorUnitExponent(currency);
  const minor = shift >= 0 ? coefficient * 10n ** BigInt(shift) : divideRounded(coefficient, 10n ** BigInt(-shift));
  return toMinorUnits(minor, `${amount} ${currency}`);
}

/** The JSON number for `minor` minor units of `currency`. */
export function fromMinor(minor: number, currency: string): number {
  assertMinorUnits(minor, 'minor');
  // Both operands are exact, so the quotient is the double nearest to the decimal value.
  return minor / 10 ** minorUnitExponent(currency);
}

/** "12.34 EUR", "-0.05 EUR", "1234 JPY". Sums beyond MAX_MINOR_UNITS still print exactly. */
export function formatMoney(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`minor must be a safe integer, got ${minor}`);
  const places = minorUnitExponent(currency);
  const digits = String(Math.abs(minor)).padStart(places + 1, '0');
  const units = digits.slice(0, digits.length - places);
  const fraction = places > 0 ? `.${digits.slice(digits.length - places)}` : '';
  return `${minor < 0 ? '-' : ''}${units}${fraction} ${currency}`;
}

/**
 * The share `part / whole` of `totalMinor`, rounded half away from zero; e.g. the credit for
 * returning 2 of 3 units of a line. `part` and `whole` may be fractional quantities.
 */
export function prorate(totalMinor: number, part: number, whole: number): number {
  assertMinorUnits(totalMinor, 'totalMinor');
  if (!(whole > 0)) throw new RangeError(`prorate: whole must be greater than 0, got ${whole}`);
  if (!(part >= 0)) throw new RangeError(`prorate: part must not be negative, got ${part}`);
  const p = decimalOf(part);
  const w = decimalOf(whole);
  // Bring both quantities to one decimal scale so that their ratio is a ratio of integers.
  const scale = Math.min(p.exponent, w.exponent);
  const partInt = p.coefficient * 10n ** BigInt(p.exponent - scale);
  const wholeInt = w.coefficient * 10n ** BigInt(w.exponent - scale);
  return toMinorUnits(divideRounded(BigInt(totalMinor) * partInt, wholeInt), 'prorated amount');
}

/** `value` = coefficient × 10^exponent, read from the shortest decimal that round-trips. */
function decimalOf(value: number): { coefficient: bigint; exponent: number } {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite amount: ${value}`);
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (match === null) throw new RangeError(`not a decimal amount: ${value}`);
  const [, sign = '', whole = '', fraction = '', power = '0'] = match;
  return {
    coefficient: BigInt(`${sign}${whole}${fraction}`),
    exponent: Number(power) - fraction.length,
  };
}

/** n / d rounded half away from zero; d > 0. */
function divideRounded(n: bigint, d: bigint): bigint {
  const quotient = n / d;
  const remainder = n % d;
  const magnitude = remainder < 0n ? -remainder : remainder;
  if (2n * magnitude < d) return quotient;
  return n < 0n ? quotient - 1n : quotient + 1n;
}

function toMinorUnits(value: bigint, what: string): number {
  const limit = BigInt(MAX_MINOR_UNITS);
  if (value > limit || value < -limit) throw new RangeError(`${what} is too large to count in minor units`);
  return Number(value);
}

function assertMinorUnits(value: number, name: string): void {
  if (!Number.isInteger(value) || Math.abs(value) > MAX_MINOR_UNITS)
    throw new RangeError(`${name} must be an integer of at most ${MAX_MINOR_UNITS} minor units, got ${value}`);
}

/**
 * A document's total as a list shows it ("1.28 EUR"); a record edited by hand whose amount
 * does not fit its currency is shown as it is, so that it does not hide the others.
 */
export function shownTotal(totalAmount: number, currency: string): string {
  try {
    return formatMoney(toMinor(totalAmount, currency), currency);
  } catch {
    return `${totalAmount} ${currency}`;
  }
}
