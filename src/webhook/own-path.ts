// A Grant's own path under a listener's URL (docs/interface-decisions.md#own-paths-for-subscriptions: a subscription may be given a
// notificationUrl of its own): `URL/g` + 24 hex digits of the Grant ID's SHA-256. The same
// on every run, so a re-run finds (reuses) the subscription it made; no Grant ID in URLs.
// The listener checks a delivery to such a path against that path's secrets only.
import { sha256Hex } from '../crypto/hash.js';

export const OWN_PATH_SEGMENT = /^g[0-9a-f]{24}$/;

export function ownPathUrl(url: string, grantId: string): string {
  const own = new URL(url);
  own.pathname = `${own.pathname.replace(/\/+$/, '')}/g${sha256Hex(grantId).slice(0, 24)}`;
  return own.toString();
}

/**
 * `candidate` is a path of its own under `url` (of any Grant: after a new login replaced the
 * Grants, a company's subscription keeps the path derived from its former Grant ID).
 */
export function isOwnPathUnder(candidate: string, url: string): boolean {
  if (!URL.canParse(candidate) || !URL.canParse(url)) return false;
  const [own, base] = [new URL(candidate), new URL(url)];
  const dir = `${base.pathname.replace(/\/+$/, '')}/`;
  if (!own.pathname.startsWith(dir) || !OWN_PATH_SEGMENT.test(own.pathname.slice(dir.length))) return false;
  own.pathname = base.pathname;
  return own.toString() === base.toString();
}
