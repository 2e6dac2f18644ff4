// The canonical text of the final document (docs/interface-decisions.md#template-and-final-hashes, #final-documents) without canonicalizing it
// twice. The final document is the template with `accountingCustomerParty` set, and JCS
// writes an object's members in name order, so the template's canonical text, cut where that
// member goes, is the final text around the customer's member. The cut is made once, where
// the templateHash is computed anyway, and kept as UTF-8; each final document is then a
// short splice of bytes, hashed and encrypted as the very bytes the devices verify
// finalHash over.
import type { CustomerDetails } from '../contract/receipt.js';
import { hash } from 'node:crypto';
import { sha256Hex } from '../crypto/hash.js';
import { canonicalize, canonicalMembers } from '../crypto/jcs.js';
import { customerParty } from './document.js';

const CUSTOMER_MEMBER = 'accountingCustomerParty';
const MEMBER_NAME = Buffer.from(`${canonicalize(CUSTOMER_MEMBER)}:`, 'utf8');

/** A template's canonical text, hashed, and cut where the customer party goes. */
export interface CanonicalTemplate {
  templateHash: string;
  /** UTF-8 of "{" and the members before the customer party, each followed by a comma. */
  before: Buffer;
  /** UTF-8 of the members after it, each preceded by a comma, and "}". */
  after: Buffer;
}

/** The final document as the devices receive it. */
export interface FinalDocument {
  /** UTF-8 of its canonical JSON text: what is encrypted, and what finalHash covers. */
  bytes: Buffer;
  finalHash: string;
}

/** `template` is plain JSON data (as parsed from the service's answer). */
export function canonicalTemplate(template: object): CanonicalTemplate {
  const members = canonicalMembers(template);
  const templateHash = sha256Hex(`{${members.map((m) => m.text).join(',')}}`);
  // The template's own customer member, if it has one, is the one the final document replaces.
  const others = members.filter((m) => m.name !== CUSTOMER_MEMBER);
  const cut = others.findIndex((m) => m.name > CUSTOMER_MEMBER);
  const head = cut === -1 ? others : others.slice(0, cut);
  const tail = cut === -1 ? [] : others.slice(cut);
  return {
    templateHash,
    before: Buffer.from(`{${head.map((m) => `${m.text},`).join('')}`, 'utf8'),
    after: Buffer.from(`${tail.map((m) => `,${m.text}`).join('')}}`, 'utf8'),
  };
}

/** The template with the customer party of `customer` in place: injectCustomer, as canonical bytes. */
export function finalDocument(template: CanonicalTemplate, customer: CustomerDetails): FinalDocument {
  // customerParty builds its members in canonical order, from strings only.
  const party = Buffer.from(JSON.stringify(customerParty(customer)), 'utf8');
  const bytes = Buffer.concat([template.before, MEMBER_NAME, party, template.after]);
  return { bytes, finalHash: hash('sha256', bytes, 'hex') };
}
