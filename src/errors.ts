// Typed errors. Only src/main.ts turns them into exit codes and printed lines; everything
// else throws. Messages never contain secrets: callers pass field names, not values.

export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  cancelled: 3,
  auth: 4,
  forbidden: 5,
  notFound: 6,
  conflict: 7,
  unavailable: 8,
  /** Several items were acted on, some succeeded and some failed (each reported as an element). */
  partial: 9,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class SvcError extends Error {
  readonly exitCode: ExitCode = ExitCode.failure;
  /** One line telling the user what to do next. */
  readonly hint: string | undefined;
  /** What a script reads besides the message (`details` of the JSON error): the fields at fault. */
  readonly fields: readonly { path: string; message: string }[] | undefined;
  constructor(message: string, options: { hint?: string; cause?: unknown; fields?: readonly { path: string; message: string }[] } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
    this.fields = options.fields;
  }
}

/** Bad flags, arguments or input files (exit 2). */
export class UsageError extends SvcError {
  override readonly exitCode = ExitCode.usage;
}

/** Input that failed validation, with the offending field paths (exit 2). */
export class ValidationError extends UsageError {
  readonly issues: readonly { path: string; message: string }[];
  constructor(what: string, issues: readonly { path: string; message: string }[], options: { hint?: string } = {}) {
    super(`${what} is invalid:\n${issues.map((i) => `  ${i.path || '(root)'}: ${i.message}`).join('\n')}`, options);
    this.issues = issues;
  }
}

/** The user said no, pressed Ctrl-C at a prompt, or denied consent (exit 3). */
export class CancelError extends SvcError {
  override readonly exitCode = ExitCode.cancelled;
}

/** No usable credentials (exit 4). */
export class AuthError extends SvcError {
  override readonly exitCode = ExitCode.auth;
}

/** A local object that does not exist (exit 6). */
export class NotFoundError extends SvcError {
  override readonly exitCode = ExitCode.notFound;
}

/**
 * Some of several items failed, each reported already (a stderr line, a JSON element): the
 * partial-result contract. When every item failed, the exit code is their common one (or 1
 * when they differ), as for a single item; when some succeeded it is 9, "partly failed".
 */
export class PartialFailureError extends SvcError {
  override readonly exitCode: ExitCode;
  constructor(message: string, failures: readonly unknown[], total: number, options: { hint?: string | undefined } = {}) {
    super(message, options.hint === undefined ? {} : { hint: options.hint });
    this.exitCode = partialExitCode(failures.map(exitCodeOf), total);
  }
}

/** The exit code of several items of which `codes.length` (out of `total`) failed with these codes. */
export function partialExitCode(codes: readonly ExitCode[], total: number): ExitCode {
  if (codes.length === 0) return ExitCode.ok;
  if (codes.length < total) return ExitCode.partial;
  const common = new Set(codes);
  return common.size === 1 ? codes[0]! : ExitCode.failure;
}

/**
 * halt_error in a `--jq` filter: the script's own way out, so its message is printed as jq
 * prints it (no "error:", no JSON) and its status is the exit code, as jq's, whatever it is.
 */
export class JqHaltError extends SvcError {
  override readonly exitCode: ExitCode;
  constructor(message: string, status: number) {
    super(message);
    // Not one of svc's codes: the filter's author chose it.
    this.exitCode = status as ExitCode;
  }
}

/**
 * A failure the command has told already in its own format (`webhook listen --log-format
 * json` logs it as a JSON line with the rest): printed nothing more, exits with its code.
 */
export class ReportedError extends SvcError {
  override readonly exitCode: ExitCode;
  constructor(readonly reported: unknown) {
    super(reported instanceof Error ? reported.message : String(reported), { cause: reported });
    this.exitCode = exitCodeOf(reported);
  }
}

/** Something else holds what this needs, or already did it differently (exit 7). */
export class ConflictError extends SvcError {
  override readonly exitCode = ExitCode.conflict;
}

/** Network failure, or 5xx/429 after the retry budget was spent (exit 8). */
export class UnavailableError extends SvcError {
  override readonly exitCode = ExitCode.unavailable;
}

/**
 * The service's TLS certificate cannot be accepted (untrusted issuer, expired, another name,
 * no common protocol): exit 1, not 8, since trying again changes nothing.
 */
export class CertificateError extends SvcError {}

/** A proxy refused to carry the request (407: it wants credentials): exit 1, trying again changes nothing. */
export class ProxyError extends SvcError {}

/** The keychain or the secret file cannot be used (a file that cannot be read or written: exit 1). */
export class SecretStoreError extends SvcError {}

/**
 * No OS keychain works on this machine (no Secret Service, no D-Bus, the module will not
 * load): exit 2, as for the other settings this machine cannot honour, since the way out is a
 * setting (SVC_SECRET_STORE=file) the message names, and trying again changes nothing.
 */
export class NoKeychainError extends SecretStoreError {
  override readonly exitCode = ExitCode.usage;
}

/**
 * Any failure to decrypt: wrong key, bad tag, bad Base64, short input. Never carries plaintext.
 * Exit 4: what opens a return request is a private key, a credential like the others
 * (SVC_PRIVATE_KEY_FILE), and the one it was encrypted for is not here.
 */
