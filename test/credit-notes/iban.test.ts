import { describe, expect, it } from 'vitest';
import { compactIban, isValidIban } from '../../src/credit-notes/iban.js';

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
