// The hint for an invalid_grant that is not a revocation: a local sandbox started without
// --state (or reset) forgets every Grant, and each command then fails with "the service
// refused Grant …". When the base URL is loopback and its `/sandbox/health` says the state
// it holds began after this Grant was saved, the hint says so and how to log in again.
import { isLoopbackHost } from '../config/base-url.js';
import { SandboxHealth } from '../contract/sandbox.js';
import type { Factory } from '../factory.js';

/**
 * What to say instead of "revoked, or belongs to another client", when a local sandbox forgot
 * a Grant this profile saved at `savedAt`: only when its state began after that, which is what
 * shows a restart (a Grant never saved here could as well never have existed).
 */
export async function sandboxRestartHint(f: Factory, grantId: string, savedAt: string): Promise<{ message: string; hint: string } | undefined> {
  try {
    const api = await f.api();
    if (!isLoopbackHost(new URL(api.baseUrl).hostname)) return undefined;
    const health = await api.request({ method: 'GET', path: '/sandbox/health', schema: SandboxHealth, retry: false });
    const since = health.stateSince ?? health.startedAt;
    if (!(Date.parse(since) > Date.parse(savedAt))) return undefined;
    return {
      message: `the sandbox at ${api.baseUrl} no longer knows Grant ${grantId}: it holds data only since ${since}, after this Grant was saved (${savedAt}), so it was restarted without --state, or reset (invalid_grant)`,
      hint: [
        'log in again in one step: `svc sandbox login` (a sandbox started with --auto-approve), or `svc auth login`.',
        'A sandbox started with `--state DIR` (the default on a fixed port) keeps its Grants across restarts.',
      ].join(' '),
    };
  } catch {
    return undefined;
  }
}
