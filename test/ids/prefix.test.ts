// One rule for every ID a person types: whole, or a unique prefix of 6+ characters; too
// short or ambiguous is a usage error (exit 2) naming the candidates; no match is passed on.
import { describe, expect, it } from 'vitest';
import { UsageError, exitCodeOf } from '../../src/errors.js';
import { GRANT_IDS, KEY_IDS } from '../../src/ids/kinds.js';
import { matchPrefix } from '../../src/ids/prefix.js';

const GRANTS = ['5b1e0c7a-0000-4000-8000-000000000001', '5b1e0c7a-0000-4000-8000-000000000002', 'c0ffee00-1111-4222-8333-444455556666'];

describe('matchPrefix', () => {
  it('takes the whole ID and a unique prefix of 6 or more characters, in any case', () => {
    expect(matchPrefix(GRANTS[2]!, GRANTS, GRANT_IDS)).toBe(GRANTS[2]);
    expect(matchPrefix(' c0ffee ', GRANTS, GRANT_IDS)).toBe(GRANTS[2]);
    expect(matchPrefix('C0FFEE00', GRANTS, GRANT_IDS)).toBe(GRANTS[2]);
  });

  it('an empty ID (a variable the command before failed to set) is said to be empty, exit 2, not "too short"', () => {
    for (const empty of ['', '  ']) {
      const run = () => matchPrefix(empty, GRANTS, GRANT_IDS);
      expect(run).toThrow(UsageError);
      expect(run).toThrow('the Grant is empty');
    }
  });

  it('refuses an ambiguous prefix with exit 2, naming every candidate', () => {
    const run = () => matchPrefix('5b1e0c7a', GRANTS, GRANT_IDS);
    expect(run).toThrow(UsageError);
    expect(run).toThrow(`Grant "5b1e0c7a" is ambiguous: it starts 2 IDs: ${GRANTS[0]}, ${GRANTS[1]}`);
    try {
      run();
    } catch (error) {
      expect(exitCodeOf(error)).toBe(2);
    }
  });

  it('names at most ten candidates and counts the rest', () => {
    const many = Array.from({ length: 13 }, (_, i) => `abcdef-${String(i).padStart(2, '0')}`);
    expect(() => matchPrefix('abcdef', many, GRANT_IDS)).toThrow(/it starts 13 IDs: abcdef-00, .*abcdef-09 and 3 more$/);
  });

  it('refuses a prefix under 6 characters that matches, and says where the IDs are listed', () => {
    expect(() => matchPrefix('c0ff', GRANTS, GRANT_IDS)).toThrow('Grant "c0ff" is too short: give the whole ID or at least 6 of its characters');
    try {
      matchPrefix('c0ff', GRANTS, GRANT_IDS);
    } catch (error) {
      expect((error as UsageError).hint).toContain('svc grants list');
    }
  });

  it('passes on an ID that matches nothing, for the service to answer', () => {
    expect(matchPrefix('deadbeef', GRANTS, GRANT_IDS)).toBe('deadbeef');
  });

  it('a case-sensitive kind (base64url key IDs) matches only in the same case', () => {
    const keys = ['AbCdEfGh-key-one', 'abcdefgh-key-two'];
    expect(matchPrefix('AbCdEf', keys, KEY_IDS)).toBe(keys[0]);
    expect(matchPrefix('abcdef', keys, KEY_IDS)).toBe(keys[1]);
  });

  it('a fixed start may be left out and does not count towards the six', () => {
    const subs = ['whsub_1234567890', 'whsub_9999999999'];
    const kind = { noun: 'subscription', listedBy: '`svc webhook list`', optionalStart: 'whsub_' };
    expect(matchPrefix('123456', subs, kind)).toBe(subs[0]);
    expect(matchPrefix('whsub_999999', subs, kind)).toBe(subs[1]);
    expect(() => matchPrefix('whsub_12', subs, kind)).toThrow('"whsub_12" is too short: give the whole ID or at least 6 of its characters after whsub_');
  });
});
