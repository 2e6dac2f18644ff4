// The certificate authorities an https request trusts when SVC_CA_FILE names a file: Node's
// built-in ones and the file's (PEM, one or more certificates). Without it, Node's own store
// is used as it is (NODE_EXTRA_CA_CERTS included).
import { rootCertificates } from 'node:tls';
import { UsageError } from '../errors.js';
import { readBoundedSync } from '../io/bounded-read.js';

/** Mozilla's whole bundle is about 220 KiB. */
const CA_BYTES = 4 * 1024 * 1024;

export function trustedCas(caFile: string): string[] {
  let pem: string;
  try {
    pem = readBoundedSync(caFile, `SVC_CA_FILE ${caFile}`, { bytes: CA_BYTES, why: 'a bundle of certificate authorities' }).toString('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`SVC_CA_FILE: cannot read ${caFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
      hint: 'name a PEM file of the certificate authorities to trust, or unset SVC_CA_FILE',
    });
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`SVC_CA_FILE: ${caFile} holds no PEM certificate`, { hint: 'the file must hold -----BEGIN CERTIFICATE----- blocks' });
  }
  return [...rootCertificates, pem];
}
