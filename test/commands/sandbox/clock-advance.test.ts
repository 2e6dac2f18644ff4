import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../../src/commands/sandbox/clock-advance.js';
import { UsageError } from '../../../src/errors.js';

describe('svc sandbox clock advance SECONDS', () => {
  it('takes whole seconds or a count with a unit', () => {
    expect(parseDuration('60')).toBe(60);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('15m')).toBe(900);
    expect(parseDuration('1h')).toBe(3600);
    expect(parseDuration('30d')).toBe(2_592_000);
  });

  it('refuses anything else, naming SECONDS', () => {
    for (const bad of ['-5', '1.5', 'soon', '5w', '', '4000d']) {
      expect(() => parseDuration(bad)).toThrow(UsageError);
      expect(() => parseDuration(bad)).toThrow(/^SECONDS: /);
    }
  });
});
