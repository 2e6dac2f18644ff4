// Help people read, applied to the whole command tree once it is built:
// - examples under every command (examples.ts), the common case first;
// - global options listed once, under `svc --help`; elsewhere a one-line summary;
// - no `help [command]` row under every noun: `svc help NOUN VERB` is the one help command;
// - a missing argument names the argument and where its values come from, a missing
//   required option what it takes.
import { Help, type Command } from 'commander';
import { missingArgumentText } from './arguments.js';
import { helpLayout } from './layout.js';
import { stdoutColumns } from '../io/terminal-columns.js';
import { wrapText } from '../io/wrap.js';
import { EXAMPLES } from './examples.js';

const GLOBAL_SUMMARY = 'Global options: --profile, --base-url, --json, --jq, --no-input, --debug, --no-color (see `svc --help`)';

export function commandPathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * `svc --help` lists the nouns by job, as gh does, each row only the noun's name: its
 * arguments are in its own help, and a long row (`completion [options] <shell> …`) would
 * push every description to the right half of an 80-column terminal.
 */
const ROOT_GROUPS: Readonly<Record<string, string>> = {
  receipt: 'Core commands:',
  'credit-note': 'Core commands:',
  recipient: 'Core commands:',
  webhook: 'Core commands:',
  auth: 'Access and keys:',
  grants: 'Access and keys:',
  token: 'Access and keys:',
  keys: 'Access and keys:',
  sandbox: 'Sandbox, teams and tools:',
  config: 'Sandbox, teams and tools:',
  db: 'Sandbox, teams and tools:',
  api: 'Sandbox, teams and tools:',
  completion: 'Sandbox, teams and tools:',
  demo: 'Sandbox, teams and tools:',
  help: 'Sandbox, teams and tools:',
};

export function polishHelp(program: Command): void {
  program.configureHelp({ ...program.configureHelp(), subcommandTerm: (cmd: Command) => cmd.name() });
  for (const cmd of program.commands) {
    const group = ROOT_GROUPS[cmd.name()];
    if (group !== undefined) cmd.helpGroup(group);
  }
  const visit = (cmd: Command) => {
    cmd.helpCommand(false);
    const path = commandPathOf(cmd);
    if (path !== '') cmd.configureHelp({ showGlobalOptions: false, sortSubcommands: false, subcommandTerm, ...helpLayout });
    // Wrapped like the rest of the help: at word boundaries, to the terminal it is read on.
    cmd.addHelpText('after', () => wrapText(afterHelp(path), stdoutColumns(), { hang: '    ' }));
    // Commander's own message only names the argument.
    (cmd as unknown as { missingArgument(name: string): void }).missingArgument = (name: string) => {
      cmd.error(`error: ${missingArgumentText(name)}\n(usage: svc ${path} ${cmd.usage()})`, { code: 'commander.missingArgument', exitCode: 2 });
    };
    // A required option left out: commander's message names only the flag, not what it takes.
    (cmd as unknown as { missingMandatoryOptionValue(option: { flags: string; long?: string; description: string }): void }).missingMandatoryOptionValue = (option) => {
      cmd.error(`error: missing ${option.long ?? option.flags}: ${option.description}\n(usage: svc ${path} ${cmd.usage()})`, { code: 'commander.missingMandatoryOptionValue', exitCode: 2 });
    };
    for (const sub of cmd.commands) visit(sub);
  };
  visit(program);
}

/**
 * A subcommand's row in its parent's list. Commander's ignores a usage string set on the
 * command, which `credit-note status` sets: its optional first argument is followed by a
 * required one (`[request-id] <status>`), which commander cannot parse as such.
 */
function subcommandTerm(this: Help, cmd: Command): string {
  const custom = (cmd as unknown as { _usage?: string })._usage;
  if (custom === undefined) return Help.prototype.subcommandTerm.call(this, cmd);
  // As commander's rows: `[options]` only for a command with options of its own.
  return `${cmd.name()}${cmd.options.length > 0 ? ' [options]' : ''} ${custom.replace(/^\[options\] /, '')}`;
}

function afterHelp(path: string): string {
  const examples = EXAMPLES[path] ?? [];
  const lines = examples.length > 0 ? ['', 'Examples:', ...examples.map((e) => `  $ ${e}`)] : [];
  if (path === '') {
    lines.push('', 'More: `svc help NOUN VERB`, `svc help environment` (variables), `svc help exit-codes`.');
  } else {
    lines.push('', GLOBAL_SUMMARY);
  }
  return `${lines.join('\n')}\n`;
}
