import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthError,
  CancelError,
  DecryptError,
  ExitCode,
  NotFoundError,
  SvcError,
  UnavailableError,
  UsageError,
  ValidationError,
  exitCodeForStatus,
  exitCodeOf,
} from '../src/errors.js';

describe('exit codes (docs/interface-decisions.md#exit-codes)', () => {
  it.each([
    [new UsageError('x'), 2],
    [new ValidationError('file', [{ path: 'a.b', message: 'bad' }]), 2],
    [new CancelError('x'), 3],
    [new AuthError('x'), 4],
    [new NotFoundError('x'), 6],
    [new UnavailableError('x'), 8],
    [new DecryptError(), 4],
    [new SvcError('x'), 1],
    [new Error('plain'), 1],
    ['a string', 1],
  ])('%s → %i', (error, code) => {
    expect(exitCodeOf(error)).toBe(code);
  });

  it.each([
    [400, 'validation_failed', ExitCode.usage],
    [400, 'invalid_grant', ExitCode.usage],
    [401, 'invalid_token', ExitCode.auth],
    [401, 'invalid_client', ExitCode.auth],
    [403, 'insufficient_scope', ExitCode.forbidden],
    [403, 'grant_not_permitting', ExitCode.forbidden],
    [404, 'not_found', ExitCode.notFound],
    [409, 'invalid_transition', ExitCode.conflict],
    [413, 'payload_too_large', ExitCode.usage],
    [429, 'rate_limited', ExitCode.unavailable],
    [500, 'server_error', ExitCode.unavailable],
    [503, 'http_503', ExitCode.unavailable],
    [418, 'teapot', ExitCode.failure],
  ])('HTTP %i %s → %i', (status, code, exit) => {
    expect(exitCodeForStatus(status, code)).toBe(exit);
    expect(new ApiError({ status, code }).exitCode).toBe(exit);
  });

  it('invalid_client from a token endpoint means authentication is needed even on a 400', () => {
    expect(exitCodeForStatus(400, 'invalid_client')).toBe(ExitCode.auth);
  });

  it('an API error names the operation, the code and the field details, and hints at login on 401', () => {
    const e = new ApiError({
      status: 400,
      code: 'validation_failed',
      description: 'request is invalid',
      method: 'POST',
      path: '/receipt/template',
      details: [{ path: 'products.0.unitCode', message: 'unknown unit code' }],
    });
    expect(e.message).toBe('request is invalid (POST /receipt/template) [400 validation_failed]\n  products.0.unitCode: unknown unit code');
    expect(new ApiError({ status: 401, code: 'invalid_token' }).hint).toMatch(/svc auth login/);
  });

  it('hints at a 403 with a command that runs as written (`grants show` needs a GRANT_ID)', () => {
    for (const code of ['insufficient_scope', 'grant_not_permitting']) {
      expect(new ApiError({ status: 403, code }).hint).toBe("check the Grants' scopes and stores with `svc grants list --details`");
    }
  });

  it('a validation error lists each field path', () => {
    const e = new ValidationError('receipt.json', [
      { path: 'totalTaxAmount', message: 'must equal the sum of taxes' },
      { path: '', message: 'root problem' },
    ]);
    expect(e.message).toContain('  totalTaxAmount: must equal the sum of taxes');
    expect(e.message).toContain('  (root): root problem');
  });
});

describe('partialExitCode: the partial-result contract', () => {
  it('is 0 with no failure, 9 when some succeeded, the common code when all failed, else 1', async () => {
    const { partialExitCode, ExitCode } = await import('../src/errors.js');
    expect(partialExitCode([], 3)).toBe(ExitCode.ok);
    expect(partialExitCode([ExitCode.notFound], 3)).toBe(9);
    expect(partialExitCode([ExitCode.notFound, ExitCode.notFound], 2)).toBe(ExitCode.notFound);
    expect(partialExitCode([ExitCode.notFound, ExitCode.conflict], 2)).toBe(ExitCode.failure);
  });
});
