// The end-to-end tests' own account of docs/interface-decisions.md#hybrid-encryption, written out with node:crypto alone,
// so that what the devices received is checked independently of svc's crypto module.
import { createDecipheriv, constants, privateDecrypt } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export function decrypt(ciphertextB64: string, wrappedKeyB64: string, privateKeyPem: string): unknown {
  const key = privateDecrypt({ key: privateKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(wrappedKeyB64, 'base64'));
  const raw = Buffer.from(ciphertextB64, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12), { authTagLength: 16 });
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return JSON.parse(Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8'));
}

/** The private key of every customer device a sandbox fixture seeds, by device id. */
export async function devicePrivateKeys(fixturePath: string): Promise<Map<string, string>> {
  const seed = JSON.parse(await readFile(fixturePath, 'utf8')) as { customers: { devices: { id: string; privateKeyPem: string }[] }[] };
  return new Map(seed.customers.flatMap((c) => c.devices).map((d) => [d.id, d.privateKeyPem]));
}
