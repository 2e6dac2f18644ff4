import { describe, expect, it } from 'vitest';
import { writeRecord } from '../../src/io/output.js';
import { testStreams } from '../../src/io/test-streams.js';
import { displayWidth } from '../../src/io/width.js';
import { wrapCell, wrapParts, wrapText } from '../../src/io/wrap.js';

describe('wrapText', () => {
  it('wraps at word boundaries, keeping indentation, never wider than asked (wide characters as drawn)', () => {
    const text = '  the quick brown fox jumps over the lazy dog 日本語のメモ and again';
    const out = wrapText(text, 20);
    for (const line of out.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(20);
    expect(out.split('\n').map((l) => l.trim()).join(' ')).toBe(text.trim());
    expect(out.split('\n').every((l) => l.startsWith('  '))).toBe(true);
  });

  it('two columns: the first keeps its layout, continuations go under the second', () => {
    expect(wrapText('  SVC_TOKEN      an access token handed in: used as is, never stored', 40, { columns: true })).toBe(
      '  SVC_TOKEN      an access token handed\n                 in: used as is, never\n                 stored',
    );
  });

  it('leaves a word longer than the width whole, and text that fits or has no width alone', () => {
    expect(wrapText('see https://example.com/a/very/long/path/indeed now', 20)).toBe('see\nhttps://example.com/a/very/long/path/indeed\nnow');
    expect(wrapText('short', 20)).toBe('short');
    expect(wrapText('not on a terminal: whole, however long it is', undefined)).toBe('not on a terminal: whole, however long it is');
  });
});

describe('wrapText keeps the spacing of a line', () => {
  it('two spaces before a column stay two on the line that keeps them (a note of terms and values)', () => {
    expect(wrapText('client secret  clientApplications[0].clientSecret in /tmp/fixtures/sandbox.json', 60, { hang: '  ' })).toBe(
      'client secret  clientApplications[0].clientSecret in\n  /tmp/fixtures/sandbox.json',
    );
    expect(wrapText('client secret  clientApplications[0].clientSecret in /tmp/fixtures/sandbox.json', 60, { hang: '  ', columns: true })).toBe(
      'client secret  clientApplications[0].clientSecret in\n               /tmp/fixtures/sandbox.json',
    );
  });
});

describe('wrapCell', () => {
  it('a cell on lines of the column\'s width: at spaces, a longer word where the column ends; nothing lost', () => {
    expect(wrapCell('write_receipts read_stores manage_client_applications', 37)).toEqual(['write_receipts read_stores', 'manage_client_applications']);
    expect(wrapCell('https://example.com/a/long/path', 12)).toEqual(['https://exam', 'ple.com/a/lo', 'ng/path']);
    expect(wrapCell('fits', 10)).toEqual(['fits']);
    expect(wrapCell('日本語のメモ', 5)).toEqual(['日本', '語の', 'メモ']);
  });
});

describe('writeRecord on a terminal', () => {
  it('wraps a long value under itself; piped, each field is one line', () => {
    const long = 'The milk was sour when I opened it at home, two days before its best-before date.';
    const tty = testStreams({ stdoutIsTTY: true });
    tty.io.columns = 40;
    writeRecord(tty.io, [['request', 'r-1'], ['note', long]], {});
    const lines = tty.stdout().split('\n').filter(Boolean);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(lines.slice(2).every((l) => l.startsWith('         '))).toBe(true);
    const piped = testStreams({ stdoutIsTTY: false });
    writeRecord(piped.io, [['note', long]], {});
    expect(piped.stdout()).toBe(`note  ${long}\n`);
  });
});

describe('wrapParts: a count line never loses a figure', () => {
  it('keeps every part whole, wrapped between parts; only a part wider than the width alone is cut', () => {
    const line = '6 requests · 2 pending · 1 accepted · 2 partially accepted · 1 completed · oldest 5d · in 6 of 150 companies';
    expect(wrapParts(line, 200)).toEqual([line]);
    expect(wrapParts(line, 60)).toEqual(['6 requests · 2 pending · 1 accepted · 2 partially accepted', '1 completed · oldest 5d · in 6 of 150 companies']);
    for (const width of [21, 30, 40, 60, 80, 120]) {
      const lines = wrapParts(line, width);
      for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(width);
      expect(lines.join(' · ')).toBe(line);
    }
    expect(wrapParts('a · 2 partially accepted', 10)).toEqual(['a', '2 partial…']);
  });
});
