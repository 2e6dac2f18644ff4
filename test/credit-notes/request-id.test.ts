// Return request IDs as people type them: a unique prefix of 6+ characters; an ambiguous
// one exits 2 naming the candidates; a shorter one is refused; an unknown one is passed on.
import { describe, expect, it } from 'vitest';
import { matchRequestId } from '../../src/credit-notes/request-id.js';
import { UsageError } from '../../src/errors.js';

const KNOWN = ['09161702-aaaa-4bbb-8ccc-000000000001', '09161702-aaab-4bbb-8ccc-000000000002', '7f3e0000-1111-4222-8333-444455556666'];

describe('matchRequestId', () => {
  it('takes a whole ID, and a unique prefix of 6 or more characters', () => {
    expect(matchRequestId(KNOWN[2]!, KNOWN)).toBe(KNOWN[2]);
    expect(matchRequestId('7f3e00', KNOWN)).toBe(KNOWN[2]);
    expect(matchRequestId('09161702-aaab', KNOWN)).toBe(KNOWN[1]);
  });
  it('refuses an ambiguous prefix, naming every candidate (exit 2)', () => {
    const run = () => matchRequestId('09161702', KNOWN);
    expect(run).toThrow(UsageError);
    expect(run).toThrow(`request ID "09161702" is ambiguous: it starts 2 IDs: ${KNOWN[0]}, ${KNOWN[1]}`);
  });
  it('refuses a prefix shorter than 6 characters', () => {
    expect(() => matchRequestId('7f3e', KNOWN)).toThrow('request ID "7f3e" is too short: give the whole ID or at least 6 of its characters');
  });
  it('passes on an ID that matches nothing, for the service to answer', () => {
    expect(matchRequestId('req-404', KNOWN)).toBe('req-404');
  });
});
