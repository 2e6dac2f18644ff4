// How wide text is in a terminal, in columns: East Asian wide and fullwidth characters and
// emoji take two, combining marks and joiners none, by grapheme as terminals draw them.
import { eastAsianWidth } from 'get-east-asian-width';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

function graphemeWidth(segment: string): number {
  if (ZERO_WIDTH.test(segment)) return 0;
  if (EMOJI.test(segment) && (segment.includes('\u{FE0F}') || /\p{Emoji_Presentation}/u.test(segment) || /\p{Regional_Indicator}/u.test(segment))) return 2;
  const cp = segment.codePointAt(0) ?? 0;
  return eastAsianWidth(cp) === 2 ? 2 : 1;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of segmenter.segment(text)) width += graphemeWidth(segment);
  return width;
}

/** The text cut to `max` columns, with … as the last one when it was cut. */
export function fitWidth(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  let out = '';
  let width = 0;
  for (const { segment } of segmenter.segment(text)) {
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
