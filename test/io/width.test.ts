// Display width as a terminal draws it, and the fast paths (ASCII, one grapheme per code
// point) held to the grapheme-by-grapheme measure for any text.
import fc from 'fast-check';
import { eastAsianWidth } from 'get-east-asian-width';
import { describe, expect, it } from 'vitest';
import { displayWidth, fitWidth, padWidth } from '../../src/io/width.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** The measure without shortcuts: every grapheme, as segmented by Intl. */
function reference(text: string): number {
  let width = 0;
  for (const { segment } of segmenter.segment(text)) {
    if (/^[\p{Mn}\p{Me}\p{Cf}]+$/u.test(segment)) continue;
    if (/\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(segment) && (segment.includes('\u{FE0F}') || /\p{Emoji_Presentation}/u.test(segment) || /\p{Regional_Indicator}/u.test(segment))) width += 2;
    else width += eastAsianWidth(segment.codePointAt(0) ?? 0) === 2 ? 2 : 1;
  }
  return width;
}

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.constantFrom('a', 'é', 'e\u0301', '日', '本', '🍮', '👍🏽', '👨‍👩‍👧', '🇩🇪', 'ᄀ', 'ᅡ', '한', '\u11a8', '\u200d', '\ufe0f', '©', 'क्ष', 'ำ', 'ﾊ', 'ﾞ', '\u{113d1}', '\u{111cd}', '\u0600', ' '), { maxLength: 30 }).map((a) => a.join('')),
);

describe('displayWidth', () => {
  it('counts wide characters and emoji as two columns, marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('🍮')).toBe(2);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('👨‍👩‍👧')).toBe(2);
    expect(displayWidth('🇩🇪')).toBe(2);
  });

  it('equals the grapheme-by-grapheme measure for any text', () => {
    // Found by this property once: a prepended letter (U+113D1) joins the next one.
    expect(displayWidth('\u{113d1}\u{111cd}')).toBe(reference('\u{113d1}\u{111cd}'));
    fc.assert(fc.property(text, (t) => displayWidth(t) === reference(t)), { numRuns: 5000 });
  });
});

describe('fitWidth and padWidth', () => {
  it('cut text fits, ends in …, and is a prefix of the text', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 30 }), (t, max) => {
        const fitted = fitWidth(t, max);
        expect(displayWidth(fitted)).toBeLessThanOrEqual(max);
        if (fitted === t) return;
        expect(fitted.endsWith('…')).toBe(true);
        expect(t.startsWith(fitted.slice(0, -1))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('pads to the width in columns', () => {
    expect(padWidth('日本', 6)).toBe('日本  ');
    expect(padWidth('7', 3, 'right')).toBe('  7');
  });
});

describe('fitMiddle', () => {
  it('keeps the start and more of the end, so names that differ at their end stay apart', async () => {
    const { fitMiddle } = await import('../../src/io/width.js');
    expect(fitMiddle('Platform Shop 00005 GmbH', 16)).toBe('Platf…00005 GmbH');
    expect(fitMiddle('Platform Shop 00005 GmbH', 24)).toBe('Platform Shop 00005 GmbH');
    expect(fitMiddle('Platform Shop 00005 GmbH', 16)).not.toBe(fitMiddle('Platform Shop 00006 GmbH', 16));
    expect(fitMiddle('Platform Shop 00005 GmbH', 16)).toHaveLength(16);
  });
});
