// Why a request was rejected, as a merchant types it, and where it is said to be kept: in the
// profile's ledger, which is this machine's or the team's database.
import { describe, expect, it } from 'vitest';
import { reasonsKeptWhere, rejectedWhen, rejectionReason, reasonProblem } from '../../src/credit-notes/rejection.js';
import { createFactory } from '../../src/factory.js';
import { fixedClock } from '../../src/clock.js';
import { memoryConfigStore } from '../../src/config/store.js';
import { testStreams } from '../../src/io/test-streams.js';
import { memorySecretStore } from '../../src/secrets/store.js';
import { UsageError } from '../../src/errors.js';

function factory(env: Record<string, string>, profile: Record<string, string> = {}) {
  return createFactory({
    env,
    globals: { profile: 'shop', json: false, input: false, debug: false, color: false },
    io: testStreams().io,
    clock: fixedClock(0),
    config: memoryConfigStore({ shop: { baseUrl: 'https://svc.test', ...profile } }),
    secrets: memorySecretStore(),
  });
}

describe("a rejection's reason", () => {
  it('is something on one line, at most 1000 characters, trimmed', () => {
    expect(rejectionReason('  worn  ')).toBe('worn');
    expect(reasonProblem('')).toMatch(/say why/);
    expect(reasonProblem('a\nb')).toBe('keep it to one line');
    expect(reasonProblem('x'.repeat(1001))).toBe('at most 1000 characters');
    expect(() => rejectionReason(' ')).toThrow(UsageError);
  });

  it("is said to be kept where the ledger is: this machine, or the team's database (SVC_DATABASE_URL, or the profile's database-url)", async () => {
    expect(await reasonsKeptWhere(factory({}))).toBe('on this machine only');
    expect(await reasonsKeptWhere(factory({ SVC_DATABASE_URL: 'postgres://svc@db.example:5432/svc' }))).toBe("in the team's database");
    expect(await reasonsKeptWhere(factory({}, { databaseUrl: 'postgres://svc@db.example:5432/svc' }))).toBe("in the team's database");
  });

  it('reads with when it was rejected and, when recorded, by whom', () => {
    expect(rejectedWhen({ reason: 'worn', rejectedAt: '2026-03-14T14:52:00.000Z', rejectedBy: 'ann@desk-1' }, 'UTC')).toBe('rejected 2026-03-14 14:52 UTC by ann@desk-1');
    expect(rejectedWhen({ reason: 'worn', rejectedAt: '2026-03-14T14:52:00.000Z' }, 'UTC')).toBe('rejected 2026-03-14 14:52 UTC');
  });
});
