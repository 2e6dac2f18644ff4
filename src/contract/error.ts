// docs/interface-decisions.md#error-bodies: every error body, OAuth and non-OAuth alike.
import * as z from './zod.js';

/** docs/interface-decisions.md#body-size-limit: a request body over this is 413 `payload_too_large` (service and webhook receivers alike). */
export const MAX_BODY_BYTES = 1024 * 1024;

export const ErrorDetail = z.looseObject({
  path: z.string(),
  message: z.string(),
});
export type ErrorDetail = z.infer<typeof ErrorDetail>;

export const ErrorCode = z.enum([
  'invalid_request',
  'validation_failed',
  'unknown_template',
  'invalid_grant',
  'invalid_client',
  'invalid_token',
  'invalid_scope',
  'access_denied',
  'insufficient_scope',
  'grant_not_permitting',
  'not_found',
  'invalid_transition',
  'idempotency_conflict',
  'idempotency_key_reused',
  'issuer_key_missing',
  'payload_too_large',
  'rate_limited',
  'method_not_allowed',
  'misdirected_request',
  'server_error',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** Known codes are listed above; an unknown code from a real service is kept as a string. */
export const ErrorBody = z.looseObject({
  error: z.string(),
  error_description: z.string().optional(),
  timestamp: z.string().optional(),
  details: z.array(ErrorDetail).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  validation_failed: 400,
  unknown_template: 400,
  invalid_grant: 400,
  invalid_scope: 400,
  access_denied: 403,
  invalid_client: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  grant_not_permitting: 403,
  not_found: 404,
  method_not_allowed: 405,
  misdirected_request: 421,
  invalid_transition: 409,
  idempotency_conflict: 409,
  idempotency_key_reused: 409,
  issuer_key_missing: 409,
  payload_too_large: 413,
  rate_limited: 429,
  server_error: 500,
};
