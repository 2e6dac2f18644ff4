// Help laid out for the terminal's width: descriptions wrap at word boundaries in their
// column; where the column of terms leaves too little room for that, each description goes
// under its term instead, wrapped to the width. (Commander otherwise leaves such lines whole,
// and the terminal breaks them mid-word.) A usage line too long for the terminal wraps under
// its first word, and text after the options (addHelpText) wraps at words too.
import { Help, type Command } from 'commander';
import { stdoutColumns } from '../io/terminal-columns.js';
import { wrapText } from '../io/wrap.js';

/** Narrower than this, a description column is too thin to read. */
const MIN_COLUMN = 24;
const UNDER_INDENT = '      ';
const USAGE = 'Usage: ';

/** Text shown after a command's help, wrapped at words to the terminal it is read on (whole when piped). */
export function wrappedHelpText(text: string, hang = '    '): () => string {
  return () => wrapText(text, stdoutColumns(), { hang });
}

export const helpLayout = {
  minWidthToWrap: MIN_COLUMN,
  formatHelp(this: Help, cmd: Command, helper: Help): string {
    const width = this.helpWidth ?? 80;
    const text = Help.prototype.formatHelp.call(this, cmd, helper);
    return text.startsWith(USAGE) ? text.replace(/^.*/, (usage) => wrapText(usage, width, { hang: ' '.repeat(USAGE.length + 4) })) : text;
  },
  formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
    const width = this.helpWidth ?? 80;
    if (!description || width - termWidth - 4 >= MIN_COLUMN) return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    return `  ${term}\n${wrapText(`${UNDER_INDENT}${description}`, width)}`;
  },
};
