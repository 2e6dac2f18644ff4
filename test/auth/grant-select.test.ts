import { describe, expect, it } from 'vitest';
import { selectGrant, type GrantEntry } from '../../src/auth/grant-select.js';
import { ExitCode, NotFoundError, UsageError } from '../../src/errors.js';

const entries: GrantEntry[] = [
  { id: '18ab298c-5e74-4288-bd90-23e5c7d03593', companyId: 'c1', company: 'Example Retail Ltd', taxId: 'EU000000001' },
  { id: '6e28215e-0d32-43d1-a678-2271b8e5f684', companyId: 'c2', company: 'Sample Foods GmbH', taxId: 'EU000000002' },
  { id: '6e2899aa-0000-4000-8000-000000000003', companyId: 'c3', company: 'Sample Foods GmbH Berlin', taxId: 'DE 123' },
];

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

describe('a Grant selector', () => {
  it('takes a whole ID, a unique prefix of 6+, an exact tax ID (any case, spaces aside) or a unique part of the name', () => {
    expect(selectGrant('6e28215e-0d32-43d1-a678-2271b8e5f684', entries)).toBe(entries[1]!.id);
    expect(selectGrant('18ab29', entries)).toBe(entries[0]!.id);
    expect(selectGrant('eu000000002', entries)).toBe(entries[1]!.id);
    expect(selectGrant('de123', entries)).toBe(entries[2]!.id);
    expect(selectGrant('retail', entries)).toBe(entries[0]!.id);
    expect(selectGrant('berlin', entries)).toBe(entries[2]!.id);
  });

  it('prefers an exact legal name to a part of another', () => {
    expect(selectGrant('sample foods gmbh', entries)).toBe(entries[1]!.id);
  });

  it('names every candidate with its company when it fits several (exit 2)', () => {
    const error = thrown(() => selectGrant('6e28', [...entries, { id: 'x', companyId: 'c', company: 'Other', taxId: 'T' }]));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/too short/);
    const several = thrown(() => selectGrant('sample', entries, { from: '--grant' })) as UsageError;
    expect(several.exitCode).toBe(ExitCode.usage);
    expect(several.message).toContain('"sample" (--grant) fits 2 companies');
    expect(several.message).toContain('6e28215e-0d32-43d1-a678-2271b8e5f684  Sample Foods GmbH (EU000000002)');
    expect(several.message).toContain('Sample Foods GmbH Berlin (DE 123)');
    const prefix = thrown(() => selectGrant('6e2821', [...entries, { ...entries[1]!, id: '6e2821ff-0000-4000-8000-000000000009' }])) as UsageError;
    expect(prefix.message).toContain('fits 2 companies');
  });

  it('names at most 10 candidates and counts the rest', () => {
    const many = Array.from({ length: 13 }, (_, i) => ({ id: `g${i}`, companyId: `c${i}`, company: `Clone ${i} Ltd`, taxId: `T${i}` }));
    const error = thrown(() => selectGrant('clone', many)) as UsageError;
    expect(error.message.split('\n').filter((l) => l.startsWith('  g'))).toHaveLength(10);
    expect(error.message).toContain('and 3 more');
  });

  it('fits nothing: not found (exit 6), or passed on when it looks like an ID or comes from SVC_GRANT_ID', () => {
    expect(thrown(() => selectGrant('acme', entries))).toBeInstanceOf(NotFoundError);
    expect(selectGrant('acme', entries, { passUnknown: true })).toBe('acme');
    expect(selectGrant('aaaaaaaa-0000-4000-8000-000000000000', entries)).toBe('aaaaaaaa-0000-4000-8000-000000000000');
    expect(selectGrant('anything', [])).toBe('anything');
  });
});
