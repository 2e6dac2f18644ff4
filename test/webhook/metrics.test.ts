// The listener's /metrics text as strict Prometheus parsers read it.
import { expect, it } from 'vitest';
import { createMetrics } from '../../src/webhook/metrics.js';

it('spells a gauge with no sample yet NaN, as the exposition format does (prom-client writes "Nan")', async () => {
  // Scraped at once: the event loop's lag has no sample yet.
  const text = await createMetrics({ backlog: () => 0 }).text();
  const nan = text.split('\n').filter((line) => /\snan$/i.test(line));
  expect(nan.length).toBeGreaterThan(0);
  for (const line of nan) expect(line).toMatch(/ NaN$/);
});
