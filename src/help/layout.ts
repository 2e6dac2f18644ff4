// Help laid out for the terminal's width: descriptions wrap at word boundaries in their
// column; where the column of terms leaves too little room for that, each description goes
// under its term instead, wrapped to the width. (Commander otherwise leaves such lines whole,
// and the terminal breaks them mid-word.)
import { Help } from 'commander';
import { wrapText } from '../io/wrap.js';

/** Narrower than this, a description column is too thin to read. */
const MIN_COLUMN = 24;
const UNDER_INDENT = '      ';

export const helpLayout = {
  minWidthToWrap: MIN_COLUMN,
  formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
    const width = this.helpWidth ?? 80;
    if (!description || width - termWidth - 4 >= MIN_COLUMN) return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    return `  ${term}\n${wrapText(`${UNDER_INDENT}${description}`, width)}`;
  },
};
