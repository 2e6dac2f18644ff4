import { UsageError } from '../errors.js';

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(h) && h.split('.').every((p) => Number(p) <= 255);
}

/**
 * Accepts https:// anywhere and http:// only on loopback; returns the URL without a trailing
 * slash. `what` names the flag, variable or key in the error.
 */
export function validateBaseUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${what}: "${value}" is not a URL`, { hint: 'give a full address such as https://api.example.com' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${what}: only https:// (or http:// on loopback) is allowed, got ${url.protocol}`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`${what}: http:// is refused for ${url.hostname}: use https://`, {
      hint: 'plain http is allowed only for 127.0.0.1, ::1 and localhost',
    });
  }
  if (url.username || url.password) throw new UsageError(`${what}: credentials in the URL are refused`);
  if (url.search || url.hash) throw new UsageError(`${what}: a query or fragment is not allowed`);
  return url.toString().replace(/\/+$/, '');
}
