// Long text wrapped at word boundaries to a width, as the terminal draws it (wide characters
// take two columns): a terminal that wraps by itself breaks words mid-way. A word longer
// than the width stands on a line of its own, uncut. Existing line breaks are kept, and each
// continuation line keeps the indentation its line started with (plus `hang`), or goes
// under the second column of a two-column line.
import { displayWidth, fitWidth, widthPrefix } from './width.js';

export interface WrapOptions {
  /** More indentation for continuation lines. */
  hang?: string;
  /** Lines of two columns (a term, 2+ spaces, its text): continuations go under the text. */
  columns?: boolean;
}

export function wrapText(text: string, width: number | undefined, opts: WrapOptions = {}): string {
  if (width === undefined || width <= 0) return text;
  return text
    .split('\n')
    .map((line) => wrapLine(line, width, opts))
    .join('\n');
}

function wrapLine(line: string, width: number, opts: WrapOptions): string {
  if (displayWidth(line) <= width) return line;
  const indent = /^\s*/.exec(line)?.[0] ?? '';
  const column = opts.columns ? /^(\s*\S.*?\S? {2,})\S/.exec(line)?.[1] : undefined;
  const inColumns = column !== undefined && displayWidth(column) < width / 2;
  // The first line keeps its layout up to where its text starts.
  const lead = inColumns ? column : indent;
  const next = inColumns ? ' '.repeat(displayWidth(column)) : indent + (opts.hang ?? '');
  // Each word with the spaces before it: on a line, words keep the spacing they had (two
  // spaces before a column stay two); a break takes the spaces' place.
  const words = [...line.slice(lead.length).matchAll(/( *)([^ ]+)/g)].map(([, gap, word]) => ({ gap: gap ?? '', word: word ?? '' }));
  const out: string[] = [];
  let current = lead;
  let used = displayWidth(lead);
  let fresh = true;
  for (const { gap, word } of words) {
    const w = displayWidth(word);
    const space = fresh ? '' : gap;
    if (!fresh && used + space.length + w > width) {
      out.push(current);
      current = next + word;
      used = displayWidth(next) + w;
    } else {
      current += space + word;
      used += space.length + w;
    }
    fresh = false;
  }
  out.push(current);
  return out.join('\n');
}

/** What joins the parts of a count line or a keys line: "6 requests · 2 pending · oldest 5d". */
export const PART_SEPARATOR = ' · ';

/**
 * A line of parts joined by " · " (a count line, a keys line) fitted to `width` without losing
 * a figure: on one line when it fits, else wrapped between parts, each part whole on its line
 * ("2 partially accepted" is never "2 partially a…"). Only a part wider than the whole width
 * on its own is cut (with …), on a line of its own: at widths where nothing else fits either.
 */
export function wrapParts(line: string, width: number): string[] {
  if (width <= 0 || displayWidth(line) <= width) return [line];
  const out: string[] = [];
  let current = '';
  for (const part of line.split(PART_SEPARATOR)) {
    const joined = current === '' ? part : `${current}${PART_SEPARATOR}${part}`;
    if (current === '' || displayWidth(joined) <= width) current = joined;
    else {
      out.push(current);
      current = part;
    }
  }
  out.push(current);
  return out.map((l) => fitWidth(l, width));
}

/**
 * A table cell's text on lines of at most `width` columns (Column.wrap): broken at spaces, and
 * a word wider than the column where the column ends; nothing is cut or left out.
 */
export function wrapCell(text: string, width: number): string[] {
  if (displayWidth(text) <= width || width <= 0) return [text];
  const out: string[] = [];
  let current = '';
  for (let word of text.split(/ +/).filter((w) => w !== '')) {
    const joined = current === '' ? word : `${current} ${word}`;
    if (displayWidth(joined) <= width) {
      current = joined;
      continue;
    }
    if (current !== '') out.push(current);
    while (displayWidth(word) > width) {
      const head = widthPrefix(word, width);
      out.push(head);
      word = word.slice(head.length);
    }
    current = word;
  }
  if (current !== '') out.push(current);
  return out;
}
