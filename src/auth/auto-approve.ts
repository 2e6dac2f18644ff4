// The browser of a sandbox started with --auto-approve (`svc sandbox login`, `svc demo`):
// GETting the authorization URL answers with the redirect that carries the code. A sandbox
// that asks a person instead answers with its consent page (200); one that refuses the
// request itself (an unregistered redirect URI, an unknown client) with an error page (400).
// The requests go through svc's own HTTP client (`clientAt`, the factory's apiAt): its
// timeouts, retries of a 503 or a reset, and proxies.
import type { ApiClient } from '../api/client.js';
import { AuthError, CancelError, UsageError } from '../errors.js';
import { printable } from '../io/printable.js';
import type { OAuthState } from './state.js';

type ClientAt = (origin: string) => Promise<ApiClient>;

/** The demo's browser: follows the redirect to svc's own loopback listener. */
export async function followAutoApproval(url: string, clientAt: ClientAt): Promise<void> {
  const callbackUrl = new URL(await approvedRedirect(url, clientAt));
  // The code is for one use: a lost answer is not asked again (the listener has it, or times out).
  const listener = await clientAt(callbackUrl.origin);
  await listener.requestRaw({ method: 'GET', path: `${callbackUrl.pathname}${callbackUrl.search}`, retry: false, redirect: 'manual' });
}

/**
 * `svc sandbox login`: the code read straight from the sandbox's redirect, checked against
 * this login's state, without listening anywhere. So no port is held (any number of logins
 * run at once, in any profiles) and a login that hangs blocks no other.
 */
export async function codeFromAutoApproval(url: string, redirectUri: string, state: OAuthState, clientAt: ClientAt): Promise<string> {
  const callback = new URL(await approvedRedirect(url, clientAt));
  const expected = new URL(redirectUri);
  if (callback.origin !== expected.origin || callback.pathname !== expected.pathname) {
    throw new AuthError('the sandbox redirected somewhere other than the redirect URI of this login', { hint: "check `svc config get redirect-uri` and the sandbox fixture's redirectUris" });
  }
  const params = callback.searchParams;
  if (!state.consume(params.get('state'))) throw new AuthError("the sandbox answered with a state that is not this login's", { hint: 'run `svc sandbox login` again' });
  const error = params.get('error');
  if (error === 'access_denied') throw new CancelError('the sandbox denied the authorization', { hint: 'run `svc sandbox login` again' });
  if (error !== null) {
    const shown = error.replace(/[^\w.-]/g, '').slice(0, 64) || 'unknown';
    const description = printable((params.get('error_description') ?? '').slice(0, 200));
    throw new AuthError(`authorization failed: ${shown}${description ? ` (${description})` : ''}`, { hint: 'check the client ID and scopes (`svc config list`), then run `svc sandbox login` again' });
  }
  const code = params.get('code');
  if (!code) throw new AuthError('the sandbox redirected without an authorization code', { hint: 'run `svc sandbox login` again' });
  return code;
}

/** The Location of the sandbox's approval (absolute), or the error its answer gives cause for. */
async function approvedRedirect(url: string, clientAt: ClientAt): Promise<string> {
  const consentUrl = new URL(url);
  const sandbox = await clientAt(consentUrl.origin);
  const consent = await sandbox.requestRaw({ method: 'GET', path: `${consentUrl.pathname}${consentUrl.search}`, redirect: 'manual', accept: 'text/html', clientErrors: 'return' });
  if (consent.status >= 400 && consent.status < 500) throw refusal(consent.status, consent.body.toString('utf8'));
  const location = consent.headers.location;
  const callback = Array.isArray(location) ? location[0] : location;
  if (consent.status !== 302 || !callback) {
    throw new UsageError(`the sandbox did not approve the login by itself (it answered ${consent.status}: a person is asked to approve)`, {
      hint: 'start it with `svc sandbox start --auto-approve`, or log in with `svc auth login` and approve in the browser',
    });
  }
  return new URL(callback, consentUrl).href;
}

/**
 * The sandbox refused the authorization request itself: its error page says why (its title
 * and first line). The page comes with the answer, through the one client (its proxy and
 * certificate authorities), not from a second request.
 */
function refusal(status: number, page: string): UsageError {
  const text = (tag: string) =>
    printable((new RegExp(`<${tag}[^>]*>([^<]*)</${tag}>`).exec(page)?.[1] ?? '').replace(/&quot;|&#0?34;/g, '"').replace(/&#0?39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')).slice(0, 300);
  const title = text('h1');
  const reason = text('p');
  return new UsageError(`the sandbox refused the authorization request (${status}${title ? `: ${title}` : ''})${reason ? `: ${reason}` : ''}`, {
    hint: /redirect uri/i.test(title)
      ? 'the sandbox accepts only the redirect URIs its fixture registers: leave out --port, or register that URI (`svc config get redirect-uri` shows the one used)'
      : 'check the client ID and the sandbox fixture (`svc config list`)',
  });
}
