import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { EncryptedReceiptEntry } from '../../src/contract/receipt.js';
import { documentHash, sha256Hex } from '../../src/crypto/hash.js';
import { decryptJson, openAesGcm, unwrapKey } from '../../src/crypto/hybrid.js';
import { injectCustomer } from '../../src/receipts/document.js';
import { encryptForRecipients } from '../../src/receipts/encrypt.js';
import { canonicalTemplate, finalDocument } from '../../src/receipts/final-document.js';

interface Device {
  recipientId: string;
  receiverType: string;
  publicKey: string;
  privateKeyPem: string;
}

let devices: Device[];

beforeAll(() => {
  devices = ['phone', 'tablet', 'watch'].map((name, i) => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicExponent: 0x10001,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    return { recipientId: `device-${name}`, receiverType: i === 2 ? 'WEBHOOK' : 'DEVICE', publicKey: publicKey.toString('base64'), privateKeyPem: privateKey };
  });
});

const template = {
  id: { value: 'R-2025-000871' },
  documentCurrencyCode: 'EUR',
  accountingSupplierParty: { partyIdentification: [{ id: { value: 'company-1' } }] },
  accountingCustomerParty: {},
  invoiceLine: [{ id: { value: '1' }, item: { name: 'Grüner Tee' }, lineExtensionAmount: { value: 10.5, currencyID: 'EUR' } }],
  verificationNonce: 'n-1',
};
const customer = { name: 'Alice Example', email: 'alice@example.com', phone: '+4915100000001', address: 'Lindenstraße 12' };
const finalFor = (c: typeof customer | Record<string, never>) => finalDocument(canonicalTemplate(template), c);

describe('encryptForRecipients', () => {
  it('round-trips the final document and the customer details for every recipient', () => {
    const finalDoc = injectCustomer(template, customer);
    const entries = encryptForRecipients(finalFor(customer), customer, devices, 'company-1');
    expect(entries).toHaveLength(devices.length);
    entries.forEach((entry, i) => {
      const device = devices[i]!;
      expect(EncryptedReceiptEntry.safeParse(entry).success).toBe(true);
      expect(entry).toMatchObject({
        recipientId: device.recipientId,
        receiverType: device.receiverType,
        publicKey: device.publicKey,
        supplierPartyId: 'company-1',
        finalHash: documentHash(finalDoc),
      });
      expect(decryptJson(entry.encryptedReceipt, entry.encryptedSymmetricKey, device.privateKeyPem)).toEqual(finalDoc);
      expect(decryptJson(entry.encryptedCustomerDetails, entry.encryptedCustomerAesKey, device.privateKeyPem)).toEqual(customer);
    });
  });

  it('sends plaintext whose SHA-256 is the finalHash', () => {
    const [entry] = encryptForRecipients(finalFor(customer), customer, devices.slice(0, 1), 'company-1');
    const aesKey = unwrapKey(entry!.encryptedSymmetricKey, devices[0]!.privateKeyPem);
    expect(sha256Hex(openAesGcm(entry!.encryptedReceipt, aesKey))).toBe(entry!.finalHash);
  });

  it('uses a fresh AES key and IV for every ciphertext', () => {
    const same = devices.map((d) => ({ ...devices[0]!, recipientId: d.recipientId }));
    const entries = encryptForRecipients(finalFor(customer), customer, same, 'company-1');
    const ciphertexts = entries.flatMap((e) => [e.encryptedReceipt, e.encryptedCustomerDetails]);
    const ivs = ciphertexts.map((c) => Buffer.from(c, 'base64').subarray(0, 12).toString('hex'));
    const keys = entries.flatMap((e) => [e.encryptedSymmetricKey, e.encryptedCustomerAesKey]).map((k) =>
      unwrapKey(k, devices[0]!.privateKeyPem).toString('hex'),
    );
    for (const values of [ciphertexts, ivs, keys]) expect(new Set(values).size).toBe(values.length);
  });

  it('lets no device open another device\'s entry', () => {
    const [first] = encryptForRecipients(finalFor({}), {}, devices.slice(0, 1), 'company-1');
    expect(() => decryptJson(first!.encryptedReceipt, first!.encryptedSymmetricKey, devices[1]!.privateKeyPem)).toThrow(/cannot decrypt/);
  });

  it('leaves out a receiver type the entry schema does not know', () => {
    const [entry] = encryptForRecipients(finalFor({}), {}, [{ ...devices[0]!, receiverType: 'KIOSK' }], 'company-1');
    expect(entry).not.toHaveProperty('receiverType');
  });

  it('returns no entries for no recipients', () => {
    expect(encryptForRecipients(finalFor({}), {}, [], 'company-1')).toEqual([]);
  });
});
