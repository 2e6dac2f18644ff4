import { describe, expect, it } from 'vitest';
import type { UblDocument } from '../../src/contract/template.js';
import { SvcError } from '../../src/errors.js';
import { injectCustomer, supplierPartyIdOf } from '../../src/receipts/document.js';

const COMPANY_ID = 'c0000000-0000-4000-8000-000000000001';

function template(): UblDocument {
  return {
    id: { value: 'R-1' },
    accountingSupplierParty: { partyIdentification: [{ id: { value: COMPANY_ID } }], partyName: { name: 'Example Retail Ltd' } },
    accountingCustomerParty: {},
    invoiceLine: [{ id: { value: '1' } }],
    verificationNonce: 'nonce-1',
  };
}

describe('injectCustomer', () => {
  it('fills every member of a complete customer', () => {
    const doc = injectCustomer(template(), {
      name: 'Alice Example',
      email: 'alice@example.com',
      phone: '+4915100000001',
      address: 'Lindenstraße 12\n10969 Berlin',
    });
    expect(doc.accountingCustomerParty).toEqual({
      party: {
        partyName: [{ name: 'Alice Example' }],
        contact: { electronicMail: 'alice@example.com', telephone: '+4915100000001' },
        postalAddress: { addressLine: [{ line: 'Lindenstraße 12\n10969 Berlin' }] },
      },
    });
  });

  it('omits absent and empty members', () => {
    expect(injectCustomer(template(), { email: 'alice@example.com', name: '' }).accountingCustomerParty).toEqual({
      party: { contact: { electronicMail: 'alice@example.com' } },
    });
    expect(injectCustomer(template(), { phone: '+4915100000001' }).accountingCustomerParty).toEqual({
      party: { contact: { telephone: '+4915100000001' } },
    });
  });

  it('gives the empty party of the template for an empty customer', () => {
    expect(injectCustomer(template(), {})).toEqual(template());
  });

  it('keeps the rest of the template and leaves the template itself alone', () => {
    const original = template();
    const doc = injectCustomer(original, { name: 'Alice Example' });
    expect({ ...doc, accountingCustomerParty: {} }).toEqual(template());
    expect(original).toEqual(template());
  });

  it('is deterministic', () => {
    const customer = { name: 'A', email: 'a@example.com' };
    expect(JSON.stringify(injectCustomer(template(), customer))).toBe(JSON.stringify(injectCustomer(template(), customer)));
  });
});

describe('supplierPartyIdOf', () => {
  it('reads the first party identification', () => {
    expect(supplierPartyIdOf(template())).toBe(COMPANY_ID);
  });

  it.each([
    ['no supplier party', {}],
    ['no identifications', { accountingSupplierParty: {} }],
    ['an empty list', { accountingSupplierParty: { partyIdentification: [] } }],
    ['an empty value', { accountingSupplierParty: { partyIdentification: [{ id: { value: '' } }] } }],
    ['a non-string value', { accountingSupplierParty: { partyIdentification: [{ id: { value: 7 } }] } }],
  ])('refuses a template with %s', (_what, doc) => {
    expect(() => supplierPartyIdOf(doc as UblDocument)).toThrow(SvcError);
  });
});
