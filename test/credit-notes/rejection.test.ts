// Why a request was rejected, as a merchant types it: kept on this machine only.
import { describe, expect, it } from 'vitest';
import { rejectionReason, reasonProblem } from '../../src/credit-notes/rejection.js';
import { UsageError } from '../../src/errors.js';

describe("a rejection's reason", () => {
  it('is something on one line, at most 1000 characters, trimmed', () => {
    expect(rejectionReason('  worn  ')).toBe('worn');
    expect(reasonProblem('')).toMatch(/say why/);
    expect(reasonProblem('a\nb')).toBe('keep it to one line');
    expect(reasonProblem('x'.repeat(1001))).toBe('at most 1000 characters');
    expect(() => rejectionReason(' ')).toThrow(UsageError);
  });
});
