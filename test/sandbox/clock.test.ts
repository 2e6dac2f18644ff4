import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { createSandboxClock } from '../../src/sandbox/clock.js';

describe('sandbox clock', () => {
  it('runs with its base clock plus whatever it was advanced by, until reset', () => {
    const base = fixedClock(Date.UTC(2030, 0, 1));
    const clock = createSandboxClock(base);
    clock.advance(90);
    base.advance(1000);
    expect(clock.now()).toBe(Date.UTC(2030, 0, 1) + 91_000);
    expect(clock.iso()).toBe('2030-01-01T00:01:31.000Z');
    clock.reset();
    expect(clock.iso()).toBe('2030-01-01T00:00:01.000Z');
  });

  it('never goes back', () => {
    const clock = createSandboxClock(fixedClock(0));
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(clock.now()).toBe(0);
  });
});