export class DecryptError extends SvcError {
  override readonly exitCode = ExitCode.auth;
  constructor(reason = 'cannot decrypt', options: { hint?: string } = {}) {
    super(reason, options);
  }
}

/**
 * The item names the public key it was encrypted for, and no private key held belongs to it:
 * a key generated since the keys were loaded may be in the store now.
 */
export class MissingKeyError extends DecryptError {
  /** The fingerprint (docs/interface-decisions.md#key-fingerprints) of the item's public key. */
  readonly keyId: string;
  constructor(keyId: string) {
    super(`cannot decrypt: no private key matches the item's public key ${keyId}`);
    this.keyId = keyId;
  }
}

export interface ApiErrorInit {
  status: number;
  code: string;
  description?: string | undefined;
  retryAfterMs?: number | undefined;
  details?: readonly { path: string; message: string }[] | undefined;
  method?: string;
  path?: string;
  /** How many times the request was sent, when more than once (the message says so). */
  attempts?: number;
}

/** A non-2xx answer from the service, decoded from the contract error body. */
export class ApiError extends SvcError {
  readonly status: number;
  readonly code: string;
  readonly description: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly details: readonly { path: string; message: string }[];
  override readonly exitCode: ExitCode;
  constructor(init: ApiErrorInit) {
    const request = init.method && init.path ? `${init.method} ${init.path}` : undefined;
    // Named once: a service's message may already name the request ("no route matches GET /nope").
    const where = request === undefined || init.description?.includes(request) ? '' : ` (${request})`;
    const detailLines = (init.details ?? []).map((d) => `\n  ${d.path || '(root)'}: ${d.message}`).join('');
    // A clause of its own: a description may end in words of time ("retry after 1 s").
    const tries = init.attempts !== undefined && init.attempts > 1 ? `; gave up after ${init.attempts} attempts` : '';
    super(`${init.description ?? init.code}${tries}${where} [${init.status} ${init.code}]${detailLines}`, {
      hint: hintFor(init.status, init.code),
    });
    this.status = init.status;
    this.code = init.code;
    this.description = init.description;
    this.retryAfterMs = init.retryAfterMs;
    this.details = init.details ?? [];
    this.exitCode = exitCodeForStatus(init.status, init.code);
  }
}

export function exitCodeForStatus(status: number, code?: string): ExitCode {
  if (code === 'invalid_client' || code === 'invalid_token' || status === 401) return ExitCode.auth;
  if (status === 403) return ExitCode.forbidden;
  if (status === 404) return ExitCode.notFound;
  if (status === 409) return ExitCode.conflict;
  if (status === 429 || status >= 500) return ExitCode.unavailable;
  if (status === 400 || status === 413 || status === 422) return ExitCode.usage;
  return ExitCode.failure;
}

function hintFor(status: number, code: string): string | undefined {
  if (code === 'invalid_grant' || code === 'invalid_token' || code === 'invalid_client' || status === 401)
    return 'run `svc auth login`';
  if (status === 403) return 'check the Grants\' scopes and stores with `svc grants list --details`';
  if (status === 429) return 'the service is rate limiting: wait and try again';
  return undefined;
}

/** Exit code for anything thrown; unknown errors are plain failures. */
export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof SvcError ? error.exitCode : ExitCode.failure;
}

/** An error as a script reads it (`--json`, batch results): `{ code, message, hint, exitCode, details }` (docs/interface-decisions.md#json-errors). */
export interface ErrorReport {
  code: string;
  message: string;
  hint: string | null;
  exitCode: ExitCode;
  details: readonly { path: string; message: string }[] | null;
}

const CODE_OF_EXIT: Record<ExitCode, string> = {
  [ExitCode.ok]: 'ok',
  [ExitCode.failure]: 'failed',
  [ExitCode.usage]: 'usage',
  [ExitCode.cancelled]: 'cancelled',
  [ExitCode.auth]: 'authentication_required',
  [ExitCode.forbidden]: 'forbidden',
  [ExitCode.notFound]: 'not_found',
  [ExitCode.conflict]: 'conflict',
  [ExitCode.unavailable]: 'unavailable',
  [ExitCode.partial]: 'partly_failed',
};

export function errorReport(error: unknown): ErrorReport {
  if (error instanceof ApiError) {
    return { code: error.code, message: error.message, hint: error.hint ?? null, exitCode: error.exitCode, details: error.details.length > 0 ? error.details : null };
  }
  if (error instanceof ValidationError) return { code: 'validation_failed', message: error.message.split('\n')[0] ?? error.message, hint: error.hint ?? null, exitCode: error.exitCode, details: error.issues };
  if (error instanceof SvcError) return { code: CODE_OF_EXIT[error.exitCode], message: error.message, hint: error.hint ?? null, exitCode: error.exitCode, details: error.fields ?? null };
  return { code: 'internal', message: `unexpected failure: ${error instanceof Error ? error.message : String(error)}`, hint: 'run again with --debug for details', exitCode: ExitCode.failure, details: null };
}
