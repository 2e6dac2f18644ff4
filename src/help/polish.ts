// Help people read, applied to the whole command tree once it is built:
// - examples under every command (examples.ts), the common case first;
// - global options listed once, under `svc --help`; elsewhere a one-line summary;
// - no `help [command]` row under every noun: `svc help NOUN VERB` is the one help command;
// - a missing argument names the argument and where its values come from, a missing
//   required option what it takes.
import type { Command } from 'commander';
import { EXAMPLES } from './examples.js';

const GLOBAL_SUMMARY = 'Global options: --profile, --base-url, --json, --jq, --no-input, --debug, --no-color (see `svc --help`)';

/** Where a value of each argument comes from, for the missing-argument error. */
const ARGUMENT_HINTS: Readonly<Record<string, string>> = {
  'request-id': 'the return request; `svc credit-note poll` lists their IDs',
  'grant-id': 'a Grant; `svc grants list` lists them',
  'event-id': 'a received event; `svc webhook events` lists them (a prefix of 6+ characters will do)',
  id: 'a subscription; `svc webhook list` lists them (a prefix of 6+ characters will do)',
  'service-receipt-id': 'a receipt the service issued; `svc receipt list` lists this machine\'s',
  'key-id': 'a key pair; `svc keys list` lists them',
  key: 'a setting: base-url, client-id, redirect-uri, grant, scopes or database-url (`svc config list`)',
  value: 'the new value of the setting',
  status: 'ACCEPTED, PARTIALLY_ACCEPTED, REJECTED or COMPLETED',
  seconds: 'a duration: 90, 15m, 1h or 30d',
  shell: 'bash, zsh or fish',
  method: 'an HTTP method, e.g. `svc api GET /credit-note`',
  path: 'a path of the interface, e.g. /credit-note (tab completes them)',
};

export function commandPathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export function polishHelp(program: Command): void {
  const visit = (cmd: Command) => {
    cmd.helpCommand(false);
    const path = commandPathOf(cmd);
    if (path !== '') cmd.configureHelp({ showGlobalOptions: false, sortSubcommands: false });
    cmd.addHelpText('after', () => afterHelp(path));
    // Commander's own message only names the argument.
    (cmd as unknown as { missingArgument(name: string): void }).missingArgument = (name: string) => {
      const hint = ARGUMENT_HINTS[name];
      cmd.error(`error: missing ${name.toUpperCase()}${hint ? `: ${hint}` : ''}\n(usage: svc ${path} ${cmd.usage()})`, { code: 'commander.missingArgument', exitCode: 2 });
    };
    // A required option left out: commander's message names only the flag, not what it takes.
    (cmd as unknown as { missingMandatoryOptionValue(option: { flags: string; long?: string; description: string }): void }).missingMandatoryOptionValue = (option) => {
      cmd.error(`error: missing ${option.long ?? option.flags}: ${option.description}\n(usage: svc ${path} ${cmd.usage()})`, { code: 'commander.missingMandatoryOptionValue', exitCode: 2 });
    };
    for (const sub of cmd.commands) visit(sub);
  };
  visit(program);
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
