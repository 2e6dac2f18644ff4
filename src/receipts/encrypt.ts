// Encryption of a final document for every device of a customer (docs/interface-decisions.md#hybrid-encryption, #final-documents): each
// entry has its own content keys, so no recipient can open another's entry.
import { randomBytes, type KeyObject } from 'node:crypto';
import type { CustomerDetails, EncryptedReceiptEntry } from '../contract/receipt.js';
import { ReceiverType, type Recipient } from '../contract/recipient.js';
import { sealAesGcm, wrapKey, type Sealed } from '../crypto/hybrid.js';
import { publicKeyFromBase64 } from '../crypto/keys.js';
import type { FinalDocument } from './final-document.js';

export type EncryptionRecipient = Pick<Recipient, 'recipientId' | 'receiverType' | 'publicKey'>;

const AES_KEY_BYTES = 32;

/**
 * One `encryptedReceipts` entry per recipient: the final document and the customer details,
 * each under a fresh AES key wrapped for the recipient's public key. Credit notes send the
 * same entry with the document under `encryptedCreditNote`.
 */
export function encryptForRecipients(
  finalDoc: FinalDocument,
  customer: CustomerDetails,
  recipients: readonly EncryptionRecipient[],
  supplierPartyId: string,
): EncryptedReceiptEntry[] {
  // The canonical text, serialized once for all recipients: what finalHash covers, and plain
  // JSON, so the device's plaintext hashes to finalHash byte for byte.
  const { bytes: documentBytes, finalHash } = finalDoc;
  const customerBytes = Buffer.from(JSON.stringify(customer), 'utf8');
  return recipients.map((recipient) => {
    const key = publicKeyFromBase64(recipient.publicKey);
    const receipt = seal(documentBytes, key);
    const details = seal(customerBytes, key);
    const entry: EncryptedReceiptEntry = {
      recipientId: recipient.recipientId,
      encryptedReceipt: receipt.ciphertext,
      encryptedSymmetricKey: receipt.wrappedKey,
      encryptedCustomerDetails: details.ciphertext,
      encryptedCustomerAesKey: details.wrappedKey,
      finalHash,
      publicKey: recipient.publicKey,
      supplierPartyId,
    };
    // The entry's enum is closed: a receiver type this svc does not know is left for the service to infer.
    if (isReceiverType(recipient.receiverType)) entry.receiverType = recipient.receiverType;
    return entry;
  });
}

/** `encryptJson` for bytes serialized once: a fresh content key, wiped after wrapping. */
function seal(plaintext: Uint8Array, publicKey: KeyObject): Sealed {
  const aesKey = randomBytes(AES_KEY_BYTES);
  try {
    return { ciphertext: sealAesGcm(plaintext, aesKey), wrappedKey: wrapKey(aesKey, publicKey) };
  } finally {
    aesKey.fill(0);
  }
}

function isReceiverType(value: string): value is ReceiverType {
  return (ReceiverType.options as readonly string[]).includes(value);
}
