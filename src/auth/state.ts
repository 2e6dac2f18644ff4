// The OAuth `state` of one login: unguessable, and accepted once, so a replayed or forged
// callback (login CSRF, RFC 6749 §10.12) never reaches the token endpoint.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { base64url } from '../crypto/base64.js';

export interface OAuthState {
  readonly value: string;
  /** Whether `candidate` is this state and it has not been used yet; does not use it up. */
  matches(candidate: string | null | undefined): boolean;
  /** True for the first matching candidate only. */
  consume(candidate: string | null | undefined): boolean;
}

export function createState(): OAuthState {
  const value = base64url(randomBytes(32));
  const expected = Buffer.from(value);
  let used = false;
  const matches = (candidate: string | null | undefined): boolean => {
    if (used || typeof candidate !== 'string') return false;
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  return {
    value,
    matches,
    consume(candidate) {
      if (!matches(candidate)) return false;
      used = true;
      return true;
    },
  };
}
