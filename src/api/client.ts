// PLACEHOLDER: the HTTP client is being written (issue 2, part 6).
import type { ZodType } from 'zod';
import type { Clock } from '../clock.js';
import type { IOStreams } from '../io/streams.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Supplies bearer tokens; on a 401 the client calls `invalidate` and retries once with a new token. */
export interface TokenSource {
  token(): Promise<string>;
  invalidate(): Promise<void>;
}

export interface RequestOptions<T> {
  method: Method;
  /** Path below the base URL, starting with "/". */
  path: string;
  query?: Record<string, string | undefined>;
  /** JSON body. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Validates (and types) the 2xx response body. */
  schema?: ZodType<T>;
  /** Bearer token, or a source that can renew it after a 401. */
  auth?: string | TokenSource;
  /** Sent as Idempotency-Key; also makes a POST safe to retry. */
  idempotencyKey?: string;
  /** Override whether 5xx/connection failures are retried (default: GET/PUT/DELETE, or with idempotencyKey). */
  retry?: boolean;
}

export interface ApiClient {
  readonly baseUrl: string;
  request<T = unknown>(opts: RequestOptions<T>): Promise<T>;
  close(): Promise<void>;
}

export interface ApiClientOptions {
  baseUrl: string;
  io: IOStreams;
  debug: boolean;
  clock: Clock;
}

export function createApiClient(_opts: ApiClientOptions): ApiClient {
  throw new Error('not yet implemented');
}
