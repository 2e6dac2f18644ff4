// IBAN check per ISO 13616 through ibantools (the SWIFT IBAN registry): the country's own
// length and BBAN structure (a German IBAN has 22 characters, of which 18 digits) and the
// MOD 97-10 check digits. A number that only passes MOD 97 is no IBAN a bank would pay to.
import { ValidationErrorsIBAN, getCountrySpecifications, validateIBAN } from 'ibantools';

/** The compact form people's spaces and lower case are removed from. */
export function compactIban(iban: string): string {
  return iban.replace(/\s+/g, '').toUpperCase();
}

/** Why the IBAN is not one, in words (never the IBAN itself); undefined when it is valid. */
export function ibanProblem(iban: string): string | undefined {
  const compact = compactIban(iban);
  if (compact === '') return 'is empty';
  const { valid, errorCodes } = validateIBAN(compact);
  if (valid) return undefined;
  const country = compact.slice(0, 2);
  if (errorCodes.includes(ValidationErrorsIBAN.NoIBANCountry)) return `does not start with the code of a country that uses IBANs (${/^[A-Z]{2}$/.test(country) ? country : 'none'})`;
  if (errorCodes.includes(ValidationErrorsIBAN.WrongBBANLength)) {
    const chars = getCountrySpecifications()[country]?.chars;
    return `has ${compact.length} characters, and a ${country} IBAN has ${chars ?? 'another number of them'}`;
  }
  if (errorCodes.includes(ValidationErrorsIBAN.WrongBBANFormat)) return `does not have the structure of a ${country} IBAN`;
  return 'has check digits that do not match (ISO 13616 MOD 97)';
}

export function isValidIban(iban: string): boolean {
  return ibanProblem(iban) === undefined;
}
