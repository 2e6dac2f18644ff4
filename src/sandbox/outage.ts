// `svc sandbox trigger outage`: the next N requests to the service's API are answered 503
// `server_error` with a Retry-After, as a service restarting or a load balancer between
// deployments answers, so that an integration's retries can be seen working (or not) on
// this machine. Only the API: the sandbox's own endpoints (/sandbox/...), the consent page and
// the OpenAPI document keep answering. It wraps the router outside the rate limit, so an
// answer that is a 503 draws no token; it is not kept across restarts.
import { OutageRequest } from '../contract/sandbox.js';
import type { Sandbox } from './context.js';
import { HttpError, json, wrapHandlers, type Router } from './router.js';
import { defineSlice } from './state.js';

const DEFAULT_RETRY_AFTER_SECONDS = 1;

const outage = defineSlice('outage', () => ({ requests: 0, retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS }), { persist: false });

/** Paths an outage leaves answering: the sandbox's own, the consent page, the document. */
function spared(path: string): boolean {
  return path.startsWith('/sandbox/') || path === '/openapi.json' || path.startsWith('/oauth2/authorize');
}

/** The router, with each API handler answering 503 while an outage lasts. */
export function withOutage(router: Router, sandbox: Sandbox): Router {
  return wrapHandlers(router, (handler) => (req) => {
    const state = sandbox.state.slice(outage);
    if (state.requests > 0 && !spared(req.path)) {
      state.requests -= 1;
      sandbox.log(`outage: ${req.method} ${req.path} answered 503 (${state.requests} more to come)`);
      throw new HttpError('server_error', `the service is unavailable for a moment (sandbox trigger outage); retry after ${state.retryAfterSeconds} s`, {
        status: 503,
        headers: { 'Retry-After': String(state.retryAfterSeconds) },
      });
    }
    return handler(req);
  });
}

export function register(router: Router, sandbox: Sandbox): void {
  router.post('/sandbox/outage', { body: OutageRequest }, (req) => {
    const state = sandbox.state.slice(outage);
    state.requests = req.body.requests;
    state.retryAfterSeconds = req.body.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
    sandbox.log(`outage: the next ${state.requests} API requests are answered 503, Retry-After ${state.retryAfterSeconds} s`);
    return json(200, { requests: state.requests, retryAfterSeconds: state.retryAfterSeconds });
  });
}
