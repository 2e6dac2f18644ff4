// The browser of a sandbox started with --auto-approve (`svc sandbox login`, `svc demo`):
// GETting the authorization URL answers with the redirect to svc's loopback listener, which
// is then followed. A sandbox that asks a person instead answers with its consent page.
import { UsageError } from '../errors.js';

export async function followAutoApproval(url: string): Promise<void> {
  const consent = await fetch(url, { redirect: 'manual' });
  const callback = consent.headers.get('location');
  if (consent.status !== 302 || !callback) {
    await consent.body?.cancel();
    throw new UsageError(`the sandbox did not approve the login by itself (it answered ${consent.status}: a person is asked to approve)`, {
      hint: 'start it with `svc sandbox start --auto-approve`, or log in with `svc auth login` and approve in the browser',
    });
  }
  await (await fetch(callback)).text();
}
