// The spliced final document must be byte for byte the canonical text of injectCustomer's
// document (which the sandbox's devices rebuild and hash): checked on real templates and on
// arbitrary JSON objects, with the customer member anywhere in the name order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentHash, sha256Hex } from '../../src/crypto/hash.js';
import { canonicalize } from '../../src/crypto/jcs.js';
import { customerParty, injectCustomer } from '../../src/receipts/document.js';
import { canonicalTemplate, finalDocument } from '../../src/receipts/final-document.js';

const alice = { name: 'Alice Example', email: 'alice@example.com', phone: '+4915100000001', address: 'Lindenstraße 12, "Hof"' };

function expectSame(template: Record<string, unknown>, customer: Record<string, string>) {
  const prepared = canonicalTemplate(template);
  expect(prepared.templateHash).toBe(documentHash(template));
  const final = finalDocument(prepared, customer);
  const expected = canonicalize(injectCustomer(template, customer));
  expect(final.bytes.toString('utf8')).toBe(expected);
  expect(final.finalHash).toBe(sha256Hex(expected));
}

describe('canonicalTemplate and finalDocument', () => {
  it('give the canonical text of the template with the customer party, and both hashes', () => {
    expectSame(
      {
        verificationNonce: 'n-1',
        id: { value: 'R-1' },
        accountingSupplierParty: { partyIdentification: [{ id: { value: 'company-1' } }] },
        invoiceLine: [{ item: { name: 'Grüner Tee 🍵' }, lineExtensionAmount: { value: 10.5, currencyID: 'EUR' } }],
        accountingCustomerParty: { party: { partyName: [{ name: 'someone else' }] } },
      },
      alice,
    );
  });

  it('place the customer party first, last or alone', () => {
    expectSame({ b: 1, a: 2 }, alice); // before every other member: "a" < "accountingCustomerParty" < "b"
    expectSame({ Z: 1, _: [] }, { name: 'Bob' }); // "Z" sorts before, "_" after
    expectSame({ A: true }, {}); // only members before it
    expectSame({}, alice);
    expectSame({ accountingCustomerParty: {} }, {});
  });

  it('agree with injectCustomer + JCS on any JSON object and customer', () => {
    const name = fc.oneof(fc.string(), fc.constantFrom('accountingCustomerParty', 'accountingSupplierParty', 'accounting', 'b', '\u00e9', '\ud83d\ude00'));
    const customer = fc.record({ name: fc.string(), email: fc.string(), phone: fc.string(), address: fc.string() }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.dictionary(name, fc.jsonValue(), { maxKeys: 8 }), customer, (template, c) => {
        expectSame(template as Record<string, unknown>, c);
      }),
      { numRuns: 500 },
    );
  });
});

describe('customerParty', () => {
  it('is built in canonical order, so JSON.stringify gives its canonical text', () => {
    fc.assert(
      fc.property(fc.record({ name: fc.string(), email: fc.string(), phone: fc.string(), address: fc.string() }, { requiredKeys: [] }), (c) => {
        const party = customerParty(c);
        expect(JSON.stringify(party)).toBe(canonicalize(party));
      }),
    );
  });
});
