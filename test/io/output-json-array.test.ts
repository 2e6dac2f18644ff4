import { describe, expect, it } from 'vitest';
import { writeJsonArray } from '../../src/io/output.js';
import { testStreams } from '../../src/io/test-streams.js';

describe('writeJsonArray', () => {
  it.each([0, 1, 255, 256, 257, 600])('writes exactly what JSON.stringify(list, null, 2) would, for %i items', async (count) => {
    const items = Array.from({ length: count }, (_, i) => ({
      id: i,
      note: i % 3 === 0 ? 'line one\nline two "quoted"' : `item ${i}`,
      nested: { list: [1, { deep: [] }], empty: {} },
    }));
    const streams = testStreams({ json: true });
    await writeJsonArray(streams.io, items);
    expect(streams.stdout()).toBe(`${JSON.stringify(items, null, 2)}\n`);
  });
});
