// The identification flags of `recipient resolve` and `receipt send` as one checked lookup.
// Checked before anything is sent, and without echoing the value: a mistyped card number in
// an error message would end up in terminal scrollback and CI logs.
import type { RecipientLookup } from '../../api/recipient.js';
import { ResolveRecipientRequest } from '../../contract/recipient.js';
import { validate } from '../../contract/validate.js';
import { UsageError, ValidationError } from '../../errors.js';
import { maskLast4 } from '../../io/redact.js';
import type { IdentifierFlags } from './index.js';

export interface LookupFlags extends IdentifierFlags {
  receipt?: string | undefined;
}

interface LookupKind {
  flag: string;
  kind: string;
  build(value: string): Pick<RecipientLookup, 'request' | 'display' | 'secret'>;
  /** What the flag accepts, where that is more than the contract's compact form. */
  expected?: string;
}

// People write these with spaces and dashes; the request carries the compact form.
const KINDS: Record<keyof LookupFlags, LookupKind> = {
  email: { flag: '--email', kind: 'email', build: (v) => ({ request: { email: v.trim() }, display: v.trim() }) },
  phone: {
    flag: '--phone',
    kind: 'phone',
    build: (v) => {
      const phone = v.replace(/[\s().-]/g, '');
      return { request: { phone }, display: phone };
    },
  },
  iban: {
    flag: '--iban',
    kind: 'IBAN',
    expected: 'must be an IBAN, such as DE89 3704 0044 0532 0130 00 (spaces and lower case are fine)',
    build: (v) => {
      const iban = v.replace(/\s/g, '').toUpperCase();
      return { request: { iban }, display: maskLast4(iban), secret: iban };
    },
  },
  card: {
    flag: '--card',
    kind: 'card',
    expected: 'must be a card number of 12 to 19 digits (spaces and dashes are fine)',
    build: (v) => {
      const cardNumber = v.replace(/[\s-]/g, '');
      return { request: { cardNumber }, display: maskLast4(cardNumber), secret: cardNumber };
    },
  },
  receipt: {
    flag: '--receipt',
    kind: 'receipt',
    build: (v) => ({ request: { serviceReceiptId: v.trim() }, display: v.trim() }),
  },
};

/** Exactly one of the `allowed` flags, validated; a UsageError naming the flags otherwise. */
export function lookupFromFlags(flags: LookupFlags, allowed: readonly (keyof LookupFlags)[]): RecipientLookup {
  const given = allowed.filter((name) => flags[name] !== undefined);
  const names = allowed.map((name) => KINDS[name].flag).join(', ');
  const [name] = given;
  if (name === undefined || given.length > 1) {
    throw new UsageError(given.length > 1 ? `give only one of ${names}` : `give one of ${names}`, {
      hint: 'the customer is identified by exactly one of them',
    });
  }
  const { flag, kind, build, expected } = KINDS[name];
  const lookup = build(flags[name] ?? '');
  const checked = validate(ResolveRecipientRequest, lookup.request);
  // The shape's message speaks of the compact form sent; what the flag accepts is wider.
  // Other problems (a country's length, a check digit) are said as they are.
  if (!checked.success) throw new ValidationError(flag, checked.issues.map((i) => ({ path: i.path, message: expected !== undefined && /^must be /.test(i.message) ? expected : i.message })));
  return { ...lookup, kind };
}
