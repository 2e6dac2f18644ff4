// The issuer of a receipt or credit note is the integration that submitted it: a client
// application (OAuth) or the company itself (API key). Return requests and credit-note
// envelopes are encrypted for that issuer's registered key (docs/interface-decisions.md#client-application-key-shape), so whoever
// can decrypt them is whoever issued the document, not every integration of the company.
import type { Sandbox } from './context.js';
import { HttpError } from './router.js';

export interface Issuer {
  readonly companyId: string;
  /** null: an API-key integration, i.e. the company itself. */
  readonly clientId: string | null;
}

/** Base64 SPKI: the client application's uploaded key, or the company's encryption key. */
export function issuerPublicKey(sandbox: Sandbox, issuer: Issuer): string | undefined {
  if (issuer.clientId !== null) return sandbox.state.clientApplications.get(issuer.clientId)?.publicKey?.keyData;
  return sandbox.state.companies.get(issuer.companyId)?.encryptionKey?.publicKey;
}

/** The key, or a 409 telling the issuer how to register one. */
export function requireIssuerPublicKey(sandbox: Sandbox, issuer: Issuer): string {
  const key = issuerPublicKey(sandbox, issuer);
  if (key !== undefined) return key;
  const who = issuer.clientId === null ? `company ${issuer.companyId}` : `client application ${issuer.clientId}`;
  throw new HttpError('issuer_key_missing', `the issuer (${who}) has no registered public key: run \`svc keys generate --upload\``);
}
