// How wide text is in a terminal, in columns: East Asian wide and fullwidth characters and
// emoji take two, combining marks and joiners none, by grapheme as terminals draw them.
// Segmenting into graphemes is slow (Intl.Segmenter), and a table measures every cell, so
// text in which every code point is a grapheme of its own is measured code point by code
// point, and printable ASCII by its length.
import { eastAsianWidth } from 'get-east-asian-width';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const ASCII = /^[\x20-\x7e]*$/;
/**
 * What can join code points into one grapheme (marks, joiners and other format characters,
 * emoji and their modifiers, regional indicators, conjoining Hangul jamo) or is a lone
 * surrogate: text without any of these is one grapheme per code point.
 */
const CLUSTERING = /[\p{M}\p{Cf}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\p{Cs}]/u;

function graphemeWidth(segment: string): number {
  if (ZERO_WIDTH.test(segment)) return 0;
  if (EMOJI.test(segment) && (segment.includes('\u{FE0F}') || /\p{Emoji_Presentation}/u.test(segment) || /\p{Regional_Indicator}/u.test(segment))) return 2;
  const cp = segment.codePointAt(0) ?? 0;
  return eastAsianWidth(cp) === 2 ? 2 : 1;
}

function simple(text: string): boolean {
  return !CLUSTERING.test(text);
}

function* graphemes(text: string): Iterable<string> {
  if (simple(text)) yield* text;
  else for (const { segment } of segmenter.segment(text)) yield segment;
}

export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let width = 0;
  if (simple(text)) {
    for (const ch of text) width += eastAsianWidth(ch.codePointAt(0)!) === 2 ? 2 : 1;
    return width;
  }
  for (const { segment } of segmenter.segment(text)) width += graphemeWidth(segment);
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

/** Pads to `width` columns. */
export function padWidth(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const pad = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? pad + text : text + pad;
}
