// The browser of a sandbox started with --auto-approve (`svc sandbox login`, `svc demo`):
// GETting the authorization URL answers with the redirect that carries the code. A sandbox
// that asks a person instead answers with its consent page (200); one that refuses the
// request itself (an unregistered redirect URI, an unknown client) with an error page (400).
import { CancelError, AuthError, UnavailableError, UsageError } from '../errors.js';
import { printable } from '../io/printable.js';
import type { OAuthState } from './state.js';

/** The demo's browser: follows the redirect to svc's own loopback listener. */
export async function followAutoApproval(url: string): Promise<void> {
  const callback = await approvedRedirect(url);
  await (await fetch(callback)).text();
}

/**
 * `svc sandbox login`: the code read straight from the sandbox's redirect, checked against
 * this login's state, without listening anywhere. So no port is held (any number of logins
 * run at once, in any profiles) and a login that hangs blocks no other.
 */
export async function codeFromAutoApproval(url: string, redirectUri: string, state: OAuthState, timeoutMs: number): Promise<string> {
  const callback = new URL(await approvedRedirect(url, timeoutMs));
  const expected = new URL(redirectUri);
  if (callback.origin !== expected.origin || callback.pathname !== expected.pathname) {
    throw new AuthError('the sandbox redirected somewhere other than the redirect URI of this login', { hint: 'check `svc config get redirect-uri` and the sandbox fixture\'s redirectUris' });
  }
  const params = callback.searchParams;
  if (!state.consume(params.get('state'))) throw new AuthError('the sandbox answered with a state that is not this login\'s', { hint: 'run `svc sandbox login` again' });
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

/** The Location of the sandbox's approval, or the error its answer gives cause for. */
async function approvedRedirect(url: string, timeoutMs?: number): Promise<string> {
  let consent: Response;
  try {
    consent = await fetch(url, { redirect: 'manual', ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }) });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw new UnavailableError(timedOut ? `the sandbox at ${new URL(url).origin} did not answer the authorization request within ${Math.round((timeoutMs ?? 0) / 1000)} s` : `cannot reach the sandbox at ${new URL(url).origin}`, {
      hint: 'check that it runs (`svc sandbox start --auto-approve`), or pass --timeout SECONDS',
      cause: error,
    });
  }
  const callback = consent.headers.get('location');
  if (consent.status === 302 && callback) {
    await consent.body?.cancel();
    return callback;
  }
  if (consent.status >= 400) {
    // The sandbox's error page: a title and one line saying what it refused.
    const page = await consent.text();
    const text = (tag: string) => printable((new RegExp(`<${tag}[^>]*>([^<]*)</${tag}>`).exec(page)?.[1] ?? '').replace(/&quot;|&#0?34;/g, '"').replace(/&#0?39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')).slice(0, 300);
    const title = text('h1');
    const unregistered = /redirect uri/i.test(title);
    throw new UsageError(`the sandbox refused the authorization request (${consent.status}${title ? `: ${title}` : ''})${text('p') ? `: ${text('p')}` : ''}`, {
      hint: unregistered
        ? 'the sandbox accepts only the redirect URIs its fixture registers: leave out --port, or register that URI (`svc config get redirect-uri` shows the one used)'
        : 'check the client ID and the sandbox fixture (`svc config list`)',
    });
  }
  await consent.body?.cancel();
  throw new UsageError(`the sandbox did not approve the login by itself (it answered ${consent.status}: a person is asked to approve)`, {
    hint: 'start it with `svc sandbox start --auto-approve`, or log in with `svc auth login` and approve in the browser',
  });
}
