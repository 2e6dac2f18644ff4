// PKCE (RFC 7636) with the only method the service accepts, S256. The verifier never leaves
// this process except in the body of the request that redeems the code.
import { createHash, randomBytes } from 'node:crypto';
import { base64url } from '../crypto/base64.js';

export interface Pkce {
  verifier: string;
  challenge: string;
  method: 'S256';
}

/** 32 random bytes as Base64URL: 43 characters of the unreserved set (RFC 7636 §4.1). */
export function createCodeVerifier(): string {
  return base64url(randomBytes(32));
}

/** BASE64URL(SHA256(ASCII(verifier))), RFC 7636 §4.2. */
export function codeChallenge(verifier: string): string {
  return base64url(createHash('sha256').update(verifier, 'ascii').digest());
}

export function createPkce(): Pkce {
  const verifier = createCodeVerifier();
  return { verifier, challenge: codeChallenge(verifier), method: 'S256' };
}
