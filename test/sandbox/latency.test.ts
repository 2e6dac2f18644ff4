// `sandbox start --latency`: each answer held by a timer, as a service across a network.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { drawDelay, parseLatency } from '../../src/sandbox/latency.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';

describe('parseLatency', () => {
  it.each([
    ['40', { minMs: 40, maxMs: 40 }],
    ['40ms', { minMs: 40, maxMs: 40 }],
    ['1.5s', { minMs: 1500, maxMs: 1500 }],
    ['20-60ms', { minMs: 20, maxMs: 60 }],
    ['20ms-1s', { minMs: 20, maxMs: 1000 }],
    [' 0 ', { minMs: 0, maxMs: 0 }],
  ])('reads %j', (text, latency) => {
    expect(parseLatency(text)).toEqual(latency);
  });

  it.each(['', 'fast', '-5ms', '60-20ms', '2m', '61s'])('refuses %j as a usage error', (text) => {
    expect(() => parseLatency(text)).toThrow(UsageError);
  });

  it('draws from the whole range, ends included', () => {
    const drawn = new Set(Array.from({ length: 400 }, () => drawDelay({ minMs: 1, maxMs: 3 })));
    expect([...drawn].sort()).toEqual([1, 2, 3]);
  });
});

describe('a sandbox with latency', () => {
  let slow: RunningSandbox;
  let fast: RunningSandbox;
  beforeAll(async () => {
    [slow, fast] = await Promise.all([startSandbox({ latency: { minMs: 300, maxMs: 300 } }), startSandbox()]);
  });
  afterAll(() => Promise.all([slow.close(), fast.close()]));

  const timed = async (url: string) => {
    const started = performance.now();
    const res = await fetch(`${url}/sandbox/health`);
    await res.json();
    return { status: res.status, ms: performance.now() - started };
  };

  it('holds each answer for the latency, errors too', async () => {
    const health = await timed(slow.url);
    expect(health.status).toBe(200);
    // Timers may fire a millisecond early; never 290 ms early.
    expect(health.ms).toBeGreaterThanOrEqual(295);
    const started = performance.now();
    const missing = await fetch(`${slow.url}/no-such-route`);
    expect(missing.status).toBe(404);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
  });

  it('holds answers side by side, not one after another', async () => {
    const started = performance.now();
    const all = await Promise.all(Array.from({ length: 10 }, () => timed(slow.url)));
    expect(all.every((r) => r.status === 200 && r.ms >= 295)).toBe(true);
    // One after another would take 3 s.
    expect(performance.now() - started).toBeLessThan(2500);
  });

  it('holds nothing without the option', async () => {
    expect((await timed(fast.url)).status).toBe(200);
  });
});
