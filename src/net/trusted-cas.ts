// The certificate authorities an https request trusts when SVC_CA_FILE names a file: Node's
// built-in ones and the file's (PEM, one or more certificates). Without it, Node's own store
// is used as it is (NODE_EXTRA_CA_CERTS included).
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { UsageError } from '../errors.js';

export function trustedCas(caFile: string): string[] {
  let pem: string;
  try {
    pem = readFileSync(caFile, 'utf8');
  } catch (error) {
    throw new UsageError(`SVC_CA_FILE: cannot read ${caFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
      hint: 'name a PEM file of the certificate authorities to trust, or unset SVC_CA_FILE',
    });
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`SVC_CA_FILE: ${caFile} holds no PEM certificate`, { hint: 'the file must hold -----BEGIN CERTIFICATE----- blocks' });
  }
  return [...rootCertificates, pem];
}
