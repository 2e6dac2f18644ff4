// The browser of a sandbox started with --auto-approve (`svc sandbox login`, `svc demo`):
// GETting the authorization URL answers with the redirect to svc's loopback listener, which
// is then followed. A sandbox that asks a person instead answers with its consent page.
// Both requests go through svc's own HTTP client (`clientAt`, the factory's apiAt): its
// timeouts, retries of a 503 or a reset, and proxies.
import type { ApiClient } from '../api/client.js';
import { UsageError } from '../errors.js';

export async function followAutoApproval(url: string, clientAt: (origin: string) => Promise<ApiClient>): Promise<void> {
  const consentUrl = new URL(url);
  const sandbox = await clientAt(consentUrl.origin);
  const consent = await sandbox.requestRaw({ method: 'GET', path: `${consentUrl.pathname}${consentUrl.search}`, redirect: 'manual', accept: 'text/html' });
  const location = consent.headers.location;
  const callback = Array.isArray(location) ? location[0] : location;
  if (consent.status !== 302 || !callback) {
    throw new UsageError(`the sandbox did not approve the login by itself (it answered ${consent.status}: a person is asked to approve)`, {
      hint: 'start it with `svc sandbox start --auto-approve`, or log in with `svc auth login` and approve in the browser',
    });
  }
  const callbackUrl = new URL(callback, consentUrl);
  // The code is for one use: a lost answer is not asked again (the listener has it, or times out).
  const listener = await clientAt(callbackUrl.origin);
  await listener.requestRaw({ method: 'GET', path: `${callbackUrl.pathname}${callbackUrl.search}`, retry: false, redirect: 'manual' });
}
