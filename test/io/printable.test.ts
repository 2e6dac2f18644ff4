import { describe, expect, it } from 'vitest';
import { printable } from '../../src/io/printable.js';

describe('printable', () => {
  it('writes control characters and bidi overrides as visible escapes', () => {
    expect(printable('a\x1b[31mb\x07\r\x00\x7f\x9b')).toBe('a\\x1b[31mb\\x07\\x0d\\x00\\x7f\\x9b');
    expect(printable('abc\u202etxt.exe\u2066')).toBe('abc\\u202etxt.exe\\u2066');
    expect(printable('a\u2028b\u2029c\ufeffd\u061ce')).toBe('a\\u2028b\\u2029c\\ufeffd\\u061ce');
  });

  it('keeps tabs, line breaks and ordinary text (accents, symbols, emoji)', () => {
    const text = 'Straße 12\n10969 Berlin\t€ 1,28 • 🥛 ×';
    expect(printable(text)).toBe(text);
  });
});
