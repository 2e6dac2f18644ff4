// A certificate authority of the test's own, made with openssl: the CA, and server
// certificates it signed — one for localhost and 127.0.0.1 (and names given), one that has
// expired, one made out to another name.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';

export interface ServerCertificate {
  key: string;
  cert: string;
}

export interface PrivateCa {
  /** The CA's certificate file (PEM): what NODE_EXTRA_CA_CERTS points at. */
  caFile: string;
  /** For localhost, 127.0.0.1 and the names asked for. */
  valid: ServerCertificate;
  /** For the same names, expired yesterday. */
  expired: ServerCertificate;
  /** For other.example only. */
  otherName: ServerCertificate;
}

export async function makePrivateCa(dir: string, names: readonly string[] = []): Promise<PrivateCa> {
  const openssl = (args: string[]) => execa('openssl', args, { cwd: dir });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=svc test CA']);
  const issue = async (name: string, altNames: string, days: string): Promise<ServerCertificate> => {
    await openssl(['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
    await writeFile(join(dir, `${name}.ext`), `subjectAltName=${altNames}\n`);
    await openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', days, '-extfile', `${name}.ext`]);
    return { key: await readFile(join(dir, `${name}.key`), 'utf8'), cert: await readFile(join(dir, `${name}.pem`), 'utf8') };
  };
  const ours = ['DNS:localhost', 'IP:127.0.0.1', ...names.map((n) => `DNS:${n}`)].join(',');
  return {
    caFile: join(dir, 'ca.pem'),
    valid: await issue('valid', ours, '2'),
    expired: await issue('expired', ours, '-1'),
    otherName: await issue('other', 'DNS:other.example', '2'),
  };
}
