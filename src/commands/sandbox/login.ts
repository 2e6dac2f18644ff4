// `svc sandbox login`: CI's login in one step. The real grant flow (PKCE, state, the code
// exchanged with the client secret) against a sandbox started with --auto-approve, which
// approves at once; its redirect is read directly instead of through a loopback listener,
// so no port is bound and logins in parallel (CI jobs, profiles) never collide. Refused
// against anything that is not a sandbox.
import { ApiError, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { login } from '../auth/login.js';

export interface SandboxLoginOptions {
  port?: string | undefined;
  timeout: string;
  scopes?: string | undefined;
  clientId?: string | undefined;
}

export async function run(opts: SandboxLoginOptions, f: Factory): Promise<void> {
  const api = await f.api();
  try {
    await api.requestRaw({ method: 'GET', path: '/sandbox/health', retry: false });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new UsageError(`${api.baseUrl} is not a svc sandbox (GET /sandbox/health answered ${error.status}): sandbox login approves by itself only there`, {
      hint: 'for a real service use `svc auth login`; for a sandbox, check --base-url / SVC_BASE_URL',
    });
  }
  await login({ flow: 'grant', browser: true, timeout: opts.timeout, port: opts.port, scopes: opts.scopes, clientId: opts.clientId }, f, { autoApprove: true });
}
