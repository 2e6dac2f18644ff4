// What a TLS failure means to a person, as curl says it: the service's certificate is not
// trusted, has expired, is made out to another name, or no TLS version could be agreed on.
// None of these is the network being down, and no retry mends it: the message names the
// problem, the hint the fix.
import { CertificateError } from '../errors.js';

const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
]);
const EXPIRED = new Set(['CERT_HAS_EXPIRED']);
const NOT_YET_VALID = new Set(['CERT_NOT_YET_VALID']);
const OTHER_NAME = new Set(['ERR_TLS_CERT_ALTNAME_INVALID']);
const PROTOCOL = new Set([
  'ERR_SSL_UNSUPPORTED_PROTOCOL',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_NO_PROTOCOLS_AVAILABLE',
  'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
  'EPROTO',
]);
const OTHER_CERTIFICATE = new Set(['CERT_REVOKED', 'CERT_SIGNATURE_FAILURE', 'CERT_REJECTED', 'INVALID_CA', 'PATH_LENGTH_EXCEEDED', 'INVALID_PURPOSE', 'ERR_TLS_CERT_SIGNATURE_ALGORITHM_UNSUPPORTED']);

const TRUST_HINT =
  'if the service, or a proxy on your network that inspects TLS, uses a certificate authority of its own, give svc its certificate (PEM): NODE_EXTRA_CA_CERTS=/path/to/ca.pem svc … (or SVC_CA_FILE=/path/to/ca.pem)';

/** True when `code` is a TLS failure that retrying cannot mend. */
export function isCertificateProblem(code: string): boolean {
  return [UNTRUSTED, EXPIRED, NOT_YET_VALID, OTHER_NAME, PROTOCOL, OTHER_CERTIFICATE].some((set) => set.has(code));
}

/**
 * The error for a TLS failure talking to `origin` (scheme, host and port as the user gave
 * them); `reason` is Node's own text, where it names the certificate's names.
 */
export interface CertificateContext {
  /** The certificate is the proxy's (an https:// proxy), not the service's. */
  atProxy?: boolean;
  /** The CA files this run was given (NODE_EXTRA_CA_CERTS, SVC_CA_FILE), by variable. */
  caFiles?: readonly { variable: string; file: string }[];
}

export function certificateError(origin: string, code: string, cause: unknown, { atProxy = false, caFiles = [] }: CertificateContext = {}): CertificateError {
  const host = URL.canParse(origin) ? new URL(origin).hostname : origin;
  // Given a CA file already, the fix is another file, not the variable.
  const given = caFiles.map(({ variable, file }) => `${variable}=${file}`);
  const trustHint =
    given.length === 0
      ? TRUST_HINT
      : `${given.join(' and ')} ${given.length > 1 ? 'are' : 'is'} set, but no certificate authority in ${given.length > 1 ? 'them' : 'it'} issued this one: give the PEM certificate of the authority that did (ask whoever runs the ${atProxy ? 'proxy' : 'service, or the proxy that inspects TLS'})`;
  const who = atProxy ? `the proxy ${origin}` : origin;
  const says = (message: string, hint: string) => new CertificateError(`${message} (${code})`, { hint, cause });
  if (UNTRUSTED.has(code))
    return says(`the certificate of ${who} is not trusted: its issuer is not a certificate authority this machine trusts`, trustHint);
  if (EXPIRED.has(code))
    return says(`the certificate of ${who} has expired`, `the ${atProxy ? "proxy's" : "service's"} certificate must be renewed; if it was, check this machine's clock (\`date\`)`);
  if (NOT_YET_VALID.has(code))
    return says(`the certificate of ${who} is not valid yet`, "check this machine's clock (`date`)");
  if (OTHER_NAME.has(code)) {
    const names = /cert's altnames: (.*)$/.exec(String((cause as { reason?: unknown }).reason ?? (cause as Error).message ?? ''))?.[1];
    return says(
      `the certificate of ${who} is made out to another name${names ? ` (${names})` : ''}, not ${host}`,
      `check ${atProxy ? 'HTTPS_PROXY' : 'the base URL (`svc config get base-url`)'}: the host must be a name the certificate is made out to`,
    );
  }
  if (PROTOCOL.has(code))
    return says(
      `no TLS connection with ${who}: it offers no TLS version svc accepts (1.2 or newer), or does not speak TLS at that port`,
      atProxy ? 'check HTTPS_PROXY: its scheme (most proxies take http://) and port' : 'check the base URL (`svc config get base-url`): https:// and the port of the service',
    );
  return says(`the certificate of ${who} was refused`, trustHint);
}
