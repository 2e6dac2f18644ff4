// What the reference says about each command, read from the commander tree as `--help` reads
// it (the same visible commands and options, tree.ts's walk), with the examples, the
// variables and the exit codes from where help takes them. The markdown pages and the man
// pages are two renderings of this.
import type { Command, Option } from 'commander';
import { visibleSubcommands } from '../completion/tree.js';
import { EXAMPLES } from '../help/examples.js';
import { envOf } from '../help/layout.js';
import { EXIT_CODES } from '../help/topics.js';

export interface OptionEntry {
  /** As `--help` prints it: `-v, --version`, `--port <n>`. */
  readonly flags: string;
  readonly description: string;
  readonly defaultValue: string | undefined;
  readonly choices: readonly string[] | undefined;
  /** `SVC_PROFILE`, or `SVC_DEBUG=1` where only that value counts. */
  readonly env: string | undefined;
}

export interface CommandEntry {
  /** Words after `svc`; empty for svc itself. */
  readonly path: readonly string[];
  /** `svc-receipt-send`: the page's file name, without its extension. */
  readonly slug: string;
  /** The first line of the description, as the parent's list shows it. */
  readonly summary: string;
  readonly description: string;
  /** `svc receipt send [options]` */
  readonly usage: string;
  readonly args: readonly { readonly name: string; readonly description: string }[];
  readonly options: readonly OptionEntry[];
  readonly examples: readonly string[];
  /** Text help prints after the options (the endpoints of `sandbox trigger`, …), without the examples. */
  readonly more: string;
  readonly parent: CommandEntry | undefined;
  readonly subcommands: readonly CommandEntry[];
}

export interface ExitCodeEntry {
  readonly code: string;
  readonly meaning: string;
}

export interface Reference {
  readonly commands: readonly CommandEntry[];
  /** The root's options but --version: they hold under every command. */
  readonly globalOptions: readonly OptionEntry[];
  readonly exitCodes: readonly ExitCodeEntry[];
  /** `svc help exit-codes` after its list: the codes of --jq. */
  readonly exitCodesMore: string;
}

export function describeReference(program: Command): Reference {
  const commands: CommandEntry[] = [];
  const visit = (cmd: Command, path: readonly string[], parent: CommandEntry | undefined): CommandEntry => {
    const help = cmd.createHelp();
    const entry: CommandEntry & { subcommands: CommandEntry[] } = {
      path,
      slug: ['svc', ...path].join('-'),
      summary: (cmd.summary() || cmd.description()).split('\n', 1)[0] ?? '',
      description: cmd.description(),
      usage: ['svc', ...path, cmd.usage()].join(' '),
      args: help.visibleArguments(cmd).map((a) => ({ name: a.name(), description: help.argumentDescription(a) })),
      options: help.visibleOptions(cmd).map(optionEntry),
      examples: EXAMPLES[path.join(' ')] ?? [],
      more: ownHelpText(cmd),
      parent,
      subcommands: [],
    };
    commands.push(entry);
    for (const sub of visibleSubcommands(cmd)) entry.subcommands.push(visit(sub, [...path, sub.name()], entry));
    return entry;
  };
  visit(program, [], undefined);
  // The topic's paragraphs: its heading, the list of codes, then those of --jq.
  const [, list = '', ...more] = EXIT_CODES.split('\n\n');
  return {
    commands,
    globalOptions: program.options.filter((o) => !o.hidden && o.attributeName() !== 'version').map(optionEntry),
    exitCodes: exitCodeEntries(list),
    exitCodesMore: more.join('\n\n').trim(),
  };
}

function optionEntry(option: Option): OptionEntry {
  // Commander's rule for showing a default (help's `(default: …)`).
  const shown = option.defaultValue !== undefined && (option.required || option.optional || (option.isBoolean() && typeof option.defaultValue === 'boolean'));
  return {
    flags: option.flags,
    description: option.description,
    defaultValue: shown ? (option.defaultValueDescription ?? JSON.stringify(option.defaultValue)) : undefined,
    choices: option.argChoices,
    env: envOf(option),
  };
}

/**
 * What a command's own help text after the options says (`addHelpText('after', …)`), read
 * by emitting the event `--help` emits, less the examples and the line on global options
 * that help/polish.ts adds to every command (they are sections of their own here).
 */
function ownHelpText(cmd: Command): string {
  const parts: string[] = [];
  // Whole lines, as when piped: the pages must not depend on the terminal they are made in.
  const tty = process.stdout.isTTY;
  const setTty = (value: boolean) => {
    try {
      Object.defineProperty(process.stdout, 'isTTY', { value, configurable: true, writable: true });
    } catch {
      // Fixed already (scripts/gen-docs.mjs makes it false for the whole run).
    }
  };
  setTty(false);
  try {
    (cmd as unknown as NodeJS.EventEmitter).emit('afterHelp', { error: false, command: cmd, write: (text: string) => parts.push(text) });
  } finally {
    setTty(tty);
  }
  const text = parts.join('');
  const cut = text.search(/\n(Examples:|Global options:|More: )/);
  return (cut === -1 ? text : text.slice(0, cut)).trim();
}

/** `  0  ok` with its continuation lines, from `svc help exit-codes`. */
function exitCodeEntries(text: string): ExitCodeEntry[] {
  const entries: { code: string; meaning: string }[] = [];
  for (const line of text.split('\n')) {
    const start = /^ {2}(\d+) {2}(.*)$/.exec(line);
    if (start) entries.push({ code: start[1] ?? '', meaning: start[2] ?? '' });
    else if (line.trim() !== '' && entries.length > 0) entries[entries.length - 1]!.meaning += ` ${line.trim()}`;
  }
  return entries;
}

