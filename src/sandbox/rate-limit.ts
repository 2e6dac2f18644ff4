// Rate limiting (docs/interface-decisions.md#limits: 429, callers back off and retry; docs/interface-decisions.md#rate-limits-in-the-sandbox): a
// token bucket per client application and company, that is per Grant (or per company for
// API-key calls), so that a platform acting for thousands of companies is limited per
// company and not starved as a whole. Refilled by the sandbox clock so tests can drain and
// refill it deterministically; time the clock takes back (`clock reset`, a restart with
// another offset) refills nothing and costs nothing. It wraps the router, so every route
// group is covered without a line of its own.
import type { Sandbox } from './context.js';
import { findAccessToken, findGrant } from './grants.js';
import { presentedBearer } from './guard.js';
import { HttpError, wrapHandlers, type RouteRequest, type Router } from './router.js';
import { defineSlice } from './state.js';

export interface RateLimitOptions {
  /** Requests a client may make in one burst. */
  capacity: number;
  /** Requests per second the bucket refills by. */
  refillPerSecond: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { capacity: 100, refillPerSecond: 50 };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const buckets = defineSlice('rateLimitBuckets', () => new Map<string, Bucket>(), { persist: false });

/** The router, with each handler preceded by a draw from its client's bucket. */
export function withRateLimit(router: Router, sandbox: Sandbox, options: RateLimitOptions = DEFAULT_RATE_LIMIT): Router {
  if (!(options.capacity >= 1) || !(options.refillPerSecond > 0))
    throw new RangeError('a rate limit needs a capacity of at least 1 and a positive refill rate');
  return wrapHandlers(router, (handler) => (req) => {
    const client = clientOf(sandbox, req);
    if (client !== undefined) draw(sandbox, options, client);
    return handler(req);
  });
}

function draw(sandbox: Sandbox, { capacity, refillPerSecond }: RateLimitOptions, client: string): void {
  const all = sandbox.state.slice(buckets);
  const now = sandbox.clock.now();
  const bucket = all.get(client) ?? { tokens: capacity, updatedAt: now };
  // Never negative: a clock set back would otherwise take an hour of refill back with it.
  const elapsedMs = Math.max(0, now - bucket.updatedAt);
  bucket.tokens = Math.min(capacity, bucket.tokens + (elapsedMs / 1000) * refillPerSecond);
  bucket.updatedAt = now;
  all.set(client, bucket);
  if (bucket.tokens < 1) {
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerSecond));
    throw new HttpError('rate_limited', `too many requests from ${client}; retry after ${retryAfter} s`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  bucket.tokens -= 1;
}

/**
 * Who is asking, as far as the request says: the client application and company of a
 * bearer token's Grant, or of the Grant a token request names; the company of an API key;
 * else the client application named by `client_id` (a code exchange, before any Grant).
 * Anonymous requests and unknown tokens are not counted: they are refused without doing
 * any work.
 */
function clientOf(sandbox: Sandbox, req: RouteRequest<any, any, any>): string | undefined {
  const bearer = presentedBearer(req);
  const token = bearer === undefined ? undefined : findAccessToken(sandbox, bearer);
  const grant = token && findGrant(sandbox, token.grantId);
  if (grant) return `client ${grant.clientId} company ${grant.companyId}`;
  const apiKey = req.headers['x-api-key'];
  const companyId = typeof apiKey === 'string' ? sandbox.state.apiKeys.get(apiKey) : undefined;
  if (companyId !== undefined) return `company ${companyId}`;
  const named = member(req, 'client_id');
  if (named === undefined) return undefined;
  const grantId = member(req, 'grant_id');
  const namedGrant = grantId === undefined ? undefined : findGrant(sandbox, grantId);
  return namedGrant?.clientId === named ? `client ${named} company ${namedGrant.companyId}` : `client ${named}`;
}

/** A non-empty string member of the body (JSON or form) or of the query. */
function member(req: RouteRequest<any, any, any>, name: string): string | undefined {
  const body: unknown = req.body;
  const value = typeof body === 'object' && body !== null && name in body ? (body as Record<string, unknown>)[name] : req.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
