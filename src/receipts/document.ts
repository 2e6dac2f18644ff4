// The final document of docs/interface-decisions.md#final-documents: the template as the service returned it, with the
// customer party filled in. Devices verify `finalHash` over exactly this value, and the
// sandbox rebuilds it with this function, so it must stay deterministic and pure.
import type { CustomerDetails } from '../contract/receipt.js';
import type { UblDocument } from '../contract/template.js';
import { SvcError } from '../errors.js';

export interface CustomerParty {
  party?: {
    partyName?: { name: string }[];
    contact?: { electronicMail?: string; telephone?: string };
    postalAddress?: { addressLine: { line: string }[] };
  };
}

/** A copy of `template` whose `accountingCustomerParty` carries `customer`; `{}` when there is no customer data. */
export function injectCustomer<T extends object>(
  template: T,
  customer: CustomerDetails,
): Omit<T, 'accountingCustomerParty'> & { accountingCustomerParty: CustomerParty } {
  return { ...template, accountingCustomerParty: customerParty(customer) };
}

/** The `accountingCustomerParty` of a final document for `customer`. */
export function customerParty(customer: CustomerDetails): CustomerParty {
  // An empty string is treated as not given: a party with a blank name helps no one.
  const given = (value: string | undefined) => (value ? value : undefined);
  const name = given(customer.name);
  const email = given(customer.email);
  const phone = given(customer.phone);
  const address = given(customer.address);
  // Members are added in JCS order (names sorted, strings only), so JSON.stringify of the
  // result is already its canonical text: receipts/final-document.ts relies on it.
  const party: NonNullable<CustomerParty['party']> = {};
  if (email || phone) {
    party.contact = {};
    if (email) party.contact.electronicMail = email;
    if (phone) party.contact.telephone = phone;
  }
  if (name) party.partyName = [{ name }];
  if (address) party.postalAddress = { addressLine: [{ line: address }] };
  return Object.keys(party).length === 0 ? {} : { party };
}

/**
 * The supplier party ID of an entry: the first party identification of the supplier, where
 * the service puts the company ID.
 */
export function supplierPartyIdOf(template: UblDocument): string {
  const supplier = template.accountingSupplierParty;
  const identifications = supplier?.partyIdentification;
  const first: unknown = Array.isArray(identifications) ? identifications[0] : undefined;
  const id = isRecord(first) && isRecord(first.id) ? first.id.value : undefined;
  if (typeof id === 'string' && id !== '') return id;
  throw new SvcError('the template from the service has no accountingSupplierParty.partyIdentification[0].id.value', {
    hint: 'the service may be newer than this svc; try upgrading svc',
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
