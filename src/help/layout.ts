// Help laid out for the terminal's width: descriptions wrap at word boundaries in their
// column; where the column of terms leaves too little room for that, each description goes
// under its term instead, wrapped to the width. (Commander otherwise leaves such lines whole,
// and the terminal breaks them mid-word.) A usage line too long for the terminal wraps under
// its first word, and text after the options (addHelpText) wraps at words too.
import { Help, type Command, type Option } from 'commander';
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

/**
 * The variable svc reads for an option when its flag is not given: help shows it as
 * commander shows an Option.env() variable, and the reference (src/reference/) lists it.
 * Not Option.env() itself: commander would then read process.env on its own, while svc
 * reads these from the environment main() is handed, with rules of its own (SVC_DEBUG only
 * when 1, CI only when true, a profile from SVC_PROFILE named as such in errors, a
 * --client-id given is stored in the profile and SVC_CLIENT_ID is not).
 */
export function readsEnv(option: Option, variable: string): Option {
  (option as Option & { svcEnv?: string }).svcEnv = variable;
  return option;
}

/** An option's variable: commander's (Option.env()) or the one readsEnv() declared. */
export function envOf(option: Option): string | undefined {
  return option.envVar ?? (option as Option & { svcEnv?: string }).svcEnv;
}

export const helpLayout = {
  minWidthToWrap: MIN_COLUMN,
  optionDescription(this: Help, option: Option): string {
    const text = Help.prototype.optionDescription.call(this, option);
    const declared = option.envVar === undefined ? envOf(option) : undefined;
    return declared === undefined ? text : `${text} (env: ${declared})`;
  },
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
