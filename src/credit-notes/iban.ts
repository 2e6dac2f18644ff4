// IBAN check per ISO 13616: country code, two check digits and up to 30 characters of
// account identification; valid when the number, rearranged and read with A=10 … Z=35,
// leaves 1 when divided by 97 (ISO 7064 MOD 97-10).

const SHAPE = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/;

/** The compact form people's spaces and lower case are removed from. */
export function compactIban(iban: string): string {
  return iban.replace(/\s+/g, '').toUpperCase();
}

export function isValidIban(iban: string): boolean {
  const compact = compactIban(iban);
  if (!SHAPE.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  // Digit by digit, so the remainder stays small: the number has up to 68 digits.
  let remainder = 0;
  for (const char of rearranged) {
    const value = Number.parseInt(char, 36);
    remainder = value < 10 ? (remainder * 10 + value) % 97 : (remainder * 100 + value) % 97;
  }
  return remainder === 1;
}
