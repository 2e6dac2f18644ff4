import { describe, expect, it } from 'vitest';
import { compactIban, ibanProblem, isValidIban } from '../../src/contract/iban.js';

describe('isValidIban (ISO 13616 mod 97)', () => {
  it.each(['DE89370400440532013000', 'GB82WEST12345698765432', 'NL91ABNA0417164300', 'FR1420041010050500013M02606', 'de89 3704 0044 0532 0130 00'])(
    'accepts %s',
    (iban) => expect(isValidIban(iban)).toBe(true),
  );

  it.each([
    ['a wrong check digit', 'DE89370400440532013001'],
    ['swapped digits', 'DE89370400440532031000'],
    ['too short', 'DE8937040044'],
    ['no country code', '8937040044053201300012'],
    ['a character outside the alphabet', 'DE89370400440532013-00'],
    ['empty', ''],
  ])('refuses %s', (_what, iban) => expect(isValidIban(iban)).toBe(false));

  it('compacts spaces and case', () => {
    expect(compactIban(' de89 3704 0044 0532 0130 00 ')).toBe('DE89370400440532013000');
  });
});

/** The IBAN with its check digits recomputed (ISO 7064 MOD 97-10), whatever its length. */
function withCheckDigits(country: string, bban: string): string {
  const digits = [...`${bban}${country}00`].map((c) => Number.parseInt(c, 36)).join('');
  let remainder = 0;
  for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}

describe('isValidIban: the country\'s length and structure too (ibantools)', () => {
  it('refuses a German IBAN of 23 characters whose MOD 97 check passes, naming the length', () => {
    const long = withCheckDigits('DE', '3704004405320130001');
    expect(long).toHaveLength(23);
    expect(isValidIban(long)).toBe(false);
    expect(ibanProblem(long)).toBe('has 23 characters, and a DE IBAN has 22');
  });

  it('refuses a BBAN of the wrong structure (letters where DE has digits) and an unknown country', () => {
    const letters = withCheckDigits('DE', '37040044053201300A');
    expect(ibanProblem(letters)).toBe('does not have the structure of a DE IBAN');
    expect(ibanProblem(withCheckDigits('XX', '370400440532013000'))).toMatch(/^does not start with the code of a country/);
  });

  it('never quotes the IBAN in its reason', () => {
    for (const iban of ['DE89370400440532013001', withCheckDigits('DE', '3704004405320130001')]) expect(ibanProblem(iban)).not.toContain(iban.slice(4));
  });
});
