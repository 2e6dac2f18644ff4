// How wide text is in a terminal, in columns: East Asian wide and fullwidth characters and
// emoji take two, combining marks and joiners none, by grapheme as terminals draw them.
// Segmenting into graphemes is slow (Intl.Segmenter), and a table measures every cell, so
// text in which every code point is a grapheme of its own (scripts without joining letters,
// and no marks, joiners or emoji) is measured code point by code point, and printable ASCII
// by its length.
import { eastAsianWidth } from 'get-east-asian-width';

// Made on first use: constructing it loads ICU's break rules (about 7 ms), which text of
// printable ASCII or unjoined scripts (every --help) never needs.
let segmenter: Intl.Segmenter | undefined;
const segments = (text: string) => (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(text);
const ASCII = /^[\x20-\x7e]*$/;

/**
 * What text other than printable ASCII is measured with, made on first use: Unicode property
 * classes are built when a pattern is made, which `--json` output and most runs never need.
 */
function patterns(): Patterns {
  return (madePatterns ??= {
    zeroWidth: /^[\p{Mn}\p{Me}\p{Cf}]+$/u,
    emoji: /\p{Extended_Pictographic}|\p{Regional_Indicator}/u,
    emojiPresentation: /\p{Emoji_Presentation}/u,
    regionalIndicator: /\p{Regional_Indicator}/u,
    /**
     * Scripts where no letter joins another into one grapheme (Latin, Greek, Cyrillic, CJK,
     * Hangul syllables, kana, fullwidth forms, punctuation and symbols); elsewhere — Indic and
     * other scripts with prepended or spacing letters, conjoining jamo, halfwidth sound marks —
     * the segmenter decides.
     */
    unjoinedScripts:
      /^[\u0020-\u007e\u00a0-\u02ff\u0370-\u052f\u1e00-\u1fff\u2010-\u2027\u2030-\u205e\u20a0-\u20cf\u2100-\u2bff\u2e80-\u2fdf\u3000-\u303f\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff01-\uff9d\uffa0-\uffdc]*$/,
    /** What joins code points within those scripts: marks, format characters (joiners), emoji and their modifiers. */
    clustering: /[\p{M}\p{Cf}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}]/u,
  });
}
interface Patterns {
  zeroWidth: RegExp;
  emoji: RegExp;
  emojiPresentation: RegExp;
  regionalIndicator: RegExp;
  unjoinedScripts: RegExp;
  clustering: RegExp;
}
let madePatterns: Patterns | undefined;

function graphemeWidth(segment: string): number {
  const { zeroWidth, emoji, emojiPresentation, regionalIndicator } = patterns();
  if (zeroWidth.test(segment)) return 0;
  if (emoji.test(segment) && (segment.includes('\u{FE0F}') || emojiPresentation.test(segment) || regionalIndicator.test(segment))) return 2;
  const cp = segment.codePointAt(0) ?? 0;
  return eastAsianWidth(cp) === 2 ? 2 : 1;
}

/** Text that is one grapheme per code point. */
function simple(text: string): boolean {
  const { unjoinedScripts, clustering } = patterns();
  return unjoinedScripts.test(text) && !clustering.test(text);
}

function* graphemes(text: string): Iterable<string> {
  if (simple(text)) yield* text;
  else for (const { segment } of segments(text)) yield segment;
}

export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let width = 0;
  if (simple(text)) {
    for (const ch of text) width += eastAsianWidth(ch.codePointAt(0)!) === 2 ? 2 : 1;
    return width;
  }
  for (const { segment } of segments(text)) width += graphemeWidth(segment);
  return width;
}

/** The text cut to `max` columns, with … as the last one when it was cut. */
export function fitWidth(text: string, max: number): string {
  if (ASCII.test(text)) return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
  if (displayWidth(text) <= max) return text;
  let out = '';
  let width = 0;
  for (const segment of graphemes(text)) {
    const w = graphemeWidth(segment);
    if (width + w > max - 1) break;
    out += segment;
    width += w;
  }
  return `${out}…`;
}

/** The longest start of the text that takes at most `max` columns (at least one grapheme, so that it moves on). */
export function widthPrefix(text: string, max: number): string {
  let out = '';
  let width = 0;
  for (const segment of graphemes(text)) {
    const w = graphemeWidth(segment);
    if (out !== '' && width + w > max) break;
    out += segment;
    width += w;
  }
  return out;
}

/**
 * Cut to `max` columns in the middle, keeping the start and more of the end: names that tell
 * themselves apart at their end ("Platform Shop 00005 GmbH", "Platform Shop 00006 GmbH")
 * stay apart ("Platf…00005 GmbH"). Text with wide or combined characters is cut at the end.
 */
export function fitMiddle(text: string, max: number): string {
  if (!ASCII.test(text)) return fitWidth(text, max);
  if (text.length <= max) return text;
  if (max < 5) return fitWidth(text, max);
  const head = Math.max(1, Math.floor((max - 1) / 3));
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

/** Pads to `width` columns. */
export function padWidth(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const pad = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? pad + text : text + pad;
}
