import { describe, expect, it } from 'vitest';
import { jsonArrayElement, jsonArrayElements, writeJsonArray, writeJsonArrayText } from '../../src/io/output.js';
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

describe('writeJsonArrayText', () => {
  it('writes the same text from elements rendered elsewhere, several per string or none', async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ id: i, note: `a\nb ${i}` }));
    const rendered = [
      '',
      items.slice(0, 100).map(jsonArrayElement).join(',\n'),
      '',
      ...items.slice(100).map(jsonArrayElement),
    ];
    const streams = testStreams({ json: true });
    await writeJsonArrayText(streams.io, rendered);
    expect(streams.stdout()).toBe(`${JSON.stringify(items, null, 2)}\n`);
  });

  it('writes an empty array when every string is empty', async () => {
    const streams = testStreams({ json: true });
    await writeJsonArrayText(streams.io, ['', '']);
    expect(streams.stdout()).toBe('[]\n');
  });
});

describe('jsonArrayElements', () => {
  it('is jsonArrayElement of each item joined by ",\\n"', () => {
    const items = [{ a: 1, b: ['x', { c: 'line\nbreak' }] }, 'text', 3, null, [], {}];
    expect(jsonArrayElements(items)).toBe(items.map(jsonArrayElement).join(',\n'));
    expect(jsonArrayElements([])).toBe('');
  });
});
