// The simulated customer devices: what a device does with the entry it receives. It picks
// its key by the entry's `publicKey` (docs/interface-decisions.md#which-key-decrypts), opens the document and the customer
// details, and checks the document against `finalHash`. A device that cannot use its entry
// says why; the submission stands, because the real service routes ciphertext it cannot read.
import { CustomerDetails } from '../contract/receipt.js';
import { validate } from '../contract/validate.js';
import { decryptWithKeyring } from '../crypto/hybrid.js';
import { documentHash } from '../crypto/hash.js';
import { DecryptError } from '../errors.js';
import type { Device } from './state.js';

export interface DeviceEntry {
  /** Names the document field in reasons: `encryptedReceipt` or `encryptedCreditNote`. */
  readonly documentField: string;
  readonly encryptedDocument: string;
  readonly encryptedSymmetricKey: string;
  readonly encryptedCustomerDetails: string;
  readonly encryptedCustomerAesKey: string;
  readonly publicKey: string;
  readonly finalHash?: string | undefined;
}

export type DeviceOutcome =
  | {
      readonly status: 'DELIVERED';
      readonly document: Readonly<Record<string, unknown>>;
      readonly customerDetails: CustomerDetails;
      /** Only when the entry carried a finalHash. */
      readonly hashMatches?: boolean;
    }
  | { readonly status: 'UNDECRYPTABLE'; readonly reason: string };

export function receiveOnDevice(device: Device, entry: DeviceEntry): DeviceOutcome {
  const keyring = [{ keyId: device.id, privateKeyPem: device.privateKeyPem }];
  const open = (field: string, ciphertext: string, wrappedKey: string): unknown => {
    try {
      return decryptWithKeyring({ ciphertext, wrappedKey, publicKey: entry.publicKey }, keyring).value;
    } catch (error) {
      if (error instanceof DecryptError) throw new Unusable(`${field}: ${error.message}`);
      throw error;
    }
  };
  try {
    const document = open(entry.documentField, entry.encryptedDocument, entry.encryptedSymmetricKey);
    if (typeof document !== 'object' || document === null || Array.isArray(document))
      throw new Unusable(`${entry.documentField}: the plaintext is not a JSON object`);
    const details = validate(CustomerDetails, open('encryptedCustomerDetails', entry.encryptedCustomerDetails, entry.encryptedCustomerAesKey));
    if (!details.success) {
      const [first] = details.issues;
      throw new Unusable(`encryptedCustomerDetails: not customer details (${first ? `${first.path || 'value'} ${first.message}` : 'invalid'})`);
    }
    return {
      status: 'DELIVERED',
      document: document as Record<string, unknown>,
      customerDetails: details.data,
      ...(entry.finalHash === undefined ? {} : { hashMatches: documentHash(document) === entry.finalHash }),
    };
  } catch (error) {
    if (error instanceof Unusable) return { status: 'UNDECRYPTABLE', reason: error.message };
    throw error;
  }
}

/** A device could not use its entry; caught above and turned into the outcome. */
class Unusable extends Error {}
